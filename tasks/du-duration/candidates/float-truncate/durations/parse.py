"""Parse human durations such as "1h30m" into a number of seconds."""
import re

from durations.units import unit_rank, unit_seconds

_COMPONENT = r"([0-9]+(?:\.[0-9]+)?)([dhms])"
_WHOLE = re.compile(rf"\s*(?:{_COMPONENT}\s*)+", re.IGNORECASE)
_EACH = re.compile(_COMPONENT, re.IGNORECASE)


def parse_duration(text: str) -> int:
    """Return the number of seconds named by a duration string such as "1h30m"."""
    if not _WHOLE.fullmatch(text):
        raise ValueError(f"not a duration: {text!r}")
    total = 0.0
    last_rank = -1
    for number, unit in _EACH.findall(text):
        rank = unit_rank(unit)
        if rank <= last_rank:
            raise ValueError(f"units out of order or repeated in {text!r}")
        last_rank = rank
        total += float(number) * unit_seconds(unit)
    return int(total)
