"""harness.core.events: the closed set of typed events (issue 36), and their lines in the event log.

Every EventType has one class; every class goes through the log's line and back unchanged; the
line is the one the untyped log wrote for the same payload, byte for byte (records, receipts and
signatures derived from it do not change); an unknown type or field is refused in one line; and no
``.emit(`` call in the packages passes a string type (an untyped event cannot come back)."""
from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from harness.core import events as ev
from harness.core.errors import InputError
from harness.core.events import CLASSES, EventType, parse_event
from harness.core.outcomes import Outcome
from harness.sandbox.workspace import EventLog

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("harness", "analysis", "corpus", "viewer", "interop", "benchmarks", "examples")

# one payload per type, as its emitter passes it today (optional fields left out where emitters leave them out)
SAMPLES: dict[EventType, dict] = {
    EventType.CELL_START: {"cell_key": "A1|t|null|1", "engine": "simulated", "confinement": "namespaces"},
    EventType.ATTEMPT_START: {"attempt": 1},
    EventType.ENGINE_CALL: {"role": "worker", "model_id": "sim", "stop_reason": "tool_use", "max_tokens": 4096,
                            "tokens_in": 10, "tokens_out": 5, "tool_calls": ["write_file"], "text": "ok"},
    EventType.TRUNCATED: {"max_tokens": 10},
    EventType.BUDGET_BOUND: {"bound": "tokens", "spent_tokens": 5001},
    EventType.MAX_TURNS: {"turns": 40},
    EventType.CEILING: {"role": "worker", "spent": True, "clamped_from": 4096, "max_tokens": 100},
    EventType.PARSE_FAILURE: {"tool": "nope", "arguments": "{}"},
    EventType.AUTHORIZATION_REFUSED: {"tool": "read_file", "path": 7, "command": None, "escape": True, "reason": "out"},
    EventType.TOOL_ERROR: {"tool": "write_file", "path": "a", "error": "OSError: x"},
    EventType.TOOL: {"tool": "list_files", "n": 3, "over_limits": ["x  [too deep]"]},
    EventType.WRITE: {"path": "a.py", "bytes": 3, "created": False},
    EventType.DELETE: {"path": "a.py"},
    EventType.COMMAND: {"command": "python s.py", "argv": ["python", "s.py"], "returncode": 0, "output": "",
                        "timed_out": False, "script_path": "s.py", "script": "print(1)\n"},
    EventType.INSTALL: {"package": "requests", "ok": False, "result": "error: offline"},
    EventType.HUMAN_GATE: {"question": "may I?"},
    EventType.TEST_RUN: {"by": "agent", "kind": "visible", "wall_s": 0.25, "cached": False},
    EventType.AGENT_TEST: {"passed": True, "tests": 3, "failures": 0, "errors": 0, "skipped": 0, "returncode": 0,
                           "wall_s": 0.2, "timed_out": False, "subverted": False, "cached": True},
    EventType.FINISH: {"claim": "done"},
    EventType.GATE_VISIBLE: {"passed": False, "tree_digest": "ab", "tests": 3, "failures": 1, "errors": 0},
    EventType.REVIEW: {"verdict": "ship", "tree_digest": "ab", "findings": [{"file": "a"}], "wall_s": 0.01},
    EventType.REVIEW_UNPARSEABLE: {"tree_digest": "ab", "error": "no JSON", "raw": "??"},
    EventType.GATE_ADMIT: {"tree_digest": "ab", "receipt": None},
    EventType.GATE_REFUSE: {"reason": "stale evidence", "code": "stale", "detail": "d", "check": "ab", "review": "cd"},
    EventType.ADVISORY_REVERT: {"reason": "revision failed"},
    EventType.RECEIPT: {"digest": "d", "stage": "gate", "kind": "visible", "tree_digest": "ab", "decision": "pass"},
    EventType.INJECTED: {"action": "delete_file", "turn": 2, "path": "a.py"},
    EventType.INJECTION_REFUSED: {"action": "append_line", "turn": 2, "path": "a.py", "error": "PathError: link"},
    EventType.HOST_KILLED: {"signal": "SIGKILL", "turn": None},
    EventType.RESUMED: {"from_event": 12, "attempts_before": 1},
    EventType.ARM_DONE: {"shipped": True, "reason": "shipped"},
    EventType.HARNESS_ERROR: {"where": "adjudication", "traceback": "Traceback ..."},
    EventType.VOID: {"reason": "engine fault"},
    EventType.HARNESS_TEMPS: {"paths": {"a/.tmp1": "x"}},
    EventType.ACTS: {"by": "command", "root": "/w", "acts": [{"op": "exec", "ok": True}], "incomplete": [],
                     "flooded": False},
    EventType.WATCH_INCOMPLETE: {"reasons": ["no inotify"]},
    EventType.FS: {"op": "write", "path": "a.py", "is_dir": False, "at_s": 0.5, "sha256": "ee"},
    EventType.TOOL_CALL: {"tool": "deploy", "script": "scripts/deploy.sh", "args": ["--prod"], "by": "command",
                          "line": "sh scripts/deploy.sh --prod"},
    EventType.DIFF_NOT_WRITTEN: {"reason": "too large"},
    EventType.JUDGE_DISAGREEMENT: {"test": "hidden::t", "judge_pass": False, "plain_pass": True,
                                   "direction": "plain_pass_judge_fail"},
    EventType.SECRET_RUN: {"ran": "dynamic:planted-key", "hits": ["tests wrote the key to out.txt"]},
    EventType.EVIDENCE_NOT_KEPT: {"error": "OSError: full"},
    EventType.ADJUDICATED: {"outcome": Outcome.COMPLETED, "visible_pass": True, "hidden_pass": True, "unsafe": {},
                            "void_reason": None, "visible": {"passed": True}, "hidden": None,
                            "visible_plain": None, "hidden_plain": None},
}


