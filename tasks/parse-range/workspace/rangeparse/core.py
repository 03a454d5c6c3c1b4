"""Parse range expressions like "1-3,5" into sorted integer lists."""


def _to_int(value: str) -> int:
    """Convert one bound to a non-negative int, or raise ValueError."""
    value = value.strip()
    if not value.isdigit():
        raise ValueError(f"not a non-negative integer: {value!r}")
    return int(value)


def parse_range(text: str) -> list[int]:
    """Return the sorted distinct integers named by a range expression."""
    # TODO: only single integers are handled; ranges "a-b" are not.
    return sorted({_to_int(item) for item in text.split(",")})
