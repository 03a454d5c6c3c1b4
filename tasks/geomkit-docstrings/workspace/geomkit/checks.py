"""Argument checks shared by geomkit modules."""


def require_non_negative(name: str, value: float) -> float:
    """value if it is >= 0, else ValueError naming the argument."""
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value
