"""Shared fixtures: the repo's pilot task and a one-cell context builder."""
from __future__ import annotations

import os

import pytest

from harness.control.attempt import CellContext
from harness.control.budget import Budget
from harness.core.tasks import load_task
from harness.sandbox.sandbox import Limits
from harness.sandbox.workspace import EventLog, Workspace
from support.scripted import TASKS


@pytest.fixture
def task():
    return load_task(TASKS / "parse-range")


@pytest.fixture
def make_ctx(tmp_path):
    made = []

    def build(task, worker, reviewer=None, overlay=None, budget=None, max_tokens=4096):
        ws = Workspace.create(task, overlay=overlay)
        made.append(ws)
        base = Workspace.create(task)
        base_files = base.files()
        base.destroy()
        return CellContext(task=task, prompt=task.prompt, ws=ws, log=EventLog(tmp_path / f"ev{len(made)}.jsonl"),
                           engine=worker, reviewer=reviewer, limits=Limits(timeout_s=60), hide=(TASKS,),
                           start_files=ws.files(), base_files=base_files, budget=budget or Budget(),
                           max_tokens=max_tokens)

    yield build
    for ws in made:
        ws.destroy()


# Every confinement suite runs through both test executors: cold (a fresh `python -I -m pytest`
# per run) and warm (harness.sandbox.warm, forked from a pre-imported zygote). HARNESS_TEST_EXECUTORS
# (comma-separated, default "cold,warm") narrows it, e.g. for a quick local run.
EXECUTORS = [e for e in os.environ.get("HARNESS_TEST_EXECUTORS", "cold,warm").split(",") if e]


@pytest.fixture(params=EXECUTORS)
def executor(request, monkeypatch):
    """Route run_pytest through one executor; in warm mode, fail if any run silently went cold."""
    from harness.sandbox import warm
    from harness.sandbox.sandbox import confinement_level
    monkeypatch.setenv("HARNESS_WARM", "1" if request.param == "warm" else "0")
    if request.param == "warm" and confinement_level() == "basic":
        pytest.skip("warm execution needs the namespace levels (cold fallback at 'basic')")
    before = dict(warm.STATS)
    yield request.param
    if request.param == "warm":
        assert warm.STATS["fallback"] == before["fallback"], "a warm run fell back to cold"
    else:
        assert warm.STATS["warm"] == before["warm"], "a cold run went warm"
