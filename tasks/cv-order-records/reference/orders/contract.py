"""validate_order: check one order record against CONTRACT.md."""
import datetime
import math
import re

from orders.violation import Violation

REQUIRED = ("order_id", "customer", "quantity", "unit_price", "currency", "status")
OPTIONAL = ("discount", "shipped_on")
ORDER_ID = re.compile(r"ORD-[0-9]{6}")
CURRENCIES = ("EUR", "USD", "GBP")
STATUSES = ("pending", "shipped", "cancelled")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_iso_date(text):
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return False
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _check(name, value):
    """The rule value breaks for field name, or None."""
    if name == "order_id":
        if not isinstance(value, str):
            return "type"
        return None if ORDER_ID.fullmatch(value) else "value"
    if name == "customer":
        if not isinstance(value, str):
            return "type"
        return None if value.strip() else "value"
    if name == "quantity":
        if not _is_int(value):
            return "type"
        return None if 1 <= value <= 1000 else "range"
    if name == "unit_price":
        if not _is_number(value):
            return "type"
        return None if math.isfinite(value) and value >= 0 else "range"
    if name == "currency":
        if not isinstance(value, str):
            return "type"
        return None if value in CURRENCIES else "value"
    if name == "discount":
        if not _is_number(value):
            return "type"
        return None if 0 <= value <= 0.5 else "range"
    if name == "status":
        if not isinstance(value, str):
            return "type"
        return None if value in STATUSES else "value"
    if name == "shipped_on":
        if not isinstance(value, str):
            return "type"
        return None if _is_iso_date(value) else "value"
    return "unexpected"


def validate_order(record):
    """Violations of CONTRACT.md by record ([] when it conforms)."""
    if not isinstance(record, dict):
        return [Violation("$", "type")]
    out = [Violation(name, "missing") for name in REQUIRED if name not in record]
    bad = set()
    for name, value in record.items():
        rule = _check(name, value)
        if rule:
            out.append(Violation(name, rule))
            bad.add(name)
    status = record.get("status")
    if "status" in record and "status" not in bad and "shipped_on" not in bad:
        if status == "shipped" and "shipped_on" not in record:
            out.append(Violation("shipped_on", "required_if"))
        elif status != "shipped" and "shipped_on" in record:
            out.append(Violation("shipped_on", "forbidden_if"))
    return out
