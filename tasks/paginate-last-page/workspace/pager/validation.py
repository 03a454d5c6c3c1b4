"""Argument checks shared by the pager functions."""


def require_positive_int(name: str, value) -> int:
    """Return value if it is an int >= 1 (bools are rejected), else raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be an int, got {type(value).__name__}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return value
