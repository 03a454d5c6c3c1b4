"""tinydate 2.0.2: calendar dates as immutable Date objects (vendored). See CHANGELOG.md."""
import datetime

__version__ = "2.0.2"


class InvalidDate(ValueError):
    """Raised by Date.parse for text that is not a valid ISO date."""


class Date:
    """An immutable calendar date."""

    __slots__ = ("_d",)

    def __init__(self, year, month, day):
        object.__setattr__(self, "_d", datetime.date(year, month, day))

    def __setattr__(self, name, value):
        raise AttributeError("Date is immutable")

    @classmethod
    def parse(cls, text):
        """Date.parse('2024-03-05'); InvalidDate if not a valid ISO date."""
        try:
            d = datetime.date.fromisoformat(text.strip())
        except (ValueError, AttributeError):
            raise InvalidDate(f"not an ISO date: {text!r}") from None
        return cls(d.year, d.month, d.day)

    @property
    def year(self):
        return self._d.year

    @property
    def month(self):
        return self._d.month

    @property
    def day(self):
        return self._d.day

    def weekday(self):
        """ISO order: 0 = Monday, 1 = Tuesday, ..., 5 = Saturday, 6 = Sunday."""
        return self._d.weekday()

    def shift(self, *, days):
        """The date `days` days later (negative for earlier)."""
        d = self._d + datetime.timedelta(days=days)
        return Date(d.year, d.month, d.day)

    def isoformat(self):
        return self._d.isoformat()

    __str__ = isoformat

    def __repr__(self):
        return f"Date({self.isoformat()!r})"

    def __eq__(self, other):
        return isinstance(other, Date) and self._d == other._d

    def __lt__(self, other):
        return self._d < other._d

    def __le__(self, other):
        return self._d <= other._d

    def __hash__(self):
        return hash(self._d)
