"""Issue 25: every fault ends in a state one command recovers; every bound is a bound.

Atomic state files and torn run.json repair, a process tree that dies with the harness, signals,
void reruns on --resume, and bad input that used to hang or crash.

Formerly ``tests/harness/test_faults_issue25.py``, named after its origin."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.core import statefile
from harness.core.matrix import enumerate_cells
from harness.core.protocol import load_protocol
from harness.core.record import CellRecord
from harness.ledger.ledger import verify
from support.records import of_key
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


@pytest.fixture
def project(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    return tmp_path


def make(project, k=1, text=PROTO):
    p = project / "mini.toml"
    p.write_text(text.format(k=k))
    return p


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def keys_of(run_dir: Path) -> list[str]:
    return [json.loads(line)["cell_key"] for line in (run_dir / "records.jsonl").read_text().splitlines()]


# ---- 1. atomic state files; a torn run.json --------------------------------------------------------
def test_write_atomic_leaves_the_old_file_when_the_rename_fails(tmp_path, monkeypatch):
    target = tmp_path / "run.json"
    target.write_text('{"old": 1}\n')

    def boom(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        statefile.write_atomic(target, '{"new": 2}\n')
    assert target.read_text() == '{"old": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left behind


def test_torn_run_json_without_records_is_a_fresh_start_and_resume_says_so(project):
    p = make(project)
    d = project / "run"
    r = cli("run", p, "--out", d, "--exploratory", "--limit-cells", "1")
    assert r.exit_code == 0, r.output
    (d / "records.jsonl").unlink()
    (d / "records.head").unlink()
    (d / "receipts" / "ledger.seal").unlink()  # no record yet: no seal either (a seal naming a record that is
    # gone is a deleted cell, which a fresh start refuses: tests/harness/ledger/test_seal.py)
    (d / "run.json").write_text("")  # a kill between open-truncate and write
    r = cli("run", "--resume", d)
    assert r.exit_code == 2
    assert f"harness run PROTOCOL --out {d}" in r.output and "start the run afresh" in r.output
    r = cli("run", p, "--out", d, "--exploratory")
    assert r.exit_code == 0, r.output
    assert (d / "run.json.torn").read_text() == ""  # kept aside, never deleted
    assert len(keys_of(d)) == 12 and verify(d / "records.jsonl") == []


def test_torn_run_json_with_records_is_repaired_from_the_records_and_the_protocol(project):
    p = make(project)
    d = project / "run"
    assert cli("run", p, "--out", d, "--exploratory", "--limit-cells", "3").exit_code == 0
    run_id = json.loads((d / "run.json").read_text())["run_id"]
    text = (d / "run.json").read_text()
    (d / "run.json").write_text(text[: len(text) // 2])  # torn mid-write
    r = cli("run", "--resume", d)
    assert r.exit_code == 2 and f"harness run PROTOCOL --out {d}" in r.output and "repair" in r.output
    r = cli("run", p, "--out", d, "--exploratory")
    voids = (d / "voids.jsonl").read_text() if (d / "voids.jsonl").exists() else ""
    assert r.exit_code == 0, r.output + "\nvoids.jsonl:\n" + voids
    assert "repaired run.json" in r.output
    meta = json.loads((d / "run.json").read_text())
    assert meta["run_id"] == run_id and meta["repaired"]["from_records"] == 3
    keys = keys_of(d)
    assert len(keys) == len(set(keys)) == 12 and verify(d / "records.jsonl") == []
    assert {json.loads(x)["run_id"] for x in (d / "records.jsonl").read_text().splitlines()} == {run_id}


def test_a_torn_run_json_is_not_repaired_from_another_protocols_records(project):
    p = make(project)
    d = project / "run"
    assert cli("run", p, "--out", d, "--exploratory", "--limit-cells", "2").exit_code == 0
    (d / "run.json").write_text("{")
    p.write_text(PROTO.format(k=1).replace("seed = 11", "seed = 12"))  # another protocol digest
    before = (d / "records.jsonl").read_bytes()
    r = cli("run", p, "--out", d, "--exploratory")
    assert r.exit_code == 2 and "protocol_digest" in r.output
    assert (d / "records.jsonl").read_bytes() == before and (d / "run.json").read_text() == "{"


def test_spend_and_head_files_are_written_atomically(project, monkeypatch):
    """Every rewrite of records.head and spend.json goes through write_atomic (temp, fsync, rename)."""
    seen: list[str] = []
    orig = statefile.write_atomic

    def spy(path, data, mode=0o644):
        seen.append(Path(path).name)
        return orig(path, data, mode)
    monkeypatch.setattr(statefile, "write_atomic", spy)
    text = PROTO + '\n[budget]\nmax_tokens = 10000000\n'
    p = make(project, text=text)
    assert cli("run", p, "--out", project / "run", "--exploratory", "--limit-cells", "2").exit_code == 0
    assert {"run.json", "records.head", "spend.json"} <= set(seen)


# ---- 2. a process tree that dies with its parent ------------------------------------------------------
def _session_members(sid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # field 6 (session), state not zombie
            out.append(int(d.name))
    return out


def test_kill_9_of_the_harness_takes_its_workers_and_resume_completes(project):
    p = make(project, k=2)  # 24 cells
    d = project / "killed"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli.cli", "run", str(p), "--out", str(d), "--exploratory",
                             "--workers", "2"], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    records = d / "records.jsonl"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if records.exists() and len(records.read_text().splitlines()) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be killed"
    assert len(_session_members(proc.pid)) > 1  # the pool's workers are running
    os.kill(proc.pid, signal.SIGKILL)  # the harness only: not its process group
    proc.wait()
    deadline = time.time() + 60  # generous: the kernel delivers PDEATHSIG at once
    while _session_members(proc.pid) and time.time() < deadline:
        time.sleep(0.1)
    survivors = _session_members(proc.pid)
    if survivors:  # leave no process behind, then fail
        os.killpg(proc.pid, signal.SIGKILL)
    assert survivors == [], "a worker outlived the harness"
    r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", "--resume", str(d), "--workers", "2"], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    keys = keys_of(d)
    assert len(keys) == len(set(keys)) == 24
    assert set(keys) == {c.key for c in enumerate_cells(load_protocol(p))}
    assert verify(records) == []


def test_pool_workers_do_not_hold_run_lock(project):
    """A forked worker closes the inherited run.lock descriptor: only the harness holds the flock."""
    import fcntl

    from harness.sandbox import procs
    lock = project / "run.lock"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_EX)
    procs.inherit_never(fd)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: initialise, then report whether the descriptor is still open
        os.close(r)
        procs.worker_init(os.getppid())
        try:
            os.fstat(fd)
            os.write(w, b"open")
        except OSError:
            os.write(w, b"closed")
        os._exit(0)
    os.close(w)
    got = os.read(r, 16)
    os.waitpid(pid, 0)
    procs.release(fd)
    os.close(fd)
    assert got == b"closed"


# ---- 3. signals --------------------------------------------------------------------------------------
def _start(p, d, *extra):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, "-m", "harness.cli.cli", "run", str(p), "--out", str(d), "--exploratory",
                             *extra], env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _wait_records(proc, records: Path, n: int) -> None:
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if records.exists() and len(records.read_text().splitlines()) >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"the run ended or stalled before {n} records")


def _resume_completes(p, d, n):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", "--resume", str(d)], env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    keys = keys_of(d)
    assert len(keys) == len(set(keys)) == n and verify(d / "records.jsonl") == []


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_dispatch_keeps_finished_cells_and_exits_4(project, sig):
    p = make(project, k=2)  # 24 cells
    d = project / "sig"
    proc = _start(p, d, "--workers", "2")
    _wait_records(proc, d / "records.jsonl", 2)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)  # Ctrl-C reaches the whole foreground process group
    else:
        os.kill(proc.pid, sig)  # `kill PID`
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 4, err
    assert "Traceback" not in err and "Aborted" not in err
    stopped = [line for line in err.splitlines() if line.startswith("STOPPED:")]
    assert len(stopped) == 1 and f"harness run --resume {d}" in stopped[0] and sig.name in stopped[0]
    assert [json.loads(x)["kind"] for x in (d / "stops.jsonl").read_text().splitlines()] == ["signal"]  # a RunStop
    n = len(keys_of(d))
    assert 2 <= n < 24 and verify(d / "records.jsonl") == []
    assert f"{n} records" in out  # every finished cell was kept
    _resume_completes(p, d, 24)


def test_a_second_signal_exits_at_once_without_a_traceback(project):
    p = make(project, k=2)
    d = project / "sig2"
    proc = _start(p, d, "--workers", "2")
    _wait_records(proc, d / "records.jsonl", 1)
    os.killpg(proc.pid, signal.SIGINT)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 4, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert len([line for line in err.splitlines() if line.startswith("STOPPED:")]) == 1
    _resume_completes(p, d, 24)


# ---- 4. no finished cell dropped at a credentials stop ---------------------------------------------
def test_cells_in_flight_at_a_credentials_stop_are_recorded(project, monkeypatch):
    """One cell's engine is refused (401): the run stops dispatching, and the cells that were in
    flight and finish are recorded (they were dropped, and billed again on resume)."""
    from harness.ledger.ledger import Ledger
    from harness.run.driver import _Settler
    d = project / "s"
    d.mkdir()
    s = _Settler(Ledger(d / "records.jsonl"), {}, d / "voids.jsonl", 1, {}, lambda m: None, d)
    p = make(project)
    recs = _records_for(p, project)
    assert s.take(recs[0])
    assert s.take(of_key("A1|t|null|9", "void", stop_run="credentials: the provider refused the credentials (401)"))
    assert s.stopped and "harness run --resume" in s.stopped
    assert s.take(recs[1])  # finished after the stop: recorded, not dropped
    assert [r["cell_key"] for r in s.ledger.records] == [recs[0].cell_key, recs[1].cell_key]


def _records_for(p, project):
    r = cli("run", p, "--out", project / "src", "--exploratory", "--limit-cells", "2")
    assert r.exit_code == 0, r.output
    return [replace(CellRecord.from_json(json.loads(x), source=f"records.jsonl:{i}"), ledger=None)
            for i, x in enumerate((project / "src" / "records.jsonl").read_text().splitlines(), 1)]


# ---- 5. --resume reruns void cells ---------------------------------------------------------------------
def test_resume_reruns_cells_left_void_and_a_scored_rerun_supersedes(project, monkeypatch):
    from harness.core.engine import EngineFault
    from harness.engines import simulated
    orig = simulated.SimulatedEngine.complete

    def outage(self, req):
        if "median" in self.ctx.task.id:
            raise EngineFault("HTTP 529 overloaded")
        return orig(self, req)
    monkeypatch.setattr(simulated.SimulatedEngine, "complete", outage)
    p = make(project)
    d = project / "v"
    r = cli("run", p, "--out", d, "--exploratory")
    assert r.exit_code == 3 and "INCOMPLETE: 6 cell(s) still void" in r.output
    monkeypatch.setattr(simulated.SimulatedEngine, "complete", orig)  # the provider is back
    r = cli("run", "--resume", d)
    assert r.exit_code == 0, r.output
    assert "rerunning 6 cell(s) left void by an earlier session" in r.output
    from analysis.records import load_records
    res = load_records(d / "records.jsonl")
    assert res.void_superseded == 6
    recs = [json.loads(x) for x in (d / "records.jsonl").read_text().splitlines()]
    latest = {x["cell_key"]: x["outcome"] for x in recs}
    assert len(latest) == 12 and "void" not in latest.values()
    assert verify(d / "records.jsonl") == []


# ---- 9. inputs that used to hang or crash ------------------------------------------------------------
def _harness(*args, timeout=120):
    """The CLI in a subprocess with a timeout: an input that hangs fails the test instead of hanging it."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "harness.cli.cli", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=timeout)


