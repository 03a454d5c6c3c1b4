"""The result type of contract validation."""
from typing import NamedTuple


class Violation(NamedTuple):
    field: str   # the field name, or "$" for the record itself
    rule: str    # missing | type | range | value | unexpected | required_if | forbidden_if
