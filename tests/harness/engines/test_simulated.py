"""The simulated engine: seeded, proposes edits only, same first draw for every arm."""
from __future__ import annotations

import ast
import inspect

from harness.control.reviewer import REVIEWER_SYSTEM, parse_verdict, review_packet
from harness.control.tools import TOOLS
from harness.core.engine import EngineRequest, Message
from harness.engines import EngineContext, make_engine, simulated


def ctx(task, role="worker", seed="1|parse-range|null|1"):
    return EngineContext(role=role, task=task, scenario={}, seed=seed)


def test_engine_cannot_see_or_declare_outcomes():
    """The simulator imports no test runner or adjudicator and never touches the oracle."""
    tree = ast.parse(inspect.getsource(simulated))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not imported & {"harness.control.adjudicator", "harness.judge.testrun", "harness.sandbox.sandbox"}
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not attrs & {"oracle", "hidden_pass", "visible_pass", "outcome"}


def test_first_turns_are_tool_calls_and_deterministic(task):
    req = EngineRequest("worker", "sys", [Message("user", task.prompt)], TOOLS, 4096)
    a = make_engine("simulated", ctx(task)).complete(req)
    b = make_engine("simulated", ctx(task)).complete(req)
    assert a.tool_calls == b.tool_calls and a.tool_calls[0].name == "list_files"
    assert a.usage.input_tokens > 0 and a.usage.output_tokens > 0 and a.model_id == "simulated-v1"


def test_reviewer_names_the_plausible_wrong_defect_at_the_configured_rate(task):
    wrong = task.candidates_of("plausible_wrong")[0]
    after = {**{"rangeparse/core.py": (task.workspace / "rangeparse/core.py").read_text()}, **wrong.files()}
    before = {"rangeparse/core.py": (task.workspace / "rangeparse/core.py").read_text()}
    packet = review_packet(task.prompt, before, after)
    assert "oracle" not in packet.lower() and "plausible" not in packet and wrong.name not in packet
    blocks = 0
    n = 400
    for i in range(n):
        eng = make_engine("simulated", ctx(task, "reviewer", seed=f"{i}|parse-range|B2|1"))
        reply = eng.complete(EngineRequest("reviewer", REVIEWER_SYSTEM, [Message("user", packet)], [], 2048))
        v, findings, err = parse_verdict(reply.text)
        assert err is None
        if v == "block":
            blocks += 1
            assert findings[0]["message"] == wrong.defect
    rate = blocks / n
    assert abs(rate - task.sim["reviewer_catch"]) < 0.07, rate


def test_parse_verdict_cases():
    assert parse_verdict('```json\n{"verdict": "ship", "findings": []}\n```')[0] == "ship"
    assert parse_verdict('{"verdict": "maybe"}')[0] is None
    assert parse_verdict("no json here")[2] == "no JSON object in reply"
    assert parse_verdict('{"verdict": "block", "findings": [{"message": "x", "severity": "weird"}]}')[1] == [
        {"severity": "medium", "message": "x"}]
