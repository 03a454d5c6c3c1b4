"""tinydate 1.9.0: calendar dates as (year, month, day) tuples (vendored). Deprecated."""
import datetime

__version__ = "1.9.0"


def parse(text):
    """'2024-03-05' -> (2024, 3, 5); ValueError if not a valid ISO date."""
    d = datetime.date.fromisoformat(text.strip())
    return d.year, d.month, d.day


def fmt(year, month, day):
    """(2024, 3, 5) -> '2024-03-05'."""
    return datetime.date(year, month, day).isoformat()


def weekday(year, month, day):
    """Day of the week: 0 = Sunday, 1 = Monday, ..., 6 = Saturday."""
    return (datetime.date(year, month, day).weekday() + 1) % 7


def add_days(year, month, day, n):
    """The date n days later (n may be negative), as a tuple."""
    d = datetime.date(year, month, day) + datetime.timedelta(days=n)
    return d.year, d.month, d.day
