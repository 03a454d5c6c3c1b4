"""Numbers in CSV cells."""


def parse_number(text):
    """'7' -> 7, '8.25' -> 8.25; ValueError for anything else (including nan/inf)."""
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {text!r}")
    return value


def format_number(value):
    """An int stays an int; a float is printed without float noise (round to 10 places)."""
    if isinstance(value, int):
        return str(value)
    return repr(round(value, 10))
