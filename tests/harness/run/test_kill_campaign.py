"""Issue 25's kill campaign (local pool; slow tier): ``kill -9`` of the harness at moments of a run's
first seconds, each anchored to what the run has written (the import of the command line alone can
take longer than a fixed delay, so wall-clock moments mostly landed before the run began), and at
seeded random moments after ``run.json`` appeared. Whatever the kill leaves, ``harness run --resume``
completes it: ``ledger verify`` intact, one record per cell key, no process of the run left.

Formerly ``tests/harness/test_kill_campaign_issue25.py``, named after its origin."""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.core.matrix import enumerate_cells
from harness.core.protocol import load_protocol
from harness.ledger.ledger import verify
from support.scripted import REPO
from tests.harness.run.test_fault_recovery import _session_members, keys_of, make

STAGES = [("run.json", 0.0), ("cells", 0.0), ("records", 1), ("records", 3)]
_RNG = random.Random(25)
RANDOM_AFTER_RUN_JSON = [("run.json", round(_RNG.uniform(0.0, 2.0), 2)) for _ in range(3)]


def _reached(d: Path, what: str, n) -> bool:
    if what == "records":
        f = d / "records.jsonl"
        return f.is_file() and len(f.read_text().splitlines()) >= n
    return (d / what).exists()


@pytest.fixture
def project(tmp_path):
    from support.scripted import copy_tasks
    copy_tasks(tmp_path, ("parse-range", "median"))
    return tmp_path


@pytest.mark.parametrize("stage", STAGES + RANDOM_AFTER_RUN_JSON, ids=lambda s: f"{s[0]}-{s[1]}")
def test_kill_9_at_a_moment_of_the_first_seconds_and_resume_completes(project, stage):
    what, arg = stage
    p = make(project)  # 12 cells
    d = project / "k"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(p), "--out", str(d), "--exploratory",
                             "--workers", "2"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 300
        while proc.poll() is None and time.time() < deadline and not _reached(d, what, arg):
            time.sleep(0.01)
        assert proc.poll() is None, f"the run ended before {what} {arg}: {proc.stderr.read()[-2000:]}"
        if what != "records" and arg:
            time.sleep(arg)  # a seeded moment after run.json appeared (only where the kill lands)
        os.kill(proc.pid, signal.SIGKILL)  # the harness only: its workers die with it (PR_SET_PDEATHSIG)
        proc.communicate()
        deadline = time.time() + 60
        while _session_members(proc.pid) and time.time() < deadline:
            time.sleep(0.1)
        survivors = _session_members(proc.pid)
    finally:
        if proc.poll() is None or _session_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert survivors == [], "a process of the run outlived the harness"
    r = subprocess.run([sys.executable, "-m", "harness.cli", "run", "--resume", str(d), "--workers", "2"], env=env,
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    keys = keys_of(d)
    assert len(keys) == len(set(keys)) == 12  # one record per key
    assert set(keys) == {c.key for c in enumerate_cells(load_protocol(p))}
    assert verify(d / "records.jsonl") == []
    assert all(json.loads(x)["outcome"] != "void" for x in (d / "records.jsonl").read_text().splitlines())
