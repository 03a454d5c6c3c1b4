"""Parse human durations such as "1h30m" into a number of seconds."""
from durations.units import unit_seconds


def parse_duration(text: str) -> int:
    """Return the number of seconds named by a duration string such as "1h30m"."""
    # TODO: only a single whole-number component ("90s", "2d") is handled so far.
    text = text.strip()
    if len(text) < 2 or not text[:-1].isdigit():
        raise ValueError(f"not a duration: {text!r}")
    return int(text[:-1]) * unit_seconds(text[-1])
