"""Business days: Monday to Friday, excluding holidays (ISO date strings)."""
from vendor import tinydate_v2 as tinydate

WEEKEND = (5, 6)  # Saturday and Sunday (tinydate 2 counts 0 = Monday)


def _business(day, holidays):
    return day.weekday() not in WEEKEND and day.isoformat() not in holidays


def is_business_day(text, holidays=frozenset()):
    """True if the ISO date is a Monday-Friday that is not a holiday; ValueError if not a date."""
    return _business(tinydate.parse(text), holidays)


def next_business_day(text, holidays=frozenset()):
    """The first business day strictly after the given ISO date, as an ISO string."""
    day = tinydate.parse(text).shift(days=1)
    while not _business(day, holidays):
        day = day.shift(days=1)
    return day.isoformat()


def business_days_between(start, end, holidays=frozenset()):
    """Number of business days d with start <= d < end (0 if end <= start)."""
    day, stop = tinydate.parse(start), tinydate.parse(end)
    count = 0
    while day < stop:
        count += _business(day, holidays)
        day = day.shift(days=1)
    return count
