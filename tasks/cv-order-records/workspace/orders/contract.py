"""validate_order: check one order record against CONTRACT.md."""
from orders.violation import Violation

REQUIRED = ("order_id", "customer", "quantity", "unit_price", "currency", "status")
OPTIONAL = ("discount", "shipped_on")


def validate_order(record):
    """Violations of CONTRACT.md by record ([] when it conforms)."""
    if not isinstance(record, dict):
        return [Violation("$", "type")]
    out = [Violation(name, "missing") for name in REQUIRED if name not in record]
    # TODO: types, constraints, unexpected fields and the cross-field rules of CONTRACT.md
    return out