def _bad_input(r, *names):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    for n in names:
        assert str(n) in r.stderr, (n, r.stderr)


def test_a_fifo_scenario_table_or_task_file_is_refused_not_read(project):
    p = make(project)
    scen = project / "tasks" / "scenarios.toml"
    scen.unlink()
    os.mkfifo(scen)
    _bad_input(_harness("run", p, "--out", project / "a", "--exploratory"), scen, "FIFO")
    assert not (project / "a").exists()  # nothing written
    scen.unlink()
    import shutil
    shutil.copy(REPO / "tasks" / "scenarios.toml", scen)
    fifo = project / "tasks" / "median" / "workspace" / "pipe"
    os.mkfifo(fifo)
    _bad_input(_harness("protocol", "freeze", p), fifo, "FIFO")
    _bad_input(_harness("run", p, "--out", project / "b", "--exploratory"), fifo, "FIFO")


def test_a_fifo_transcript_is_refused(project):
    p = make(project)
    t = project / "agent.jsonl"
    os.mkfifo(t)
    _bad_input(_harness("run", p, "--out", project / "r", "--exploratory", "--engine", "replay", "--transcript", t),
               t, "FIFO")


@pytest.mark.parametrize("kind", ["dangling", "loop"])
def test_a_dangling_or_looping_link_in_a_task_is_refused_at_freeze(project, kind):
    p = make(project)
    link = project / "tasks" / "median" / "workspace" / "link"
    if kind == "dangling":
        link.symlink_to(project / "nowhere")
    else:
        link.symlink_to(link)
    _bad_input(_harness("protocol", "freeze", p), link, "symbolic link")
    assert not p.with_suffix(".lock.json").exists()


