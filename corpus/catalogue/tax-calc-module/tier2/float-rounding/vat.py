from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def vat_amount(net, rate):
    return Decimal(str(round(float(net) * float(rate) / 100, 2))).quantize(CENT)


def gross(net, rate):
    base = Decimal(str(net))
    return base + vat_amount(net, rate)
