"""The cell's events: a closed set of typed classes (issue 36), serialized at the event log's edge.

Every event a cell's log holds is one of the classes below, told apart by its ``type`` (an
``EventType`` member: the discriminator of the ``Event`` union). The log
(``harness.sandbox.workspace.EventLog``) stamps each with its position (``seq``) and wall time
(``t``) and writes it as one JSON line: ``{"seq", "t", "type", ...the fields the emitter set}``,
keys sorted. A field the emitter did not set is not written (``model_fields_set``), so the line
is the one the untyped log wrote for the same payload, byte for byte, and records, receipts and
signatures derived from it do not change.

Reading a line back (``parse_event``) gives its class; an unknown type, an unknown field or a
value of the wrong type is refused in one line naming the file, the line and the field
(``harness.core.errors.InputError``), as every other reader of a run file does.

The classes are pydantic models (validated when made; frozen). A field whose value an agent
controls (a tool call's arguments, a path it named) is typed ``Any``: a value of an unexpected
type from the agent is logged as it came, never a validation error that would void its cell.
Numbers that were written as given (an int stays an int) are ``int | float``.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from harness.core.errors import InputError

Num = int | float  # a number written as given: an int stays an int on the line
_STAMP = ("seq", "t", "type")


class EventType(StrEnum):
    """Every type of event a cell's log holds (the closed set)."""
    CELL_START = "cell_start"
    ATTEMPT_START = "attempt_start"
    ENGINE_CALL = "engine_call"
    TRUNCATED = "truncated"
    BUDGET_BOUND = "budget_bound"
    MAX_TURNS = "max_turns"
    CEILING = "ceiling"
    PARSE_FAILURE = "parse_failure"
    AUTHORIZATION_REFUSED = "authorization_refused"
    TOOL_ERROR = "tool_error"
    TOOL = "tool"
    WRITE = "write"
    DELETE = "delete"
    COMMAND = "command"
    INSTALL = "install"
    HUMAN_GATE = "human_gate"
    TEST_RUN = "test_run"
    AGENT_TEST = "agent_test"
    FINISH = "finish"
    GATE_VISIBLE = "gate_visible"
    REVIEW = "review"
    REVIEW_UNPARSEABLE = "review_unparseable"
    GATE_ADMIT = "gate_admit"
    GATE_REFUSE = "gate_refuse"
    ADVISORY_REVERT = "advisory_revert"
    RECEIPT = "receipt"
    INJECTED = "injected"
    INJECTION_REFUSED = "injection_refused"
    HOST_KILLED = "host_killed"
    RESUMED = "resumed"
    ARM_DONE = "arm_done"
    HARNESS_ERROR = "harness_error"
    VOID = "void"
    HARNESS_TEMPS = "harness_temps"
    ACTS = "acts"
    WATCH_INCOMPLETE = "watch_incomplete"
    FS = "fs"
    TOOL_CALL = "tool_call"
    DIFF_NOT_WRITTEN = "diff_not_written"
    JUDGE_DISAGREEMENT = "judge_disagreement"
    SECRET_RUN = "secret_run"
    EVIDENCE_NOT_KEPT = "evidence_not_kept"
    ADJUDICATED = "adjudicated"


class BaseEvent(BaseModel):
    """What every event has: its type, and (set by the log, never by an emitter) its position in
    the log and the wall time it was logged at."""
    model_config = ConfigDict(frozen=True, extra="forbid")

    type: EventType
    seq: int | None = None
    t: Num | None = None

    def to_json(self) -> dict[str, Any]:
        """The event as its log line's object: the fields that were set, as they were set (no
        default is written; nothing is converted: the line is what the emitter passed)."""
        out: dict[str, Any] = {k: getattr(self, k) for k in ("seq", "t") if k in self.model_fields_set}
        out["type"] = self.type.value  # then the fields in their declared order (the order emitters pass them)
        out.update((k, getattr(self, k)) for k in type(self).model_fields if k not in _STAMP and k in self.model_fields_set)
        return out


# -- the controller: attempts, engine calls, budgets ---------------------------------------------

class CellStartEvent(BaseEvent):
    type: Literal[EventType.CELL_START] = EventType.CELL_START
    cell_key: str
    engine: str | None = None
    confinement: str | None = None
    memory_limit: str | None = None  # harness.sandbox.cgroup: cgroup-v2, cgroup-v1 or address-space (RLIMIT_AS alone)


