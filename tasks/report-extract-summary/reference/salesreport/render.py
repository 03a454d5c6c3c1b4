"""Render a sales report."""
import csv

from salesreport.fmt import money, percent, row
from salesreport.summary import summarize


def load_records(path: str) -> list[dict]:
    """Records from a CSV export with columns category,amount (amount in cents)."""
    with open(path, newline="") as f:
        return [{"category": r["category"], "amount": int(r["amount"])} for r in csv.DictReader(f)]


def render_report(records: list[dict]) -> str:
    """The report text: one line per category, then a TOTAL line."""
    summary = summarize(records)
    grand_total = summary["total"]
    lines = ["Sales report", "=" * 39, row("category", "total", "count", "share")]
    for category, total, count in summary["rows"]:
        lines.append(row(category, money(total), str(count), percent(total, grand_total)))
    lines.append("-" * 39)
    lines.append(row("TOTAL", money(grand_total), str(summary["count"]), percent(grand_total, grand_total)))
    return "\n".join(lines) + "\n"
