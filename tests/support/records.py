"""Cell records for tests that need a record and not a run: ``cell`` makes a valid ``CellRecord``
(harness.core.record) with the flags its outcome requires under Eq. 7 filled in."""
from __future__ import annotations

from typing import Any

from harness.core import record
from harness.core.outcomes import Outcome


def cell(arm: str, task: str, scenario: str, repeat: int, outcome: str | Outcome, **fields: Any) -> record.CellRecord:
    """A record of the cell arm|task|scenario|repeat with ``outcome``: shipped, visible_pass and
    hidden_pass as Eq. 7 requires (a flag Eq. 7 leaves free is False; a void record's are null),
    tokens and wall time 1 unless ``fields`` says otherwise."""
    outcome = Outcome(outcome)
    flags: dict[str, Any] = {"shipped": False, "visible_pass": False, "hidden_pass": False}
    if outcome is Outcome.VOID:
        flags = {k: None for k in flags}
    flags.update(record.EQ7_FLAGS.get(outcome, {}))
    values: dict[str, Any] = {"cell_key": f"{arm}|{task}|{scenario}|{repeat}", "tokens_in": 1, "tokens_out": 1,
                              "wall_s": 1.0, **flags, **fields}
    return record.make(arm=arm, task=task, scenario=scenario, repeat=repeat, outcome=outcome, **values)


def of_key(key: str, outcome: str | Outcome, **fields: Any) -> record.CellRecord:
    """``cell`` of a cell key (arm|task|scenario|repeat)."""
    arm, task, scenario, repeat = key.split("|")
    return cell(arm, task, scenario, int(repeat), outcome, **fields)


def as_json(records: list[record.CellRecord]) -> list[dict[str, Any]]:
    """The records as their file holds them (``CellRecord.to_json``), for tests that compare lines."""
    return [r.to_json() for r in records]
