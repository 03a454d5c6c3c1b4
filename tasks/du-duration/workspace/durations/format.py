"""Format a number of seconds as a compact human duration."""
from durations.units import ORDER, UNITS


def format_duration(seconds: int) -> str:
    """Return `seconds` as e.g. "1h30m"; 0 is "0s". Negative input raises ValueError."""
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        raise TypeError("seconds must be an int")
    if seconds < 0:
        raise ValueError("negative duration")
    if seconds == 0:
        return "0s"
    parts = []
    for unit in ORDER:
        amount, seconds = divmod(seconds, UNITS[unit])
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts)
