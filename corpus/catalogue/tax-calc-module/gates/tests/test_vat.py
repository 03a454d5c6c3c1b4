from decimal import Decimal

import vat


def test_vat_rounds_half_up():
    assert vat.vat_amount("10.05", 10) == Decimal("1.01")
    assert vat.vat_amount("0.05", 10) == Decimal("0.01")


def test_vat_standard():
    assert vat.vat_amount(100, 20) == Decimal("20.00")


def test_gross():
    assert vat.gross("19.99", 19) == Decimal("23.79")
