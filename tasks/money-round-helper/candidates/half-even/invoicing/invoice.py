"""Line, discount, tax and invoice totals."""
from decimal import Decimal
from typing import Iterable

from invoicing.money import round_money
from invoicing.rates import tax_rate


def line_total(quantity: int, unit_price) -> Decimal:
    """quantity x unit_price, rounded to cents (halves away from zero)."""
    if quantity < 0:
        raise ValueError("negative quantity")
    amount = Decimal(str(unit_price)) * quantity
    return round_money(amount)


def discount_amount(net, percent) -> Decimal:
    """`percent` % of `net`, rounded to cents (halves away from zero)."""
    if not 0 <= Decimal(str(percent)) <= 100:
        raise ValueError("discount percent must be within 0..100")
    amount = Decimal(str(net)) * Decimal(str(percent)) / 100
    return round_money(amount)


def tax_amount(net, region: str) -> Decimal:
    """Tax on `net` in `region`, rounded to cents (halves away from zero)."""
    amount = Decimal(str(net)) * tax_rate(region)
    return round_money(amount)


def invoice_total(lines: Iterable[tuple[int, object]], region: str, discount_percent=0) -> dict[str, Decimal]:
    """Net, discount, tax and total of an invoice whose lines are (quantity, unit_price)."""
    net = sum((line_total(q, p) for q, p in lines), Decimal("0.00"))
    discount = discount_amount(net, discount_percent)
    taxable = net - discount
    tax = tax_amount(taxable, region)
    return {"net": net, "discount": discount, "tax": tax, "total": taxable + tax}
