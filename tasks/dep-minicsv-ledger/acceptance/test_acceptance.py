"""Visible acceptance test for dep-minicsv-ledger."""
import sys
from pathlib import Path

sys.modules["vendor.minicsv_v1"] = None  # minicsv 1.x is being removed: importing it must not be needed

import ledger  # noqa: E402
from ledger import balance_cents, load_transactions, totals_by_category  # noqa: E402

ROOT = Path(ledger.__file__).resolve().parent.parent


def test_sample_ledger_totals():
    txns = load_transactions(ROOT / "data" / "transactions.csv")
    assert len(txns) == 5
    assert totals_by_category(txns)["food"] == -8075
    assert balance_cents(txns) == 142425


def test_pin_names_minicsv_2():
    assert "minicsv==2." in (ROOT / "requirements.txt").read_text()
