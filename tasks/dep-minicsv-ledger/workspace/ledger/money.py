"""Money amounts as integer cents."""
from decimal import Decimal, InvalidOperation

from ledger.errors import LedgerError


def parse_cents(text):
    """'-12.5' -> -1250. At most two decimals; anything else raises LedgerError."""
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        raise LedgerError(f"bad amount {text!r}") from None
    if not value.is_finite() or value.as_tuple().exponent < -2:
        raise LedgerError(f"bad amount {text!r}")
    return int(value * 100)


def format_cents(cents):
    """-1250 -> '-12.50'."""
    sign = "-" if cents < 0 else ""
    return f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"
