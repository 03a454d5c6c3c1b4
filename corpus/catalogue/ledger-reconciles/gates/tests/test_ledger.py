import json
import os
import re
from decimal import Decimal
from pathlib import Path

import pytest

SEEDED = {"T001", "T002", "T003", "T004", "T005"}


@pytest.fixture(scope="module")
def ledger():
    p = Path(os.environ["CORPUS_ARTIFACT"])
    assert p.is_file(), "ledger absent"
    return json.loads(p.read_text())


def test_types(ledger):
    assert isinstance(ledger["opening_balance"], (int, float))
    assert isinstance(ledger["closing_balance"], (int, float))
    assert isinstance(ledger["transactions"], list) and ledger["transactions"]
    for t in ledger["transactions"]:
        assert isinstance(t["id"], str) and t["id"]
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", t["date"])
        assert isinstance(t["amount"], (int, float)) and not isinstance(t["amount"], bool)


def test_reconciles(ledger):
    total = Decimal(str(ledger["opening_balance"])) + sum(Decimal(str(t["amount"])) for t in ledger["transactions"])
    assert total == Decimal(str(ledger["closing_balance"])).quantize(Decimal("0.01"))


def test_seeded_present(ledger):
    assert SEEDED <= {t["id"] for t in ledger["transactions"]}
