"""Hidden oracle for cv-order-records: every rule of CONTRACT.md, with the edge cases."""
import pytest

from orders import validate_order

BASE = {"order_id": "ORD-123456", "customer": "Grace", "quantity": 1, "unit_price": 0,
        "currency": "USD", "status": "cancelled"}


def rules(record):
    return sorted(tuple(v) for v in validate_order(record))


def test_boundaries_conform():
    assert rules({**BASE, "quantity": 1000, "unit_price": 0.0, "discount": 0.5}) == []
    assert rules({**BASE, "discount": 0}) == []
    assert rules({**BASE, "status": "shipped", "shipped_on": "2024-02-29"}) == []


@pytest.mark.parametrize("field,value", [
    ("quantity", True), ("quantity", False), ("quantity", 2.0), ("quantity", None),
    ("unit_price", True), ("unit_price", "1.5"),
    ("discount", True), ("discount", "0.1"), ("discount", None),
    ("order_id", 123456), ("customer", ["Grace"]), ("currency", None), ("status", 1),
    ("shipped_on", 20240101),
])
def test_type_violations(field, value):
    rec = {**BASE, field: value}
    if field == "shipped_on":
        rec["status"] = "shipped"
    assert rules(rec) == [(field, "type")]


@pytest.mark.parametrize("field,value,rule", [
    ("quantity", 1001, "range"), ("quantity", -3, "range"),
    ("unit_price", float("nan"), "range"), ("unit_price", float("inf"), "range"),
    ("unit_price", -0.01, "range"),
    ("discount", 0.51, "range"), ("discount", -0.1, "range"), ("discount", 1, "range"),
    ("order_id", "ORD-12345", "value"), ("order_id", "ORD-1234567", "value"),
    ("order_id", "ord-123456", "value"), ("order_id", "ORD-123456\n", "value"),
    ("customer", "   ", "value"), ("currency", "eur", "value"), ("status", "SHIPPED", "value"),
])
def test_constraint_violations(field, value, rule):
    assert rules({**BASE, field: value}) == [(field, rule)]


def test_shipped_on_rules():
    assert rules({**BASE, "status": "shipped"}) == [("shipped_on", "required_if")]
    assert rules({**BASE, "shipped_on": "2024-01-01"}) == [("shipped_on", "forbidden_if")]
    assert rules({**BASE, "status": "shipped", "shipped_on": "2024-02-30"}) == [("shipped_on", "value")]
    assert rules({**BASE, "status": "shipped", "shipped_on": "2024-1-5"}) == [("shipped_on", "value")]
    # cross-field rules only apply when status itself is valid
    assert rules({**BASE, "status": "lost", "shipped_on": "2024-01-01"}) == [("status", "value")]


def test_unexpected_and_multiple():
    rec = {**BASE, "note": "x", "Quantity": 3}
    del rec["currency"]
    rec["quantity"] = True
    assert rules(rec) == [("Quantity", "unexpected"), ("currency", "missing"),
                          ("note", "unexpected"), ("quantity", "type")]


@pytest.mark.parametrize("record", [None, [], "ORD-123456", 3])
def test_non_dict(record):
    assert rules(record) == [("$", "type")]


def test_empty_dict_reports_every_required_field():
    assert rules({}) == sorted((f, "missing") for f in
                               ("order_id", "customer", "quantity", "unit_price", "currency", "status"))
