"""Parse range expressions like "1-3,5" into sorted integer lists."""


def _to_int(value: str) -> int:
    """Convert one bound to a non-negative int, or raise ValueError."""
    value = value.strip()
    if not value.isdigit():
        raise ValueError(f"not a non-negative integer: {value!r}")
    return int(value)


def _expand(item: str) -> range:
    """Expand one item ("7" or "a-b") into the integers it names."""
    if "-" in item:
        low_text, _, high_text = item.partition("-")
        low, high = _to_int(low_text), _to_int(high_text)
        if low > high:
            raise ValueError(f"descending range: {item!r}")
        return range(high, low)
    n = _to_int(item)
    return range(n, n + 1)


def parse_range(text: str) -> list[int]:
    """Return the sorted distinct integers named by a range expression."""
    if not text.strip():
        raise ValueError("empty range expression")
    values: set[int] = set()
    for item in text.split(","):
        if not item.strip():
            raise ValueError(f"empty item in {text!r}")
        values.update(_expand(item))
    return sorted(values)
