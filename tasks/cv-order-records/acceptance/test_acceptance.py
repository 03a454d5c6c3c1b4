"""Visible acceptance test for cv-order-records."""
from pathlib import Path

import orders
from orders import validate_jsonl, validate_order

ROOT = Path(orders.__file__).resolve().parent.parent

GOOD = {"order_id": "ORD-000001", "customer": "Ada", "quantity": 2, "unit_price": 9.5,
        "currency": "EUR", "status": "pending"}


def rules(record):
    return {tuple(v) for v in validate_order(record)}


def test_conforming_record():
    assert validate_order(GOOD) == []


def test_missing_and_wrong_type():
    rec = dict(GOOD)
    del rec["customer"]
    rec["quantity"] = "2"
    assert rules(rec) == {("customer", "missing"), ("quantity", "type")}


def test_ranges_and_values():
    assert rules({**GOOD, "quantity": 0}) == {("quantity", "range")}
    assert rules({**GOOD, "currency": "JPY"}) == {("currency", "value")}
    assert rules({**GOOD, "unit_price": -1}) == {("unit_price", "range")}


def test_shipped_needs_a_date():
    assert rules({**GOOD, "status": "shipped"}) == {("shipped_on", "required_if")}
    assert validate_order({**GOOD, "status": "shipped", "shipped_on": "2024-05-01"}) == []


def test_sample_file():
    bad = validate_jsonl(ROOT / "data" / "orders.jsonl")
    assert {n: [tuple(v) for v in vs] for n, vs in bad.items()} == {3: [("quantity", "range")]}