class AttemptStartEvent(BaseEvent):
    type: Literal[EventType.ATTEMPT_START] = EventType.ATTEMPT_START
    attempt: int


class EngineCallEvent(BaseEvent):
    type: Literal[EventType.ENGINE_CALL] = EventType.ENGINE_CALL
    role: str
    model_id: Any = None
    stop_reason: Any = None
    max_tokens: int | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    tool_calls: list[Any] = []
    text: str = ""


class TruncatedEvent(BaseEvent):
    type: Literal[EventType.TRUNCATED] = EventType.TRUNCATED
    max_tokens: int | None = None


class BudgetBoundEvent(BaseEvent):
    type: Literal[EventType.BUDGET_BOUND] = EventType.BUDGET_BOUND
    bound: str
    spent_tokens: Num | None = None


class MaxTurnsEvent(BaseEvent):
    type: Literal[EventType.MAX_TURNS] = EventType.MAX_TURNS
    turns: int


class CeilingEvent(BaseEvent):
    """The run's spend ceiling refused a call (``spent`` false) or clamped it to what was left."""
    type: Literal[EventType.CEILING] = EventType.CEILING
    role: str
    spent: bool
    est_input_tokens: int | None = None
    clamped_from: int | None = None
    max_tokens: int | None = None


# -- the agent's tool calls (arguments the agent sent are ``Any``) --------------------------------

class ParseFailureEvent(BaseEvent):
    type: Literal[EventType.PARSE_FAILURE] = EventType.PARSE_FAILURE
    tool: Any = None
    arguments: str = ""


class AuthorizationRefusedEvent(BaseEvent):
    type: Literal[EventType.AUTHORIZATION_REFUSED] = EventType.AUTHORIZATION_REFUSED
    tool: Any = None
    path: Any = None
    command: Any = None
    escape: bool = False
    reason: str = ""


class ToolErrorEvent(BaseEvent):
    type: Literal[EventType.TOOL_ERROR] = EventType.TOOL_ERROR
    tool: Any = None
    path: Any = None
    error: str = ""


class ToolEvent(BaseEvent):
    """A tool call with nothing else to log: list_files (n, over_limits), read_file and
    delete_file (path, ok), run_acceptance refused (ok, reason)."""
    type: Literal[EventType.TOOL] = EventType.TOOL
    tool: str
    n: int | None = None
    over_limits: list[str] = []
    path: Any = None
    ok: bool | None = None
    reason: str | None = None


class WriteEvent(BaseEvent):
    type: Literal[EventType.WRITE] = EventType.WRITE
    path: Any = None
    bytes: int = 0
    created: bool = False


class DeleteEvent(BaseEvent):
    type: Literal[EventType.DELETE] = EventType.DELETE
    path: Any = None


class CommandEvent(BaseEvent):
    type: Literal[EventType.COMMAND] = EventType.COMMAND
    command: str = ""
    argv: list[Any] = []
    returncode: int | None = None
    output: str = ""
    timed_out: bool = False
    script_path: str | None = None
    script: str | None = None


class InstallEvent(BaseEvent):
    type: Literal[EventType.INSTALL] = EventType.INSTALL
    package: str = ""
    ok: bool = False
    result: str = ""


class HumanGateEvent(BaseEvent):
    type: Literal[EventType.HUMAN_GATE] = EventType.HUMAN_GATE
    question: str = ""


class TestRunEvent(BaseEvent):
    """One execution of a test (by the agent or the controller; the cell's test runs)."""
    __test__ = False  # not a pytest class
    type: Literal[EventType.TEST_RUN] = EventType.TEST_RUN
    by: str
    kind: str
    wall_s: Num = 0.0
    cached: bool = False

    def entry(self) -> dict[str, Any]:
        """The cell's test-run entry ({by, kind, wall_s, cached}: the keys that were set)."""
        return {k: getattr(self, k) for k in ("by", "kind", "wall_s", "cached") if k in self.model_fields_set}


class AgentTestEvent(BaseEvent):
    """The agent's own run of the visible test (a claim, never evidence): the run's summary."""
    type: Literal[EventType.AGENT_TEST] = EventType.AGENT_TEST
    passed: bool
    tests: int | None = None
    failures: int | None = None
    errors: int | None = None
    skipped: int | None = None
    returncode: int | None = None
    wall_s: Num | None = None
    timed_out: bool | None = None
    subverted: bool | None = None
    cached: bool | None = None