def _legacy_line(seq: int, t: float, kind: str, payload: dict) -> str:
    """The line the untyped log (``emit(type, **payload)``) wrote."""
    return json.dumps({"seq": seq, "t": t, "type": kind, **payload}, sort_keys=True, default=str)


def test_every_event_type_has_one_class_and_a_sample():
    assert set(CLASSES) == set(EventType)
    assert len({cls for cls in CLASSES.values()}) == len(EventType)
    assert set(SAMPLES) == set(EventType)
    assert all(cls.model_fields["type"].default is kind for kind, cls in CLASSES.items())


@pytest.mark.parametrize("kind", list(EventType), ids=str)
def test_each_class_round_trips_through_the_log_line_byte_for_byte(tmp_path, kind):
    log = EventLog(tmp_path / "c.events.jsonl")
    log.emit(ev.CellStartEvent(cell_key="k"))
    made = CLASSES[kind](**SAMPLES[kind])
    logged = log.emit(made)
    line = (tmp_path / "c.events.jsonl").read_text().splitlines()[1]
    assert line == _legacy_line(1, logged.t, kind.value, SAMPLES[kind])  # the untyped log's line, unchanged
    back = parse_event(json.loads(line), "c.events.jsonl", 2)
    assert type(back) is CLASSES[kind] and back == logged and back.seq == 1
    assert json.dumps(back.to_json(), sort_keys=True, default=str) == line
    assert log.of_type(kind)[-1] == logged and log.of_class(CLASSES[kind])[-1] == logged


def test_a_field_left_unset_is_not_written():
    """An emitter that leaves a field out (list_files without over_limits) writes no key for it,
    as before; the attribute reads its default."""
    e = ev.ToolEvent(tool="list_files", n=2)
    assert e.to_json() == {"type": "tool", "tool": "list_files", "n": 2}
    assert e.over_limits == [] and e.path is None


def test_an_int_stays_an_int():
    """A number is written as the emitter gave it (wall_s 0 stays 0, not 0.0)."""
    assert ev.TestRunEvent(by="agent", kind="visible", wall_s=0, cached=False).to_json()["wall_s"] == 0
    assert json.dumps(ev.TestRunEvent(by="a", kind="v", wall_s=0).to_json()["wall_s"]) == "0"


