"""Faults end in a clear, accounted state (issue 11): a host kill loses nothing that happened before
it (B5), and a full disk inside a cell voids that cell instead of crashing its worker."""
from __future__ import annotations

import errno
import json

import pytest

from harness.core.matrix import Cell
from harness.core.protocol import Arm, LimitsTable
from harness.core.tasks import load_task, sha256_file
from harness.run.cellrun import CellSpec, run_cell
from harness.sandbox import workspace
from support.scripted import TASKS


def _spec(tmp_path, scenario, arm="A4", task="median"):
    t = load_task(TASKS / task)
    params = {"A4": {"attempts": 3, "review_rounds": 2, "reflection": True}, "A2": {"retries": 3}}[arm]
    return CellSpec(cell=Cell(arm, task, scenario, 1), arm=Arm(arm, arm, params), tasks_dir=TASKS,
                    run_dir=tmp_path / "run", engine="simulated", reviewer_engine="simulated", model=None, seed=5,
                    expected={"acceptance": sha256_file(t.acceptance), "oracle": sha256_file(t.oracle)},
                    limits=LimitsTable(test_timeout_s=60, max_turns=12))


@pytest.fixture(scope="module")
def b5_cell(tmp_path_factory):
    """One A4 cell of B5 (the host SIGKILLed at its third turn), its record and its run directory."""
    tmp = tmp_path_factory.mktemp("b5")
    return run_cell(_spec(tmp, "B5")), tmp / "run"


def test_a_host_kill_keeps_every_call_usage_test_run_and_model_from_before_it(b5_cell):
    rec, run_dir = b5_cell
    assert rec.host_kills == 1 and rec.outcome != "void"
    calls = [json.loads(x) for x in (run_dir / rec.transcript).read_text().splitlines()
             if '"kind": "call"' in x]
    assert rec.engine_calls == len(calls)  # the killed host's calls included
    by_model = rec.usage_by_model
    assert sum(u["input_tokens"] for u in by_model.values()) == rec.tokens_in
    assert sum(u["output_tokens"] for u in by_model.values()) == rec.tokens_out
    events = [json.loads(x) for x in next((run_dir / "cells").glob("*.events.jsonl")).read_text().splitlines()]
    before = [e for e in events if e["type"] == "test_run"]
    killed_at = next(i for i, e in enumerate(events) if e["type"] == "host_killed")
    assert sum(1 for e in events[:killed_at] if e["type"] == "engine_call") >= 3  # the host's calls, kept
    assert rec.test_runs == len(before) + 4  # every controller/agent run, plus the adjudicator's four
    assert rec.model_id and set(rec.model_id.split(",")) == set(by_model)


def test_the_harness_temporaries_of_a_killed_host_are_in_the_cells_journal(b5_cell):
    _, run_dir = b5_cell
    events = [json.loads(x) for x in next((run_dir / "cells").glob("*.events.jsonl")).read_text().splitlines()]
    journal = {p for e in events if e["type"] == "harness_temps" for p in e["paths"]}
    seen = {e["path"] for e in events if e["type"] == "fs" and e["path"].rsplit("/", 1)[-1].startswith(".hx-write-")}
    assert seen, "the watch saw no harness temporary in the workspace"
    assert seen <= journal, f"not journalled: {sorted(seen - journal)}"


def test_a_full_disk_inside_a_cell_voids_it_and_never_crashes(tmp_path, monkeypatch):
    real_open = workspace.Path.open
    state = {"n": 0}

    def full(self, *a, **k):
        if self.name.endswith(".events.jsonl") and a and a[0] == "a":
            state["n"] += 1
            if state["n"] > 5:
                raise OSError(errno.ENOSPC, "No space left on device")
        return real_open(self, *a, **k)
    monkeypatch.setattr(workspace.Path, "open", full)
    rec = run_cell(_spec(tmp_path, "null", arm="A2"))
    assert rec.outcome == "void" and "No space left" in rec.void_reason
