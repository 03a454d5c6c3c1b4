"""Hidden ground-truth oracle for money-round-helper (never visible to the agent)."""
import ast
import json
from decimal import Decimal
from pathlib import Path

import pytest

from invoicing import discount_amount, invoice_total, line_total, tax_amount
from invoicing.money import round_money

D = Decimal


@pytest.mark.parametrize("value, cents", [
    (D("0.125"), D("0.13")), (D("-0.125"), D("-0.13")), (D("0.135"), D("0.14")), (D("2.5"), D("2.50")),
    (D("5.005"), D("5.01")), (D("0.004999"), D("0.00")), (7, D("7.00")), ("1.995", D("2.00")),
])
def test_round_money_half_away_from_zero(value, cents):
    out = round_money(value)
    assert out == cents and str(out) == str(cents)


def test_behaviour_identical_to_before():
    assert line_total(1, "0.125") == D("0.13")
    assert discount_amount("0.5", "5") == D("0.03")
    assert tax_amount("0.50", "FR") == D("0.10")
    assert tax_amount("1.50", "US-CA") == D("0.11")
    assert invoice_total([(1, "0.125"), (1, "10.005")], "US-CA", 2.5) == {
        "net": D("10.14"), "discount": D("0.25"), "tax": D("0.72"), "total": D("10.61")}
    sample = json.loads(Path("data/sample_invoice.json").read_text())
    assert invoice_total(sample["lines"], sample["region"], sample["discount_percent"]) == {
        "net": D("45.37"), "discount": D("2.27"), "tax": D("8.19"), "total": D("51.29")}
    with pytest.raises(ValueError):
        line_total(-1, "1.00")
    with pytest.raises(ValueError):
        discount_amount("10", 101)
    with pytest.raises(ValueError):
        tax_amount("10", "XX")


def _tree(path):
    return ast.parse(Path(path).read_text())


def test_invoice_module_delegates_all_rounding():
    tree = _tree("invoicing/invoice.py")
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert "quantize" not in attrs
    assert not {"ROUND_HALF_UP", "ROUND_HALF_EVEN"} & (names | attrs)
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("line_total", "discount_amount", "tax_amount"):
        calls = {
            (c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", None))
            for c in ast.walk(funcs[name]) if isinstance(c, ast.Call)
        }
        assert "round_money" in calls, name


def test_money_module_is_the_only_rounding_site():
    tree = _tree("invoicing/money.py")
    assert any(isinstance(n, ast.FunctionDef) and n.name == "round_money" for n in tree.body)
    for path in Path("invoicing").glob("*.py"):
        if path.name != "money.py":
            assert "quantize" not in path.read_text(), path
