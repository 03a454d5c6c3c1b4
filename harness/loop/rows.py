"""The bounded loop's ledger rows as typed objects (issue 36): ``LoopRow``, one row of a loop ledger.

A loop ledger is a hash-chained records file (harness.ledger.ledger.Ledger) whose rows are not cell
records: one row per attempt (``kind`` ``attempt``: the verdict, the artifact's digest, the worker's
usage), one per pass's end (``terminal``: DONE or HALT, why, the accepting verdict row's seq and hash),
``abandoned`` for a pass a kill cut short, and a graph's repair rows. The ledger reads and writes them
as JSON objects (its edge); ``LoopRow.from_json`` is where the loop reads one, and the loop's code
(``audit_done``, ``spent_attempts``, the resume of a killed loop run) reads attributes.

Lenient, as the readers it replaces (``row.get(name)``): a key the row does not hold reads None
(``reason``: "", as ``row.get("reason", "")`` read it), a value is kept as the row holds it, and a key
the loop does not read is left out (the row's object, as the ledger holds it, is what a replay
returns).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple


class PassKey(NamedTuple):
    """One pass of one loop's node in one run: the rows of a pass share it (None: the row lacks the key)."""
    run_id: Any
    node: Any
    pass_no: Any


_JSON_NAME = {"pass_no": "pass"}  # a field whose key in the row is another word ("pass" is Python's)
_PASS_FIELDS = PassKey._fields


@dataclass(frozen=True)
class LoopRow:
    """One row of a loop ledger, as the loop reads it."""
    kind: str | None = None  # attempt, terminal, abandoned, or a graph's row
    run_id: str | None = None
    node: str | None = None  # None: a graph's run-wide row (a repair)
    pass_no: int | None = None
    cell_key: str | None = None  # run_id|node|pass|attempt (or |end, |abandoned...): the row's key in the ledger
    attempt: int | None = None
    spent: bool | None = None  # an attempt's row (a spent attempt); a terminal row is not
    verdict: str | None = None
    reason: str = ""
    artifact_digest: str | None = None
    model_id: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    state: str | None = None  # a terminal row's DONE or HALT
    verdict_seq: int | None = None  # a DONE terminal row: the accepting attempt row's seq and hash
    verdict_hash: str | None = None
    wall_s: float | None = None
    seq: int | None = None  # the ledger's stamp
    hash: str | None = None
    absent: frozenset[str] = frozenset()  # the fields the row does not hold

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> LoopRow:
        """The row a loop ledger holds (a JSON object; keys the loop does not read are left out)."""
        names = {_JSON_NAME.get(f.name, f.name): f.name for f in dataclasses.fields(cls) if f.name != "absent"}
        return cls(**{names[k]: v for k, v in obj.items() if k in names},
                   absent=frozenset(n for k, n in names.items() if k not in obj))

    @property
    def key(self) -> PassKey:
        """The pass this row belongs to."""
        return PassKey(self.run_id, self.node, self.pass_no)

    def pass_fields(self) -> dict[str, Any]:
        """The row's own run id, node and pass, as the ledger's keys (only those it holds)."""
        return {_JSON_NAME.get(n, n): getattr(self, n) for n in _PASS_FIELDS if n not in self.absent}


def rows_of(records: list[dict]) -> list[LoopRow]:
    """Each of a loop ledger's rows (``Ledger.records``) as a ``LoopRow``."""
    return [LoopRow.from_json(r) for r in records]
