"""Type checks for configuration values."""


def check_type(key: str, value, default) -> object:
    """value if it has the type of default (bool is not accepted for int), else TypeError."""
    expected = type(default)
    if type(value) is not expected:
        raise TypeError(f"{key}: expected {expected.__name__}, got {type(value).__name__}")
    return value
