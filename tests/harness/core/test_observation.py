"""Typed observations (harness.core.observation): the simulated engine is a policy over what the
controller reports as data, never over the prose live engines read, so rewording a message cannot
change a simulated outcome."""
from __future__ import annotations

import ast

import pytest

from harness.control import arms, attempt
from harness.core import observation
from harness.core.engine import Message
from harness.core.matrix import Cell
from harness.core.observation import Observation, Observed, kind_of, observed
from harness.core.protocol import Arm, LimitsTable
from harness.core.tasks import load_task, sha256_file
from harness.run.cellrun import CellSpec, run_cell
from support.scripted import REPO, TASKS

CONTROLLER_PROSE = ("The acceptance test failed", "A reviewer blocked", "acceptance PASSED", "no such file",
                    "context lost", "host restarted", "error")


def test_the_simulator_matches_no_controller_prose():
    """No string literal in the simulated engine is (a piece of) a message the controller writes."""
    tree = ast.parse((REPO / "harness" / "engines" / "simulated.py").read_text())
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            assert not any(node.value.startswith(p) or p in node.value for p in CONTROLLER_PROSE[:6]), \
                f"simulated.py:{node.lineno} matches controller prose {node.value!r}"


def test_observed_text_is_prose_with_a_kind():
    text = observed("The acceptance test failed: x", observation.VISIBLE_FAILED)
    assert text == "The acceptance test failed: x" and isinstance(text, str)
    assert kind_of(text) == "visible_failed" and kind_of("plain") is None
    m = Message("user", str(text), observation=text.observation)
    assert kind_of(m) == "visible_failed" and "observation" not in m.as_dict()  # transcripts keep prose only
    assert Message("user", "a", observation=Observation("file_missing")) == Message("user", "a")
    with pytest.raises(ValueError, match="known"):
        Observation("visible_faild")
    assert kind_of(Observed("x", None)) is None


def test_feedback_carries_its_kind():
    check = attempt.GateCheck(False, "d", "FAILED tests/test_x.py::test_a")
    assert kind_of(attempt.failure_feedback(check)) == observation.VISIBLE_FAILED


def _cell(tmp_path, name):  # a cell (seed 4) whose first attempt fails the visible test
    task = load_task(TASKS / "parse-range")
    spec = CellSpec(cell=Cell("A2", "parse-range", "null", 1), arm=Arm("A2", "A2", {"retries": 3}), tasks_dir=TASKS,
                    run_dir=tmp_path / name, engine="simulated", reviewer_engine="simulated", model=None, seed=4,
                    expected={"acceptance": sha256_file(task.acceptance), "oracle": sha256_file(task.oracle)},
                    limits=LimitsTable(test_timeout_s=60))
    return run_cell(spec).to_json()


def test_rewording_the_feedback_changes_no_simulated_outcome(tmp_path, monkeypatch):
    fields = ("outcome", "attempts", "stop_reason", "visible_pass", "hidden_pass", "tree_digest_final")
    before = _cell(tmp_path, "a")
    assert before["attempts"] > 1  # the cell does see a visible failure and gets the feedback
    monkeypatch.setattr(arms, "failure_feedback", lambda check: observed(
        "Your change does not pass yet; here is what the checker printed:\n" + check.output[-3000:],
        observation.VISIBLE_FAILED))
    after = _cell(tmp_path, "b")
    assert {k: before[k] for k in fields} == {k: after[k] for k in fields}