class FinishEvent(BaseEvent):
    type: Literal[EventType.FINISH] = EventType.FINISH
    claim: str = ""


# -- the gate, the reviewer, the evidence ---------------------------------------------------------

class GateVisibleEvent(BaseEvent):
    type: Literal[EventType.GATE_VISIBLE] = EventType.GATE_VISIBLE
    passed: bool
    tree_digest: str
    tests: int | None = None
    failures: int | None = None
    errors: int | None = None


class ReviewEvent(BaseEvent):
    type: Literal[EventType.REVIEW] = EventType.REVIEW
    verdict: str
    tree_digest: str
    findings: list[Any] = []
    wall_s: Num | None = None


class ReviewUnparseableEvent(BaseEvent):
    type: Literal[EventType.REVIEW_UNPARSEABLE] = EventType.REVIEW_UNPARSEABLE
    tree_digest: str
    error: str | None = None
    raw: str = ""


class GateAdmitEvent(BaseEvent):
    type: Literal[EventType.GATE_ADMIT] = EventType.GATE_ADMIT
    tree_digest: str
    receipt: str | None = None


class GateRefuseEvent(BaseEvent):
    """The A4 gate refused: stale or inadmissible evidence (code, detail, the digests the check and
    the review were bound to), or a blocking review (round)."""
    type: Literal[EventType.GATE_REFUSE] = EventType.GATE_REFUSE
    reason: str
    code: str | None = None
    detail: str | None = None
    check: str | None = None
    review: str | None = None
    round: int | None = None


class AdvisoryRevertEvent(BaseEvent):
    type: Literal[EventType.ADVISORY_REVERT] = EventType.ADVISORY_REVERT
    reason: str


class ReceiptEvent(BaseEvent):
    type: Literal[EventType.RECEIPT] = EventType.RECEIPT
    digest: str
    stage: str
    kind: str
    tree_digest: str
    decision: str


# -- the scenario's injections and the host -------------------------------------------------------

class InjectedEvent(BaseEvent):
    type: Literal[EventType.INJECTED] = EventType.INJECTED
    action: str
    turn: int | None = None
    path: str | None = None
    dropped_messages: int | None = None


class InjectionRefusedEvent(BaseEvent):
    type: Literal[EventType.INJECTION_REFUSED] = EventType.INJECTION_REFUSED
    action: str
    turn: int | None = None
    path: str | None = None
    error: str = ""


class HostKilledEvent(BaseEvent):
    type: Literal[EventType.HOST_KILLED] = EventType.HOST_KILLED
    signal: str
    turn: int | None = None


class ResumedEvent(BaseEvent):
    type: Literal[EventType.RESUMED] = EventType.RESUMED
    from_event: int
    attempts_before: int


# -- the cell runner: the end of the arm, faults, the observers, adjudication ---------------------

class ArmDoneEvent(BaseEvent):
    type: Literal[EventType.ARM_DONE] = EventType.ARM_DONE
    shipped: bool
    reason: str


class HarnessErrorEvent(BaseEvent):
    type: Literal[EventType.HARNESS_ERROR] = EventType.HARNESS_ERROR
    traceback: str
    where: str | None = None


class VoidEvent(BaseEvent):
    type: Literal[EventType.VOID] = EventType.VOID
    reason: str


class HarnessTempsEvent(BaseEvent):
    """The harness's own temporary files the watch saw (safefs.journal_temps)."""
    type: Literal[EventType.HARNESS_TEMPS] = EventType.HARNESS_TEMPS
    paths: dict[str, Any] = {}


class ActsEvent(BaseEvent):
    """The kernel's record of one traced run (harness.sandbox.syscalls): its acts as recorded."""
    type: Literal[EventType.ACTS] = EventType.ACTS
    by: Any = None
    root: Any = None
    acts: list[Any] = []
    incomplete: list[Any] = []
    flooded: bool = False


class WatchIncompleteEvent(BaseEvent):
    type: Literal[EventType.WATCH_INCOMPLETE] = EventType.WATCH_INCOMPLETE
    reasons: list[str] = []


