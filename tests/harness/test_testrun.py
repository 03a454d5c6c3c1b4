"""The harness's test runner: verdicts from JUnit plus a canary; the canary is invisible to agents."""
from __future__ import annotations

from harness.testrun import hide_canary, run_pytest
from harness.workspace import Workspace
from support.scripted import TASKS, candidate
import pytest

pytestmark = pytest.mark.usefixtures("executor")  # every test through the cold and the warm executor

NAME = "test_zz_harness_canary_0123456789abcdef"
RAW = f"""..F.F                                                                    [100%]
=================================== FAILURES ===================================
___________________________________ test_b ____________________________________

    def test_b():
>       assert 1 == 2
E       assert 1 == 2

tests/test_x.py:5: AssertionError
___________________ {NAME} ____________________

    def {NAME}():
>       raise AssertionError('canary')
E       AssertionError: canary

tests/test_x.py:9: AssertionError
=========================== short test summary info ============================
FAILED tests/test_x.py::test_b - assert 1 == 2
FAILED tests/test_x.py::{NAME} - AssertionError: canary
2 failed, 3 passed in 0.05s"""


def test_hide_canary_removes_every_trace_and_fixes_the_count():
    out = hide_canary(RAW, NAME)
    assert NAME not in out and "canary" not in out
    assert out.splitlines()[0].startswith("..F.") and "1 failed, 3 passed in 0.05s" in out
    assert "test_b" in out and "assert 1 == 2" in out


def test_hide_canary_when_only_the_canary_failed():
    raw = (f"...F [100%]\n{'=' * 5} FAILURES {'=' * 5}\n___ {NAME} ___\n\nE  AssertionError: canary\n"
           f"===== short test summary info =====\nFAILED t.py::{NAME} - AssertionError: canary\n1 failed, 3 passed in 0.1s")
    out = hide_canary(raw, NAME)
    assert out.startswith("... [100%]") and out.endswith("3 passed in 0.1s") and "FAILURES" not in out


def test_harness_run_passes_and_its_output_shows_no_canary(task):
    ws = Workspace.create(task, overlay=candidate(task, "reference"))
    try:
        v = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=(TASKS,))
        assert v.passed and not v.subverted and v.tests == 4 and v.failures == 0
        assert "canary" not in v.output and "failed" not in v.output
    finally:
        ws.destroy()
