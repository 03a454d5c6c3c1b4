"""Text formatting helpers for reports."""


def money(cents: int) -> str:
    """Cents as a decimal amount with thousands separators: 123456 -> '1,234.56'."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{frac:02d}"


def percent(part: int, whole: int) -> str:
    """part/whole as a percentage with one decimal; '-' when whole is 0."""
    if whole == 0:
        return "-"
    return f"{100 * part / whole:.1f}%"


def row(label: str, total: str, count: str, share: str) -> str:
    """One fixed-width report line."""
    return f"{label:<12}{total:>12}{count:>7}{share:>8}"
