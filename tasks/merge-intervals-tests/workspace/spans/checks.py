"""Validation of interval pairs."""


def as_interval(pair) -> tuple[int, int]:
    """(start, end) from a 2-item pair of numbers with start <= end, else ValueError."""
    try:
        start, end = pair
    except (TypeError, ValueError):
        raise ValueError(f"not a (start, end) pair: {pair!r}") from None
    if start > end:
        raise ValueError(f"start after end: {pair!r}")
    return (start, end)
