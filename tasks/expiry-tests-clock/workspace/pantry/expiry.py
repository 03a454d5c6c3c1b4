"""Best-before checks."""
import csv
from datetime import date

from pantry.dates import parse_date, resolve_today


def days_left(best_before: date, today: date | None = None) -> int:
    """Days from today to best_before (0 on the day itself, negative once expired)."""
    return (best_before - resolve_today(today)).days


def is_expired(best_before: date, today: date | None = None) -> bool:
    """True once today is after best_before; the best-before day itself is not expired."""
    return days_left(best_before, today) < 0


def expiring_soon(items: dict[str, date], within_days: int, today: date | None = None) -> list[str]:
    """Names of unexpired items with at most within_days days left, soonest first, ties by name."""
    if within_days < 0:
        raise ValueError("within_days must be >= 0")
    today = resolve_today(today)
    left = {name: days_left(bb, today) for name, bb in items.items()}
    soon = [name for name, d in left.items() if 0 <= d <= within_days]
    return sorted(soon, key=lambda name: (left[name], name))


def load_items(path: str) -> dict[str, date]:
    """{name: best_before} from a CSV with columns name,best_before."""
    with open(path, newline="") as f:
        return {row["name"]: parse_date(row["best_before"]) for row in csv.DictReader(f)}
