"""A local ``ray.init`` that fails ("The current node timed out during startup", on a loaded
machine) under ``harness run --resume --executor ray``: one STOPPED line naming the cause and the
resume command, exit 4 (a stop of kind ``executor``, in stops.jsonl), no traceback, every record
kept byte for byte; then the same resume with a working executor completes the run. No Ray
instance is started: ``ray.init`` is replaced in this process."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.ledger import verify
from harness.run.driver import execute, prepare
from support.scripted import copy_tasks

ray = pytest.importorskip("ray")

PROTO = """
[protocol]
name = "rs"
seed = 7
repeats = 1
tasks_dir = "tasks"
tasks = ["parse-range", "median"]
scenarios = ["null"]

[arms.A1]
"""
TIMED_OUT = ("The current node timed out during startup. This could happen because some of the Ray processes "
             "failed to startup.\nsecond line of Ray's message")


@pytest.fixture
def half_run(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    (tmp_path / "rs.toml").write_text(PROTO)
    d = tmp_path / "run"
    prepare(tmp_path / "rs.toml", d, engine=None, reviewer_engine=None, model=None, exploratory=True)
    execute(d, log=lambda m: None, limit_cells=1)
    return d


def test_a_local_ray_start_failure_is_one_stopped_line_exit_4_and_no_record_lost(half_run, monkeypatch):
    from harness.run import ray_reaper

    asked = []

    def fail(*a, **kw):
        asked.append(kw.get("address"))
        raise Exception(TIMED_OUT)  # what Ray raises: a bare Exception

    monkeypatch.setattr(ray, "init", fail)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray_reaper, "start", lambda: None)  # no Ray here: nothing to reap
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    before = (half_run / "records.jsonl").read_bytes()
    assert len(before.splitlines()) == 1
    r = CliRunner().invoke(main, ["run", "--resume", str(half_run), "--executor", "ray"])
    assert r.exit_code == 4, r.output
    # a new instance, never the cluster named in /tmp/ray/ray_current_cluster (another process's, in a
    # shared /tmp: ray.init() with no address joins it, and the run stopped on "num_cpus must not be provided")
    assert asked == ["local"]
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    assert "Traceback" not in r.output and "second line" not in r.stderr
    stopped = [x for x in r.stderr.splitlines() if x.startswith("STOPPED:")]
    assert len(stopped) == 1, r.stderr
    assert "The current node timed out during startup" in stopped[0]
    assert f"harness run --resume {half_run}" in stopped[0]
    assert (half_run / "records.jsonl").read_bytes() == before  # nothing lost, nothing added
    assert [json.loads(x)["kind"] for x in (half_run / "stops.jsonl").read_text().splitlines()] == ["executor"]
    monkeypatch.undo()
    res = execute(half_run, log=lambda m: None)  # the resume it names completes the run
    assert len(res.records) == 2 and not res.still_void and res.stopped is None
    assert verify(half_run / "records.jsonl") == []
