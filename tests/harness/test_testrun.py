"""The harness's test runner: judged verdicts (probe + judge), the advisory run, and link-safe writes."""
from __future__ import annotations

import os

import pytest

from harness.control.adjudicator import ORACLE_DEST
from harness.judge.testrun import place_file, run_pytest
from harness.sandbox.workspace import Workspace
from support.scripted import TASKS, candidate

pytestmark = pytest.mark.usefixtures("executor")  # every test through the cold and the warm executor


def test_judged_run_passes_and_its_output_shows_no_canary(task):
    ws = Workspace.create(task, overlay=candidate(task, "reference"))
    try:
        v = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=(TASKS,))
        assert v.passed and not v.subverted and v.tests == 4 and v.failures == 0
        assert "canary" not in v.output and "failed" not in v.output and "4 passed" in v.output
    finally:
        ws.destroy()


def test_judged_visible_failure_names_the_test_line_and_observed_value(task):
    ws = Workspace.create(task)  # the starting workspace fails
    try:
        v = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=(TASKS,))
        assert not v.passed and not v.subverted
        assert "FAILED tests/test_acceptance.py::" in v.output and "line " in v.output
        assert "observed" in v.output or "raised" in v.output
    finally:
        ws.destroy()


def test_hidden_oracle_output_names_no_test_no_line_and_no_value(task):
    ws = Workspace.create(task, overlay=candidate(task, "plausible_wrong"))
    try:
        v = run_pytest(ws.root, task.oracle, dest_rel=ORACLE_DEST, hide=(TASKS,), show=False)
        assert not v.passed and v.failures >= 1
        assert "test_" not in v.output and "line" not in v.output and "observed" not in v.output
        oracle = task.oracle.read_text()
        assert not any(len(ln.strip()) > 12 and ln.strip() in v.output for ln in oracle.splitlines())
    finally:
        ws.destroy()


def test_advisory_run_is_plain_pytest_on_the_workspace_copy(task):
    ws = Workspace.create(task, overlay=candidate(task, "reference"))
    try:
        v = run_pytest(ws.root, ws.root / task.acceptance_dest, dest_rel=task.acceptance_dest, hide=(TASKS,),
                       judged=False)
        assert v.passed and v.tests == 4 and "4 passed" in v.output
    finally:
        ws.destroy()


def test_place_file_replaces_planted_links_and_never_writes_through_them(tmp_path):
    host = tmp_path / "host"
    host.mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "tests").symlink_to(host)  # the agent's link from tests/ to a host directory
    (host / "keep.txt").write_text("host file")
    dest = place_file(tree, "tests/test_x.py", "def test_x():\n    pass\n")
    assert dest.read_text().startswith("def test_x") and not (tree / "tests").is_symlink()
    assert sorted(os.listdir(host)) == ["keep.txt"]  # nothing written into the host directory
    (tree / "a").mkdir()
    (tree / "a" / "t.py").symlink_to(host / "keep.txt")  # a link at the destination itself
    place_file(tree, "a/t.py", "x = 1\n")
    assert (host / "keep.txt").read_text() == "host file" and not (tree / "a" / "t.py").is_symlink()
    with pytest.raises(ValueError):
        place_file(tree, "../escape.py", "x")
