"""Shared fixtures: the repo's pilot task and a one-cell context builder."""
from __future__ import annotations

import pytest

from harness.attempt import CellContext
from harness.budget import Budget
from harness.sandbox import Limits
from harness.tasks import load_task
from harness.workspace import EventLog, Workspace
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
