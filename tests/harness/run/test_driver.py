"""The run driver end to end: records, fail-closed voids, determinism, kill -9 then resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from harness.core.matrix import Cell, enumerate_cells
from harness.core.protocol import load_protocol
from harness.core.tasks import sha256_file
from harness.ledger.ledger import verify
from harness.run.cellrun import CellSpec, run_cell
from harness.run.driver import execute, prepare
from support.records import as_json
from support.scripted import REPO, copy_tasks

PROTO = """
[protocol]
name = "mini"
seed = 11
repeats = {k}
tasks_dir = "tasks"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]

[arms.A1]
[arms.A2]
[arms.A4]

[rerun]
max_reruns = 1
"""

REQUIRED = {"arm", "task", "scenario", "repeat", "outcome", "visible_pass", "hidden_pass", "shipped",
            "tokens_in", "tokens_out", "wall_s", "cell_key", "protocol_digest", "preregistered", "engine",
            "model_id", "attempts", "review_rounds", "tree_digest_final", "seq", "prev_hash", "hash"}


@pytest.fixture
def project(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    return tmp_path


def make(project, k=1):
    p = project / "mini.toml"
    p.write_text(PROTO.format(k=k))
    return p


def test_run_writes_one_valid_record_per_cell_and_is_deterministic(project):
    p = make(project)
    outs = []
    for name in ("r1", "r2"):
        prepare(p, project / name, engine=None, reviewer_engine=None, model=None, exploratory=True)
        res = execute(project / name, workers=1, log=lambda m: None)
        assert res.exit_code == 0 and not res.still_void
        outs.append(as_json(res.records))
    recs = outs[0]
    assert len(recs) == len(enumerate_cells(load_protocol(p))) == 12
    assert len({r["cell_key"] for r in recs}) == 12
    for r in recs:
        assert REQUIRED <= set(r), REQUIRED - set(r)
        assert r["preregistered"] is False and r["model_id"] == "simulated-v1"
    volatile = ("wall_s", "test_exec_s", "hash", "prev_hash", "run_id", "cached_verdicts", "verdict_cache",
                "receipts", "receipt_key_id", "seal")  # a receipt (and a record's seal) carries the run's own key
    strip = lambda r: {k: v for k, v in r.items() if k not in volatile}  # noqa: E731
    assert sorted(map(json.dumps, map(strip, outs[0]))) == sorted(map(json.dumps, map(strip, outs[1])))
    assert verify(project / "r1" / "records.jsonl") == []
    assert (project / "r1" / "table.md").read_text().startswith("| arm |")


def _spec(project, cell, expected):
    proto = load_protocol(make(project))
    return CellSpec(cell=cell, arm=proto.arm(cell.arm), tasks_dir=proto.tasks_dir, run_dir=project / "run",
                    engine="simulated", reviewer_engine="simulated", model=None, seed=1, expected=expected,
                    limits=proto.limits)


def test_altered_oracle_voids_the_cell_never_scores_it(project):
    task_dir = project / "tasks" / "parse-range"
    expected = {"acceptance": sha256_file(task_dir / "acceptance/test_acceptance.py"),
                "oracle": sha256_file(task_dir / "oracle/test_oracle.py")}
    (task_dir / "oracle/test_oracle.py").write_text("def test_nothing():\n    pass\n")  # a 'dirty' oracle
    rec = run_cell(_spec(project, Cell("A2", "parse-range", "null", 1), expected))
    assert rec.outcome == "void" and "oracle digest mismatch" in rec.void_reason
    assert rec.hidden_pass is None


def test_missing_oracle_voids_the_cell(project):
    task_dir = project / "tasks" / "parse-range"
    expected = {"acceptance": sha256_file(task_dir / "acceptance/test_acceptance.py"),
                "oracle": sha256_file(task_dir / "oracle/test_oracle.py")}
    (task_dir / "oracle/test_oracle.py").unlink()
    rec = run_cell(_spec(project, Cell("A4", "parse-range", "B2", 1), expected))
    assert rec.outcome == "void" and rec.void_reason.startswith("ground truth") and "oracle" in rec.void_reason


def test_voids_are_rerun_then_accounted_and_exit_nonzero(project, monkeypatch):
    from harness.engines import simulated

    def faulty(self, req):
        from harness.core.engine import EngineFault
        raise EngineFault("HTTP 529 overloaded (after 3 retries)")

    monkeypatch.setattr(simulated.SimulatedEngine, "complete", faulty)
    p = make(project)
    prepare(p, project / "rv", engine=None, reviewer_engine=None, model=None, exploratory=True)
    res = execute(project / "rv", workers=1, log=lambda m: None)
    assert res.exit_code != 0 and len(res.still_void) == 12
    voids = (project / "rv" / "voids.jsonl").read_text().splitlines()
    assert len(voids) == 24  # each cell: first run + one rerun (max_reruns = 1)
    assert all(r["outcome"] == "void" and "529" in r["void_reason"] for r in as_json(res.records))
    assert len(as_json(res.records)) == 12  # accounted for, once each, never scored


def test_cli_exit_code_and_incomplete_denominators(project, monkeypatch):
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.core.engine import EngineFault
    from harness.engines import simulated

    def faulty(self, req):
        if "median" in self.ctx.task.id:
            raise EngineFault("connection reset")
        return orig(self, req)

    orig = simulated.SimulatedEngine.complete
    monkeypatch.setattr(simulated.SimulatedEngine, "complete", faulty)
    r = CliRunner().invoke(main, ["run", str(make(project)), "--out", str(project / "cli"), "--exploratory"])
    assert r.exit_code == 3
    assert "INCOMPLETE: 6 cell(s) still void" in r.output and "A1: 2/4 scored" in r.output


def test_kill_minus_9_mid_run_then_resume_leaves_one_record_per_key(project):
    p = make(project, k=2)  # 24 cells
    run_dir = project / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "harness.cli.cli", "run", str(p), "--out", str(run_dir), "--exploratory"]
    records = run_dir / "records.jsonl"
    for kill_after in (2, 9):
        if kill_after == 2:
            proc = subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            proc = subprocess.Popen([sys.executable, "-m", "harness.cli.cli", "run", "--resume", str(run_dir)], env=env,
                                    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 120
        while time.time() < deadline:
            n = len(records.read_text().splitlines()) if records.exists() else 0
            if n >= kill_after or proc.poll() is not None:
                break
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # simulate a kill mid-write too: a torn last line
    with records.open("a") as f:
        f.write('{"cell_key": "A1|median|null|1", "outco')
    r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", "--resume", str(run_dir)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "repaired a torn last line" in r.stderr
    recs = [json.loads(line) for line in records.read_text().splitlines()]
    keys = [x["cell_key"] for x in recs]
    assert len(keys) == len(set(keys)) == 24
    assert set(keys) == {c.key for c in enumerate_cells(load_protocol(p))}
    assert verify(records) == []


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
