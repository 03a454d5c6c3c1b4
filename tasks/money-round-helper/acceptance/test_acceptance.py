"""Visible acceptance test for money-round-helper (the agent can see and run this)."""
from decimal import Decimal
from pathlib import Path

from invoicing import invoice_total, line_total
from invoicing.money import round_money


def test_round_money_exists_and_rounds_to_cents():
    assert round_money(Decimal("2.675")) == Decimal("2.68")
    assert round_money(Decimal("19.991")) == Decimal("19.99")
    assert str(round_money(5)) == "5.00"


def test_invoice_no_longer_quantizes_itself():
    assert "quantize" not in Path("invoicing/invoice.py").read_text()


def test_totals_unchanged():
    assert line_total(3, "19.99") == Decimal("59.97")
    assert invoice_total([(2, "19.99"), (1, "5.00")], "DE", 10) == {
        "net": Decimal("44.98"), "discount": Decimal("4.50"), "tax": Decimal("7.69"), "total": Decimal("48.17")}
    assert invoice_total([(3, "19.99")], "FR")["total"] == Decimal("71.96")
