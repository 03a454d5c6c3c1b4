"""Order records and their written contract (CONTRACT.md)."""
from orders.batch import validate_jsonl
from orders.contract import validate_order
from orders.violation import Violation

__all__ = ["Violation", "validate_jsonl", "validate_order"]
