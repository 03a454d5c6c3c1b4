from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def vat_amount(net, rate):
    amount = Decimal(str(net)) * Decimal(str(rate)) / Decimal(100)
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def gross(net, rate):
    base = Decimal(str(net))
    return base + vat_amount(net, rate)
