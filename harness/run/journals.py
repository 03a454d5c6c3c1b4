"""The run's two journals beside its ledger, one JSON object a line: ``voids.jsonl`` (every void attempt, the
rerun policy's accounting) and ``requeues.jsonl`` (every cell re-queued because its worker or node died).

Their lines are written here (``to_json``) and parsed here (``from_json``) into ``VoidLine`` and
``RequeueLine``: the one place their keys are read. A line that is not an object, or lacks its cell key,
is an InputError naming the file, the line and the field (the driver counts it as a torn line, the viewer
shows it as the error it is); never a lenient default.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.core.errors import InputError


def _object(obj: Any, where: str, line: int | None) -> dict:
    if not isinstance(obj, dict):
        raise InputError(where, "<line>", f"expected a JSON object, got {type(obj).__name__}", line)
    if not isinstance(obj.get("cell_key"), str):
        raise InputError(where, "cell_key", "missing or not a string", line)
    return obj


@dataclass(frozen=True)
class VoidLine:
    """One void attempt of a cell: its key, why it was void, and which void attempt of the cell it was."""
    cell_key: str
    void_reason: str | None
    attempt: int | None

    def to_json(self) -> dict[str, Any]:
        return {"cell_key": self.cell_key, "void_reason": self.void_reason, "attempt": self.attempt}

    @classmethod
    def from_json(cls, obj: Any, where: str = "voids.jsonl", line: int | None = None) -> VoidLine:
        d = _object(obj, where, line)
        return cls(d["cell_key"], d.get("void_reason"), d.get("attempt"))


@dataclass(frozen=True)
class RequeueLine:
    """One re-queue of a cell in flight: its key, the reason and when (epoch seconds)."""
    cell_key: str
    reason: str | None
    when: float | None

    def to_json(self) -> dict[str, Any]:
        return {"cell_key": self.cell_key, "reason": self.reason, "when": self.when}

    @classmethod
    def from_json(cls, obj: Any, where: str = "requeues.jsonl", line: int | None = None) -> RequeueLine:
        d = _object(obj, where, line)
        return cls(d["cell_key"], d.get("reason"), d.get("when"))
