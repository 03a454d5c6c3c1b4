"""Rounding of money amounts: the one place that decides how cents are rounded."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def round_money(value) -> Decimal:
    """`value` (Decimal, int or numeric str) rounded to whole cents, halves away from zero."""
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)
