"""Hidden oracle for dep-minicsv-ledger: the documented ledger format after the migration."""
import datetime
import sys
from pathlib import Path

import pytest

sys.modules["vendor.minicsv_v1"] = None  # simulate the removal of minicsv 1.x

import ledger  # noqa: E402
from ledger import balance_cents, parse_ledger, totals_by_category  # noqa: E402

ROOT = Path(ledger.__file__).resolve().parent.parent


def error_classes(fn, *args):
    """The class names (most derived first) of the ValueError that fn(*args) raises."""
    with pytest.raises(ValueError) as info:
        fn(*args)
    return [c.__name__ for c in type(info.value).__mro__]


def test_whitespace_around_fields_is_ignored():
    txns = parse_ledger("date , category , amount\n2024-01-02 ,  food , -3.50\n 2024-01-03, food,-1\n")
    assert totals_by_category(txns) == {"food": -450}
    assert txns[0].date == datetime.date(2024, 1, 2)


def test_comment_and_blank_lines_are_ignored():
    text = ("# exported 2024-02-01, do not edit\ndate,category,amount\n\n"
            "2024-01-02,rent,-900\n  # rent, paid early\n2024-01-05,salary,2000.5\n")
    txns = parse_ledger(text)
    assert [t.category for t in txns] == ["rent", "salary"]
    assert balance_cents(txns) == 110050


def test_header_any_order_and_case_extra_columns():
    txns = parse_ledger("Amount,Note,DATE,Category\n-2.25,coffee,2024-01-09,food\n")
    assert [(type(t).__name__, tuple(t)) for t in txns] == [("Transaction", (datetime.date(2024, 1, 9), "food", -225))]


@pytest.mark.parametrize("text", [
    "",
    "# only a comment\n",
    "date,amount\n2024-01-01,5\n",
    "date,category,amount\n2024-01-01,food\n",
    "date,category,amount\n2024-13-01,food,5\n",
    "date,category,amount\n2024-01-01,food,5.001\n",
    "date,category,amount\n2024-01-01,,5\n",
])
def test_malformed_ledgers_raise_ledger_error(text):
    assert "LedgerError" in error_classes(parse_ledger, text)


def test_pin_is_exactly_the_vendored_v2():
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines() if ln.strip()]
    assert "minicsv==2.1.0" in lines
    assert not any(ln.startswith("minicsv==1") for ln in lines)
