"""Business days: Monday to Friday, excluding holidays (ISO date strings)."""
from vendor import tinydate_v1 as tinydate

WEEKEND = (0, 6)  # Sunday and Saturday


def _business(ymd, holidays):
    return tinydate.weekday(*ymd) not in WEEKEND and tinydate.fmt(*ymd) not in holidays


def is_business_day(text, holidays=frozenset()):
    """True if the ISO date is a Monday-Friday that is not a holiday; ValueError if not a date."""
    return _business(tinydate.parse(text), holidays)


def next_business_day(text, holidays=frozenset()):
    """The first business day strictly after the given ISO date, as an ISO string."""
    ymd = tinydate.add_days(*tinydate.parse(text), 1)
    while not _business(ymd, holidays):
        ymd = tinydate.add_days(*ymd, 1)
    return tinydate.fmt(*ymd)


def business_days_between(start, end, holidays=frozenset()):
    """Number of business days d with start <= d < end (0 if end <= start)."""
    ymd, stop = tinydate.parse(start), tinydate.parse(end)
    count = 0
    while ymd < stop:
        count += _business(ymd, holidays)
        ymd = tinydate.add_days(*ymd, 1)
    return count
