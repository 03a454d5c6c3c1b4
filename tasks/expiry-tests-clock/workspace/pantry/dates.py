"""Date helpers."""
from datetime import date


def parse_date(text: str) -> date:
    """A date from "YYYY-MM-DD", or ValueError."""
    return date.fromisoformat(text.strip())


def resolve_today(today: date | None) -> date:
    """`today` itself, or the real current date when it is None."""
    return date.today() if today is None else today
