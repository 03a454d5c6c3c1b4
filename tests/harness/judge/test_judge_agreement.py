"""The judge's agreement study (docs/explanation/judge-design.md, docs/judge.md): for every task, the starting tree and every
candidate, against the visible acceptance test and the hidden oracle, the judged verdict (driver +
subject + judge, harness.judge.testrun) equals plain pytest's on the same tree in the same sandbox.

One parametrized case per task and tree, id ``TASK/TREE`` (the whole file takes minutes on a loaded
machine: 105 trees x 2 tests x 2 runs; `make test-all` keeps one task per category, its reference and
its plausible-but-wrong candidates: tests/conftest.py SWEEPS). A disagreement names the tree, the test
and both outputs.
"""
from __future__ import annotations

import pytest

from harness.control.adjudicator import ORACLE_DEST
from harness.core.tasks import load_tasks
from harness.judge.testrun import run_pytest
from harness.sandbox.workspace import Workspace
from support.scripted import TASKS

ALL = load_tasks(TASKS)


TREES = [(tid, "start") for tid in sorted(ALL)] + [(tid, c.name) for tid in sorted(ALL) for c in ALL[tid].candidates]


@pytest.mark.parametrize("task_id,tree", sorted(TREES), ids=[f"{t}/{n}" for t, n in sorted(TREES)])
def test_judged_verdict_equals_plain_pytest(task_id, tree):
    task = ALL[task_id]
    overlay = None if tree == "start" else next(c for c in task.candidates if c.name == tree).files()
    disagree = []
    ws = Workspace.create(task, overlay=overlay)
    try:
        for test, dest in ((task.acceptance, task.acceptance_dest), (task.oracle, ORACLE_DEST)):
            judged = run_pytest(ws.root, test, dest_rel=dest, hide=(TASKS,))
            plain = run_pytest(ws.root, test, dest_rel=dest, hide=(TASKS,), judged=False)
            if judged.passed != plain.passed:
                disagree.append(f"{tree} x {dest}: judged {judged.passed}, pytest {plain.passed}\n"
                                f"{judged.output[-1500:]}\n--- pytest ---\n{plain.output[-800:]}")
    finally:
        ws.destroy()
    assert not disagree, "\n\n".join(disagree)
