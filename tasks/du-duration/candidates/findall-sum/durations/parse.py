"""Parse human durations such as "1h30m" into a number of seconds."""
import re
from fractions import Fraction

from durations.units import unit_seconds

_COMPONENT = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*([dhms])", re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Return the number of seconds named by a duration string such as "1h30m"."""
    parts = _COMPONENT.findall(text)
    if not parts:
        raise ValueError(f"not a duration: {text!r}")
    total = Fraction(0)
    for number, unit in parts:
        total += Fraction(number) * unit_seconds(unit)
    if total.denominator != 1:
        raise ValueError(f"not a whole number of seconds: {text!r}")
    return int(total)