@pytest.mark.parametrize("repeats", [2 ** 70, 1_000_000])
def test_a_matrix_above_the_cap_is_refused_with_its_cell_count_before_anything_is_written(project, repeats):
    from harness.core.protocol import MAX_CELLS
    p = make(project, k=repeats)
    cells = 12 * repeats
    r = _harness("run", p, "--out", project / "big", "--exploratory")
    _bad_input(r, p, "protocol.repeats", f"{cells} cells", f"cap of {MAX_CELLS}")
    assert not (project / "big").exists()
    _bad_input(_harness("plan", p), f"{cells} cells")


def test_a_lock_nested_100000_deep_is_bad_input(project):
    p = make(project)
    p.with_suffix(".lock.json").write_text("[" * 100_000 + "]" * 100_000)
    _bad_input(_harness("run", p, "--out", project / "r"), p.with_suffix(".lock.json"), "nested deeper")


def test_an_unreadable_task_file_at_freeze_is_bad_input_naming_it(project, monkeypatch):
    """Mode 000 (simulated: the tests may run as root, who reads any mode)."""
    p = make(project)
    target = next(f for f in sorted((project / "tasks" / "median").rglob("*.py")) if f.is_file())
    orig = Path.read_bytes

    def read_bytes(self):
        if self == target:
            raise PermissionError(13, "Permission denied", str(self))
        return orig(self)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    r = cli("protocol", "freeze", p)
    assert r.exit_code == 2 and str(target) in r.output and "Permission denied" in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit)


