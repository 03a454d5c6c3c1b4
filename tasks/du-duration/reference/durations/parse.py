"""Parse human durations such as "1h30m" into a number of seconds."""
import re
from fractions import Fraction

from durations.units import unit_rank, unit_seconds

_COMPONENT = r"([0-9]+(?:\.[0-9]+)?)([dhms])"
_WHOLE = re.compile(rf"\s*(?:{_COMPONENT}\s*)+", re.IGNORECASE)
_EACH = re.compile(_COMPONENT, re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Return the number of seconds named by a duration string such as "1h30m"."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"not a duration: {text!r}")
    total = Fraction(0)
    last_rank = -1
    for number, unit in _EACH.findall(text):
        rank = unit_rank(unit)
        if rank <= last_rank:
            raise ValueError(f"units out of order or repeated in {text!r}")
        last_rank = rank
        total += Fraction(number) * unit_seconds(unit)
    if total.denominator != 1:
        raise ValueError(f"not a whole number of seconds: {text!r}")
    return int(total)
