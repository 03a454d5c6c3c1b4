"""Issue 25's kill campaign with the Ray executor (slow tier; the "ray" xdist group, one cluster at a
time): ``harness run --executor ray`` starts its own local Ray instance, and is killed with SIGKILL
at moments anchored to what the run has done (``run.json`` written, the raylet started, a cell
dispatched to a Ray worker, records appended) and at a seeded random moment; separately a Ray
worker and the raylet are killed under a running harness. Whatever the kill leaves,
``harness run --resume --executor ray`` completes it: ``ledger verify`` intact, one record per cell
key, and no process of the run (the raylet's agents and workers included) left to hold anything.

Formerly ``tests/harness/test_kill_campaign_ray_issue25.py``, named after its origin."""
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
from support.protocols import minimal_protocol
from support.scripted import REPO, copy_tasks

pytest.importorskip("ray")

PROTO = minimal_protocol("rk", 25, tasks=("parse-range", "median"), scenarios=("null", "B2"),
                         arms=("A1", "A2"))
CELLS = 8
_RNG = random.Random(2525)
# every kill point runs in `make test-campaign`; test-all runs those tests/conftest.py's SWEEPS keeps
HARNESS_KILLS = [("run.json", 0.0), ("raylet", 0.0), ("worker", 0.0), ("records", 3),
                 ("run.json", round(_RNG.uniform(2.0, 30.0), 2))]
RAY_PROCESS_KILLS = [("ray::remote_cell", round(_RNG.uniform(0.0, 3.0), 2)), ("raylet", round(_RNG.uniform(0.0, 3.0), 2))]
GONE_WITHIN_S = 30  # the reaper gives up after 10 s; Ray's own agents would linger 60 s