class FsEvent(BaseEvent):
    """One workspace watch event (harness.judge.watch)."""
    type: Literal[EventType.FS] = EventType.FS
    op: str
    path: str
    is_dir: bool = False
    at_s: Num | None = None
    cookie: int | None = None
    mode: int | None = None
    sha256: str | None = None
    detail: str | None = None  # an ``inode`` event: what changed of the pinned inode (harness.judge.watch)


class ToolCallEvent(BaseEvent):
    """A run of a scenario tool found in the kernel's record (detectors.tool_invocations)."""
    type: Literal[EventType.TOOL_CALL] = EventType.TOOL_CALL
    tool: str
    script: Any = None
    args: list[Any] = []
    by: Any = None
    line: str = ""


class DiffNotWrittenEvent(BaseEvent):
    type: Literal[EventType.DIFF_NOT_WRITTEN] = EventType.DIFF_NOT_WRITTEN
    reason: str


class JudgeDisagreementEvent(BaseEvent):
    type: Literal[EventType.JUDGE_DISAGREEMENT] = EventType.JUDGE_DISAGREEMENT
    test: str
    judge_pass: bool
    plain_pass: bool
    direction: str


class SecretRunEvent(BaseEvent):
    type: Literal[EventType.SECRET_RUN] = EventType.SECRET_RUN
    ran: str = ""
    hits: list[str] = []


class EvidenceNotKeptEvent(BaseEvent):
    type: Literal[EventType.EVIDENCE_NOT_KEPT] = EventType.EVIDENCE_NOT_KEPT
    error: str


class AdjudicatedEvent(BaseEvent):
    type: Literal[EventType.ADJUDICATED] = EventType.ADJUDICATED
    outcome: str
    visible_pass: bool | None = None
    hidden_pass: bool | None = None
    unsafe: dict[str, Any] = {}
    void_reason: str | None = None
    visible: dict[str, Any] | None = None
    hidden: dict[str, Any] | None = None
    visible_plain: dict[str, Any] | None = None
    hidden_plain: dict[str, Any] | None = None


Event = Annotated[Union[
    CellStartEvent, AttemptStartEvent, EngineCallEvent, TruncatedEvent, BudgetBoundEvent, MaxTurnsEvent,
    CeilingEvent, ParseFailureEvent, AuthorizationRefusedEvent, ToolErrorEvent, ToolEvent, WriteEvent,
    DeleteEvent, CommandEvent, InstallEvent, HumanGateEvent, TestRunEvent, AgentTestEvent, FinishEvent,
    GateVisibleEvent, ReviewEvent, ReviewUnparseableEvent, GateAdmitEvent, GateRefuseEvent,
    AdvisoryRevertEvent, ReceiptEvent, InjectedEvent, InjectionRefusedEvent, HostKilledEvent, ResumedEvent,
    ArmDoneEvent, HarnessErrorEvent, VoidEvent, HarnessTempsEvent, ActsEvent, WatchIncompleteEvent, FsEvent,
    ToolCallEvent, DiffNotWrittenEvent, JudgeDisagreementEvent, SecretRunEvent, EvidenceNotKeptEvent,
    AdjudicatedEvent,
], Field(discriminator="type")]

_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)

# EventType -> its class (every member has exactly one: tests/harness/core/test_events.py)
CLASSES: dict[EventType, type[BaseEvent]] = {
    cls.model_fields["type"].default: cls for cls in BaseEvent.__subclasses__()}


def parse_event(obj: Any, where: str = "<event>", line: int | None = None) -> Event:
    """The typed event of one log line's object (``seq`` and ``t`` kept). An unknown type, an
    unknown field or a value of the wrong type is an InputError naming ``where``, ``line`` and the
    field."""
    if not isinstance(obj, dict):
        raise InputError(where, "<line>", f"an event is a JSON object, not {type(obj).__name__}", line)
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in CLASSES.keys():  # (an unhashable ``type`` is no key: one line)
        raise InputError(where, "type", f"unknown event type {kind!r}; known: {', '.join(sorted(CLASSES))}", line)
    try:
        return _ADAPTER.validate_python(obj)
    except ValidationError as exc:
        err = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")[0]
        field = ".".join(str(p) for p in err["loc"][1:]) or "<event>"  # loc[0] is the union's tag
        what = (f"not a field of a {kind} event" if err["type"] == "extra_forbidden" else err["msg"])
        raise InputError(where, field, what, line) from None
