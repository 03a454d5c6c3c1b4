"""Render a sales report."""
import csv

from salesreport.fmt import money, percent, row


def load_records(path: str) -> list[dict]:
    """Records from a CSV export with columns category,amount (amount in cents)."""
    with open(path, newline="") as f:
        return [{"category": r["category"], "amount": int(r["amount"])} for r in csv.DictReader(f)]


def render_report(records: list[dict]) -> str:
    """The report text: one line per category, then a TOTAL line."""
    totals: dict[str, int] = {}
    counts: dict[str, int] = {}
    for record in records:
        category = record.get("category")
        amount = record.get("amount")
        if not isinstance(category, str) or not category:
            raise ValueError(f"record without a category: {record!r}")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError(f"amount must be int cents: {record!r}")
        totals[category] = totals.get(category, 0) + amount
        counts[category] = counts.get(category, 0) + 1
    ordered = sorted(totals, key=lambda c: (-totals[c], c))
    grand_total = sum(totals.values())
    grand_count = sum(counts.values())

    lines = ["Sales report", "=" * 39, row("category", "total", "count", "share")]
    for category in ordered:
        lines.append(row(category, money(totals[category]), str(counts[category]),
                         percent(totals[category], grand_total)))
    lines.append("-" * 39)
    lines.append(row("TOTAL", money(grand_total), str(grand_count), percent(grand_total, grand_total)))
    return "\n".join(lines) + "\n"