def test_an_unknown_providers_table_is_bad_input_naming_file_and_key(project):
    p = make(project, text=PROTO + "\n[providers.foo]\nmax_retries = 1\n")
    _bad_input(_harness("plan", p), p, "providers.foo", "unknown provider")


def test_an_out_that_cannot_be_created_is_bad_input_not_a_stop(project):
    p = make(project)
    blocker = project / "a-file"
    blocker.write_text("x")
    r = _harness("run", p, "--out", blocker / "run", "--exploratory")
    _bad_input(r, "--out", "cannot create")
    assert "STOPPED" not in r.stderr


# ---- 8. loops resume after a kill -----------------------------------------------------------------------
def test_a_killed_loop_run_resumes_with_the_same_crash_repairs(tmp_path):
    """A loop run killed mid-pass (its last rows lost, the head one behind, a torn line) is continued
    by `harness loop run TARGET --resume DIR`: the ledger verifies again, finished passes are not
    rerun, the cut pass reruns from attempt 1, and the table equals an uninterrupted run's."""
    from corpus.catalogue import CATALOGUE_DIR
    from harness.ledger.ledger import inspect
    target = CATALOGUE_DIR / "conventional-commits"
    args = ["loop", "run", target, "--engine", "simulated", "--runs", "3", "--tier", "1"]
    full = cli(*args, "--out", tmp_path / "full")
    assert full.exit_code == 0, full.output
    rows = (tmp_path / "full" / "ledger.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in rows]
    cut = next(i for i in range(len(recs) - 1, 0, -1)
               if recs[i]["kind"] == "attempt" and recs[i - 1]["kind"] == "terminal") + 1  # mid-pass
    d = tmp_path / "killed"
    d.mkdir()
    (d / "ledger.jsonl").write_text("\n".join(rows[:cut]) + "\n" + rows[cut][:40])  # torn last line
    (d / "ledger.head").write_text(f"{recs[cut - 2]['seq']} {recs[cut - 2]['hash']}\n")  # one behind
    assert cli("ledger", "verify", d / "ledger.jsonl").exit_code == 1
    again = cli(*args, "--out", d)  # the same command refuses, naming the one that continues it
    assert again.exit_code == 2 and f"--resume {d}" in again.output
    r = cli(*args, "--resume", d)
    assert r.exit_code == 0, r.output
    assert "repaired the loop ledger" in r.output
    assert cli("ledger", "verify", d / "ledger.jsonl").exit_code == 0
    assert (d / "table.md").read_text() == (tmp_path / "full" / "table.md").read_text()
    new = inspect(d / "ledger.jsonl").records
    assert [x["kind"] for x in new].count("abandoned") == 1
    ends = [x for x in new if x["kind"] == "terminal"]
    assert len(ends) == len({(x["run_id"], x["node"], x["pass"]) for x in ends}) == \
        sum(1 for x in recs if x["kind"] == "terminal")  # each pass ends once


# ---- the kill campaign: a kill at any early moment leaves a directory one command recovers ----------
SMALL = PROTO.replace('tasks = ["parse-range", "median"]', 'tasks = ["median"]').replace(
    'scenarios = ["null", "B2"]', 'scenarios = ["null"]')


def _recover(p, d):
    """The one command a kill's directory needs: --resume, or (when it says so) a fresh start there."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = [sys.executable, "-m", "harness.cli.cli", "run"]
    r = subprocess.run([*run, "--resume", str(d)], env=env, capture_output=True, text=True, timeout=600)
    if r.returncode == 2:
        assert "harness run PROTOCOL --out" in r.stderr or "not a run directory" in r.stderr \
            or "not a directory" in r.stderr or "does not exist" in r.stderr, r.stderr
        r = subprocess.run([*run, str(p), "--out", str(d), "--exploratory"], env=env, capture_output=True,
                           text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("after_s", [0.0, 0.4, 0.8, 1.4, 2.2])
def test_a_kill_in_a_runs_first_seconds_leaves_a_directory_one_command_recovers(project, after_s):
    """The moment is only where the kill lands (no assertion on time): whatever it leaves, the
    recovery completes with ledger verify intact and one record per key."""
    p = make(project, text=SMALL)
    d = project / "k"
    proc = _start(p, d, "--workers", "2")
    time.sleep(after_s)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    if d.exists() and (d / "records.jsonl").exists() and len(keys_of(d)) == 3 and (d / "table.md").exists():
        return  # it finished before the kill
    _recover(p, d)
    keys = keys_of(d)
    assert len(keys) == len(set(keys)) == 3 and verify(d / "records.jsonl") == []