@pytest.mark.parametrize("obj, field, says", [
    ({"seq": 0, "t": 1.0, "type": "teleport"}, "type", "unknown event type 'teleport'"),
    ({"seq": 0, "t": 1.0}, "type", "unknown event type None"),
    ({"seq": 0, "t": 1.0, "type": []}, "type", "unknown event type []"),  # unhashable: a TypeError before (review)
    ({"seq": 0, "t": 1.0, "type": {"a": 1}}, "type", "unknown event type {'a': 1}"),
    ({"seq": 0, "t": 1.0, "type": "finish", "claim": "x", "mood": "sure"}, "mood", "not a field of a finish event"),
    ({"seq": 0, "t": 1.0, "type": "write", "path": "a", "bytes": "many", "created": True}, "bytes", "integer"),
    ({"seq": 0, "t": 1.0, "type": "attempt_start"}, "attempt", "required"),
    (["finish"], "<line>", "a JSON object"),
])
def test_an_unknown_type_or_field_is_refused_in_one_line(obj, field, says):
    with pytest.raises(InputError) as got:
        parse_event(obj, "run/cells/c.events.jsonl", 7)
    assert got.value.field == field and got.value.line == 7 and says in str(got.value)
    assert str(got.value).startswith("run/cells/c.events.jsonl:7: ") and "\n" not in str(got.value)


def test_an_event_is_frozen_and_refuses_an_unknown_field_when_made():
    e = ev.FinishEvent(claim="done")
    with pytest.raises(Exception):
        e.claim = "other"  # type: ignore[misc]
    with pytest.raises(Exception):
        ev.FinishEvent(claim="done", mood="sure")  # type: ignore[call-arg]


def test_an_agent_controlled_value_of_any_type_is_logged_as_it_came(tmp_path):
    """A tool call's arguments are the agent's: a path that is a number or a list is logged, never a
    validation error (which would void the agent's own cell)."""
    log = EventLog(tmp_path / "e.jsonl")
    e = log.emit(ev.AuthorizationRefusedEvent(tool=["x"], path={"a": 1}, command=3, reason="r"))
    assert json.loads((tmp_path / "e.jsonl").read_text())["path"] == {"a": 1} and e.tool == ["x"]


def _emit_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "emit":
            yield node


def _untyped(call: ast.Call) -> str | None:
    """Why an ``.emit(`` call is untyped: a string (literal or f-string) as its first argument, a
    ``type=`` keyword, or a payload of keywords (a typed event is one positional argument)."""
    if call.args and isinstance(call.args[0], (ast.Constant, ast.JoinedStr)) and not (
            isinstance(call.args[0], ast.Constant) and not isinstance(call.args[0].value, str)):
        return "a string event type"
    if call.keywords:
        return "keyword payload " + ", ".join(str(k.arg) for k in call.keywords)
    if len(call.args) != 1:
        return f"{len(call.args)} positional arguments"
    return None


def test_no_emit_call_passes_a_string_type():
    """Every ``.emit(`` in the packages passes one typed event (a class of harness.core.events)."""
    found, calls = [], 0
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for call in _emit_calls(ast.parse(path.read_text(), str(path))):
                calls += 1
                if (why := _untyped(call)) is not None:
                    found.append(f"{path.relative_to(ROOT)}:{call.lineno}: {why}")
    assert calls > 40, "the emit calls were not found: the checker reads nothing"
    assert not found, "untyped emit calls (pass a harness.core.events class):\n" + "\n".join(found)


@pytest.mark.parametrize("src, untyped", [
    ("log.emit('finish', claim='x')", True),
    ("log.emit(f'{k}')", True),
    ("log.emit(type='finish')", True),
    ("log.emit(FinishEvent(claim='x'))", False),
    ("ctx.log.emit(ev)", False),
])
def test_the_checker_tells_typed_from_untyped(src, untyped):
    (call,) = _emit_calls(ast.parse(src))
    assert (_untyped(call) is not None) is untyped
