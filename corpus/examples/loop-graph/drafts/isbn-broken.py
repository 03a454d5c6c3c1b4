"""ISBN-10 and ISBN-13 validation and conversion (the bundled sample module for the `fine` family)."""


def clean(text):
    """Drop hyphens and spaces; upper-case a trailing 'x'."""
    return text.replace("-", "").replace(" ", "").upper()


def is_isbn10(text):
    """True when ``text`` is a well-formed ISBN-10 with a valid check digit."""
    digits = clean(text)
    if len(digits) != 10:
        return False
    if not digits[:9].isdigit():
        return False
    if not (digits[9].isdigit() or digits[9] == "X"):
        return False
    total = 0
    for i, ch in enumerate(digits):
        value = 10 if ch == "X" else int(ch)
        total += (10 - i) * value
    return total % 10 == 0


def check_digit13(first12):
    """The ISBN-13 check digit for 12 digits (weights 1, 3, 1, 3, ...)."""
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return (10 - total % 10) % 10


def is_isbn13(text):
    """True when ``text`` is a well-formed ISBN-13 (978 or 979 prefix) with a valid check digit."""
    digits = clean(text)
    if len(digits) != 13 or not digits.isdigit():
        return False
    if digits[:3] not in ("978", "979"):
        return False
    return check_digit13(digits[:12]) == int(digits[12])


def to_isbn13(isbn10):
    """Convert a valid ISBN-10 to its ISBN-13 form; ValueError for anything else."""
    if not is_isbn10(isbn10):
        raise ValueError(f"not an ISBN-10: {isbn10!r}")
    first12 = "978" + clean(isbn10)[:9]
    return first12 + str(check_digit13(first12))


def validate(text):
    """'ISBN-10', 'ISBN-13' or None."""
    if is_isbn10(text):
        return "ISBN-10"
    if is_isbn13(text):
        return "ISBN-13"
    return None
