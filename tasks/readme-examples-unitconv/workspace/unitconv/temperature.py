"""Temperature conversion between Celsius and Fahrenheit."""

ABSOLUTE_ZERO_C = -273.15


def to_fahrenheit(celsius: float) -> float:
    """Celsius to Fahrenheit, rounded to 1 decimal; below absolute zero raises ValueError."""
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError("below absolute zero")
    return round(celsius * 9 / 5 + 32, 1)


def to_celsius(fahrenheit: float) -> float:
    """Fahrenheit to Celsius, rounded to 1 decimal; below absolute zero raises ValueError."""
    celsius = (fahrenheit - 32) * 5 / 9
    if celsius < ABSOLUTE_ZERO_C:
        raise ValueError("below absolute zero")
    return round(celsius, 1)
