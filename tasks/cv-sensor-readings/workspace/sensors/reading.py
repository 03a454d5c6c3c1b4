"""The validated reading and the contract error."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    sensor_id: str
    ts: int
    kind: str
    value: float
    unit: str
    quality: int


class ReadingError(ValueError):
    """The first contract violation found in a raw reading."""

    def __init__(self, field, rule, detail=""):
        super().__init__(f"{field}: {rule}" + (f" ({detail})" if detail else ""))
        self.field = field
        self.rule = rule
