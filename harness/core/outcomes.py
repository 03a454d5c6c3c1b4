"""Closed sets the harness branches on, as enums carried in data (never string prefixes).

- ``Outcome``: the adjudicator's total order (docs/explanation/outcomes.md; Eq. 7 of the Proof-or-Stop paper for the
  scored ones). ``harness.core.record.OUTCOMES`` is derived from it.
- ``VoidKind``: why a cell is void (or, for the two kinds that ``stops_run``, unrun). Records carry
  it as ``void_kind`` with the fault's own text as ``void_detail`` (record schema v3);
  ``VoidKind.of_reason`` reads the kind back from an older record's ``void_reason`` text.
- ``Fault``: a kind and its detail; ``str(fault)`` is the text older harnesses wrote, so
  ``void_reason`` reads the same as before.
- ``RunStop``: why a run stopped dispatching early (exit 4, ``stops.jsonl``'s ``kind``).
- ``LoopEnding``: how one pass of a bounded loop ended (Bounded Loops paper, Theorem 4.1's
  trichotomy plus the two budget halts and an engine fault).

Standard library only: the record module and every layer above it import this.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """A cell's outcome, in the adjudicator's order of precedence (docs/explanation/outcomes.md)."""

    COMPLETED = "completed"
    RECOVERED = "recovered"
    AMPLIFIED = "amplified"
    SAFE_STOP = "safe_stop"
    FALSE_STOP = "false_stop"
    ACCEPTANCE_FAIL = "acceptance_fail"
    UNSAFE = "unsafe"
    VOID = "void"


class VoidKind(StrEnum):
    """Why a cell is void. The value is what a record's ``void_kind`` holds; ``label`` is the
    prefix older harnesses wrote into ``void_reason`` (None: the text had no prefix)."""

    AUTHENTICATION = "authentication"  # the provider refused the credentials (401/403)
    BUDGET_CEILING = "budget_ceiling"  # the run's [budget] ceiling refused a call
    ENGINE_FAULT = "engine_fault"  # the engine failed after its retries
    HARNESS_ERROR = "harness_error"  # a harness bug (voids the cell loudly, never the run)
    WRITE_FAILED = "write_failed"  # the cell's event log or transcript could not be written
    GROUND_TRUTH = "ground_truth"  # the acceptance test or oracle cannot be trusted, or the task is unusable
    ADJUDICATION_ERROR = "adjudication_error"  # adjudication itself crashed
    WORKER_LOST = "worker_lost"  # the process or node running the cell died, past the requeue limit

    @property
    def label(self) -> str | None:
        return _LABELS[self]

    @property
    def stops_run(self) -> bool:
        """The driver stops the run at this fault; the cell is unrun (never void, never scored)."""
        return self in (VoidKind.AUTHENTICATION, VoidKind.BUDGET_CEILING)

    @classmethod
    def of_reason(cls, reason: str | None) -> VoidKind | None:
        """The kind an older record's ``void_reason`` text names (records before schema v3 carry
        no ``void_kind``), or None when the text names none of them."""
        text = (reason or "").removeprefix("infrastructure: ")
        for kind in sorted(cls, key=lambda k: -len(k.label or "")):  # the longest label first
            if kind.label and text.startswith(kind.label + ":"):
                return kind
        if text.startswith(("the event log could not be written", "the transcript could not be written")):
            return cls.WRITE_FAILED
        if text.startswith(("a pool worker process died", "ray worker lost")):
            return cls.WORKER_LOST
        return None


_LABELS = {VoidKind.AUTHENTICATION: "authentication", VoidKind.BUDGET_CEILING: "budget ceiling",
           VoidKind.ENGINE_FAULT: "engine fault", VoidKind.HARNESS_ERROR: "harness error",
           VoidKind.WRITE_FAILED: None, VoidKind.GROUND_TRUTH: "ground truth",
           VoidKind.ADJUDICATION_ERROR: "harness error in adjudication", VoidKind.WORKER_LOST: None}


@dataclass(frozen=True)
class Fault:
    """A fault that ends a cell: its kind and its own text (redacted by the caller)."""

    kind: VoidKind
    detail: str

    def __str__(self) -> str:
        return f"{self.kind.label}: {self.detail}" if self.kind.label else self.detail


class RunStop(StrEnum):
    """Why a run stopped dispatching before every cell ran (exit 4; ``--resume`` continues)."""

    BUDGET_CEILING = "budget_ceiling"  # the [budget] ceiling, now or in an earlier session
    AUTHENTICATION = "authentication"  # the provider refused the credentials
    SIGNAL = "signal"  # SIGINT or SIGTERM
    DISK = "disk"  # the run directory could not be written (a full disk)
    EXECUTOR = "executor"  # the executor lost its cluster for good (the harness's own Ray node died)

    @classmethod
    def of_fault(cls, kind: VoidKind) -> RunStop:
        """The run stop a cell's fault causes (only kinds that ``stops_run``)."""
        return {VoidKind.AUTHENTICATION: cls.AUTHENTICATION, VoidKind.BUDGET_CEILING: cls.BUDGET_CEILING}[kind]


class LoopEnding(StrEnum):
    """How one pass of a bounded loop ended: DONE, or why it halted."""

    DONE = "done"  # the gate accepted
    INCAPACITY = "incapacity"  # the gate could not judge
    NO_PROGRESS = "no-progress"  # the same reject soft_bound times in a row
    CEILING = "ceiling"  # max_attempts spent without an accept
    ENGINE_FAULT = "engine fault"  # the worker's engine failed