def _members(sid: int) -> dict[int, str]:
    """Live processes of session ``sid``, with their whole command line (a prefix would miss the raylet's
    name under a long install path: CI's venv path pushed ``raylet/raylet`` past 80 characters)."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
            out[int(d.name)] = cmd
    return out


def _is(needle: str, cmd: str) -> bool:
    """Whether the process whose command line is ``cmd`` is the one ``needle`` names: its program
    (the first word: the raylet's binary path, or a Ray worker's title ``ray::remote_cell``) ends
    with it. Anywhere in the line would also match a process that only mentions it in an argument
    (a driver's ``python -c`` source, a path under a directory named after the test), which the
    test would kill instead of the raylet."""
    program = cmd.split(" ", 1)[0]
    return program.endswith(needle) or program == needle


def _first(sid: int, needle: str) -> int | None:
    return next((pid for pid, cmd in _members(sid).items() if _is(needle, cmd)), None)


def test_a_process_matches_by_its_program_not_by_a_mention():
    """Red team (r27): with the whole line searched, a process of the session that mentions the
    needle in an argument matched first (the lowest pid: the harness itself)."""
    long_venv = "/builds/" + "x" * 80 + "/.venv/lib/python3.11/site-packages/ray/core/src/ray"
    assert _is("raylet/raylet", f"{long_venv}/raylet/raylet --raylet_socket_name=/tmp/ray/s/sockets/raylet ")
    assert _is("ray::remote_cell", "ray::remote_cell" + " " * 60)
    assert not _is("raylet/raylet", "/usr/bin/python -c import ray  # kill raylet/raylet ")
    assert not _is("raylet/raylet", "/usr/bin/python -m harness.cli run /tmp/raylet/raylet/rk.toml ")
    assert not _is("ray::remote_cell", "/usr/bin/python -m harness.cli run --out /tmp/ray::remote_cell/v ")
    assert not _is("raylet/raylet", "ray::DashboardAgent --raylet-name=/tmp/ray/s/sockets/raylet ")


def _records(d: Path) -> list[dict]:
    f = d / "records.jsonl"
    return [json.loads(x) for x in f.read_text().splitlines()] if f.is_file() else []


def _reached(d: Path, sid: int, what: str, n) -> bool:
    if what == "records":
        return len(_records(d)) >= n
    if what == "raylet":
        return _first(sid, "raylet/raylet") is not None
    if what == "worker":
        return _first(sid, "ray::remote_cell") is not None
    return (d / what).exists()


@pytest.fixture
def project(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    p = tmp_path / "rk.toml"
    p.write_text(PROTO)
    return tmp_path


def _start(project: Path, d: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "harness.cli", "run", str(project / "rk.toml"), "--out", str(d),
                             "--exploratory", "--executor", "ray", "--workers", "2"], env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen, d: Path, what: str, n) -> None:
    deadline = time.time() + 600
    while proc.poll() is None and time.time() < deadline and not _reached(d, proc.pid, what, n):
        time.sleep(0.01)
    assert proc.poll() is None, f"the run ended before {what} {n}: {proc.stderr.read()[-2000:]}"


def _gone(sid: int) -> dict[int, str]:
    """Wait for session ``sid`` to empty; what is still alive after GONE_WITHIN_S."""
    deadline = time.time() + GONE_WITHIN_S
    while _members(sid) and time.time() < deadline:
        time.sleep(0.2)
    return _members(sid)


def _cleanup(proc: subprocess.Popen) -> None:
    if proc.poll() is None or _members(proc.pid):
        os.killpg(proc.pid, signal.SIGKILL)  # the test's own session, by its id
    for pid in _members(proc.pid):  # Ray workers set their own process groups
        os.kill(pid, signal.SIGKILL)


def _resume_completes(project: Path, d: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.Popen([sys.executable, "-m", "harness.cli", "run", "--resume", str(d), "--executor", "ray",
                          "--workers", "2"], env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        _, err = r.communicate(timeout=900)
        assert r.returncode == 0, err[-3000:]
        assert "Traceback" not in err
        assert _gone(r.pid) == {}, "a process of the resumed run outlived it"
    finally:
        _cleanup(r)
    recs = _records(d)
    keys = [x["cell_key"] for x in recs]
    assert len(keys) == len(set(keys)) == CELLS  # one record per key
    assert set(keys) == {c.key for c in enumerate_cells(load_protocol(project / "rk.toml"))}
    assert verify(d / "records.jsonl") == []
    assert all(x["outcome"] != "void" for x in recs)


@pytest.mark.parametrize("stage", HARNESS_KILLS, ids=lambda s: f"{s[0]}-{s[1]}")
def test_kill_9_of_a_ray_run_leaves_nothing_running_and_resume_completes(project, stage):
    what, arg = stage
    d = project / "k"
    proc = _start(project, d)
    try:
        _wait_for(proc, d, what, arg)
        if what != "records" and arg:
            time.sleep(arg)  # a seeded moment after the anchor
        os.kill(proc.pid, signal.SIGKILL)  # the harness only: its Ray instance must go with it
        proc.communicate()
        survivors = _gone(proc.pid)
    finally:
        _cleanup(proc)
    assert survivors == {}, f"processes of the killed run outlived it: {survivors}"
    _resume_completes(project, d)


@pytest.mark.parametrize("victim", RAY_PROCESS_KILLS, ids=lambda s: f"{s[0].split(':')[-1]}-{s[1]}")
def test_a_killed_ray_process_under_a_live_harness_ends_in_a_run_resume_completes(project, victim):
    """A Ray worker killed mid-cell: its cell is re-queued and the run completes by itself. The
    raylet killed: the run's Ray instance is gone for good, so the run stops (exit 4, one STOPPED
    line with the resume command, cells in flight unrun), where it used to burn every remaining
    cell's re-queues in seconds and record it void; ``--resume`` completes the run. Nothing of the
    first run outlives it, nothing holds run.lock."""
    needle, delay = victim
    d = project / "v"
    proc = _start(project, d)
    try:
        _wait_for(proc, d, "worker", 0)
        time.sleep(delay)
        pid = _first(proc.pid, "raylet/raylet" if needle == "raylet" else needle)
        assert pid is not None, f"no {needle} to kill"
        os.kill(pid, signal.SIGKILL)  # a process of this test's run, by its id
        _, err = proc.communicate(timeout=900)
        survivors = _gone(proc.pid)
    finally:
        _cleanup(proc)
    assert "Traceback" not in err, err[-3000:]
    assert survivors == {}, f"processes of the run outlived it: {survivors}"
    assert all(x["outcome"] != "void" for x in _records(d)), "a lost process left void records"
    if needle == "raylet":
        assert proc.returncode == 4, err[-3000:]
        stopped = [x for x in err.splitlines() if x.startswith("STOPPED:")]
        assert len(stopped) == 1 and f"harness run --resume {d}" in stopped[0], err[-3000:]
        assert [json.loads(x)["kind"] for x in (d / "stops.jsonl").read_text().splitlines()] == ["executor"]
    else:
        assert proc.returncode == 0, err[-3000:]  # a lost worker is re-queued, not fatal
    _resume_completes(project, d)
