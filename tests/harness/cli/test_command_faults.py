"""The fault campaign of issue 34: every command against the faults `harness run` already survived.

Each command (run --resume, loop run --resume, corpus measure, analyze, compare, view, monitor,
export inspect) is run as a user runs it (``python -m harness.cli``, the guarded entry point) against
a FIFO in place of a file it reads, a line nested 100,000 deep, a full disk (a real 8 MiB tmpfs,
filled), SIGINT and SIGTERM at several moments, and a second writer. Each case asserts what the
docs/reference/exit-codes.md says (``harness.core.exits.COMMAND_EXITS``): one line, the documented code,
never a hang, a traceback or ``Aborted!``; and nothing lost (the ledger still verifies, an output is
the old one or the new one, never a partial one). A sample runs in `make test-all`
(tests/conftest.py SWEEPS); every point runs in `make test-campaign`.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.core.exits import COMMAND_EXITS
from harness.core.runio import DirLock
from harness.ledger.ledger import inspect

ROOT = Path(__file__).resolve().parents[3]
TIMEOUT_S = 300  # a command that hangs (on a FIFO) never returns: the bound, not a timing check
DEEP = "[" * 100_000 + "]" * 100_000


def harness(*args: str, cwd: Path = ROOT, timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "HARNESS_WARM": "0"})


def _problem_lines(stderr: str) -> list[str]:
    """The lines that report how the command ended (not its progress log)."""
    return [ln for ln in stderr.splitlines() if ln.startswith(("error:", "STOPPED", "Error:", "interrupted"))]


def assert_one_line(p: subprocess.CompletedProcess, command: str, fault: str) -> None:
    """The documented code for ``fault`` and one line saying so; never a traceback or Aborted!."""
    ex = COMMAND_EXITS[command]
    code = {"disk": ex.disk, "signal": ex.signal}.get(fault, 2)
    assert p.returncode == code, (command, fault, p.returncode, p.stderr[-2000:])
    assert p.returncode in ex.codes
    assert "Traceback" not in p.stderr and "Aborted" not in p.stderr, p.stderr[-2000:]
    assert len(_problem_lines(p.stderr)) == 1, p.stderr[-2000:]


# -- the directories every case works on (built once, copied per case) -------------------------------
@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.run.driver import execute, prepare
    from tests.harness.loop.test_loop_graph_resume import _graph
    base = tmp_path_factory.mktemp("made")
    run = base / "run"
    prepare(ROOT / "protocols" / "quickstart.toml", run, engine=None, reviewer_engine=None, model=None,
            exploratory=False)
    execute(run, limit_cells=6, log=lambda m: None)  # 6 of 90 cells: a run to view, and one to resume
    graph = _graph(base)
    res = CliRunner().invoke(main, ["loop", "run", str(graph), "--out", str(base / "loop")])
    assert res.exit_code == 0, res.output
    return {"run": run, "graph": graph, "loop": base / "loop"}


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)
    return dest


def _command(name: str, made: dict[str, Path], work: Path) -> tuple[list[str], Path]:
    """The argv of ``name`` on a copy of its input in ``work``, and the directory it reads."""
    if name == "loop run":
        loop = _copy(made["loop"], work / "loop")
        return ["loop", "run", str(made["graph"]), "--resume", str(loop)], loop
    run = _copy(made["run"], work / "run")
    out = work / "out"
    return {"run": ["run", "--resume", str(run), "--limit-cells", "1"],
            "view": ["view", str(run), "--out", str(out)],
            "monitor": ["monitor", str(run)],
            "analyze": ["analyze", str(run / "records.jsonl"), "--out", str(out), "--no-figures"],
            "compare": ["compare", str(run), str(made["run"]), "--out", str(out), "--no-figures", "--key",
                        "arm,task,scenario,repeat,factors"],
            "export inspect": ["export", "inspect", str(run), "--out", str(out)]}[name], run


READERS = ("run", "view", "monitor", "analyze", "compare", "export inspect", "loop run")


@pytest.mark.parametrize("command", READERS)
def test_a_fifo_in_place_of_the_ledger_is_one_line_never_a_hang(tmp_path, made, command):
    argv, where = _command(command, made, tmp_path)
    ledger = where / ("ledger.jsonl" if command == "loop run" else "records.jsonl")
    kept = ledger.read_bytes()
    ledger.unlink()
    os.mkfifo(ledger)
    p = harness(*argv)
    assert_one_line(p, command, "fifo")
    assert "FIFO" in p.stderr or "not a file" in p.stderr, p.stderr
    ledger.unlink()
    ledger.write_bytes(kept)
    assert not inspect(ledger).problems  # nothing lost


@pytest.mark.parametrize("name", ["run.json", "spend.json", "requeues.jsonl", "voids.jsonl"])
def test_a_fifo_in_place_of_a_run_file_is_refused_by_resume_view_and_monitor(tmp_path, made, name):
    """A command that reads the file refuses it in one line (run.json: all three do); one that never
    reads it finishes. None waits on the FIFO."""
    for command in ("run", "view", "monitor"):
        argv, run = _command(command, made, tmp_path / command.replace(" ", "-"))
        (run / name).unlink(missing_ok=True)
        os.mkfifo(run / name)
        p = harness(*argv)
        assert p.returncode == 2 or (p.returncode == 0 and name != "run.json"), (command, p.stderr[-2000:])
        if p.returncode == 2:
            assert_one_line(p, command, "fifo")


@pytest.mark.parametrize("command,name", [("view", "requeues.jsonl"), ("view", "records.jsonl"),
                                          ("run", "voids.jsonl"), ("monitor", "records.jsonl"),
                                          ("export inspect", "transcript"), ("loop run", "ledger.jsonl")])
def test_a_line_nested_100000_deep_is_one_line_naming_the_file(tmp_path, made, command, name):
    argv, where = _command(command, made, tmp_path)
    if name == "transcript":
        target = sorted((where / "transcripts").iterdir())[0]
    else:
        target = where / name
    with target.open("a") as f:
        f.write(DEEP + "\n")
    p = harness(*argv)
    assert "RecursionError" not in p.stderr and "Traceback" not in p.stderr, p.stderr[-2000:]
    if name in ("records.jsonl", "ledger.jsonl") and command in ("monitor",):
        # an edited ledger: the monitor warns (its chain does not verify) and refuses the line
        assert "does not verify" in p.stderr
    assert p.returncode != 0 or command == "run", p.stderr[-2000:]
    assert len(_problem_lines(p.stderr)) <= 1


# -- a full disk ---------------------------------------------------------------------------------------
@pytest.fixture
def full_disk(tmp_path):
    """A real 8 MiB tmpfs (root only), returned with a function that fills what is left of it."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mnt)],
                                          capture_output=True).returncode != 0:
        pytest.skip("needs root to mount a small tmpfs")

    def fill() -> None:
        """Write until the kernel says the tmpfs is full. The copy of the command's input may already
        have left it (nearly) full, so that even creating the filler is refused (CI, stop 41): that is
        the state wanted, not an error. Then prove it: a new file of one block cannot be written."""
        try:
            with open(mnt / "filler", "wb") as f:
                while True:
                    f.write(b"\0" * (1 << 16))
                    f.flush()
        except OSError as e:
            if e.errno != errno.ENOSPC:
                raise
        with pytest.raises(OSError) as refused:
            with open(mnt / "probe-full", "wb") as f:
                f.write(b"\0" * 4096)
                f.flush()
                os.fsync(f.fileno())
        assert refused.value.errno == errno.ENOSPC
        (mnt / "probe-full").unlink(missing_ok=True)
    try:
        yield mnt, fill
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


DISK_COMMANDS = ("run", "view", "analyze", "compare", "export inspect", "loop run")


@pytest.mark.parametrize("command", DISK_COMMANDS)
def test_a_full_disk_is_one_line_with_the_tables_code_and_nothing_partial(full_disk, made, command):
    mnt, fill = full_disk
    argv, where = _command(command, made, mnt)
    ledger = where / ("ledger.jsonl" if command == "loop run" else "records.jsonl")
    before = ledger.read_bytes()
    if command == "loop run":
        (where / "summary.json").unlink()  # the resume rewrites it
    fill()
    p = harness(*argv)
    assert_one_line(p, command, "disk")
    assert "disk is full" in p.stderr or "No space left" in p.stderr, p.stderr[-2000:]
    out = mnt / "out"
    assert not out.exists() or not any(f.stat().st_size == 0 for f in out.rglob("*") if f.is_file())
    assert not [n for n in os.listdir(mnt) if ".staging-" in n or ".old-" in n]  # nothing left aside
    assert not inspect(ledger).problems and ledger.read_bytes()[:len(before)] == before  # nothing lost


# -- signals -------------------------------------------------------------------------------------------
SIGNAL_MOMENTS = (0.0, 0.5, 2.0)  # seconds after the guard is in: in the imports, in start-up, inside the command


def _guarded(pid: int) -> bool:
    """The process catches SIGTERM: the entry point's first instruction (the start-up guard) has run.
    Before it the interpreter itself is starting and the kernel's default applies to any program."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True  # already gone
    caught = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("SigCgt:")), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


@pytest.mark.parametrize("moment", SIGNAL_MOMENTS)
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", ["run", "view", "monitor", "analyze", "loop run"])
def test_a_signal_at_any_moment_is_one_stopped_line_or_a_finished_command(tmp_path, made, command, sig, moment):
    argv, where = _command(command, made, tmp_path)
    if command == "run":
        argv = argv[:-2]  # the rest of the run: still running when the signal comes
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "HARNESS_WARM": "0"})
    for _ in range(3000):  # bounded wait for the precondition (not a timing check)
        if _guarded(proc.pid) or proc.poll() is not None:
            break
        time.sleep(0.01)
    time.sleep(moment)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=TIMEOUT_S)
    p = subprocess.CompletedProcess(argv, proc.returncode, out, err)
    assert p.returncode >= 0, f"killed by the signal ({p.returncode}) instead of answering it: {err[-2000:]}"
    if p.returncode != 0:  # a command that finished before the signal came is fine
        assert_one_line(p, command, "signal")
    ledger = where / ("ledger.jsonl" if command == "loop run" else "records.jsonl")
    ins = inspect(ledger)
    assert not ins.problems, ins.problems  # nothing lost (a torn last line is a crash state --resume repairs)


# -- a second writer -----------------------------------------------------------------------------------
@pytest.mark.parametrize("command,lock", [("run", "run.lock"), ("loop run", "loop.lock")])
def test_a_second_writer_is_refused_naming_the_first(tmp_path, made, command, lock):
    argv, where = _command(command, made, tmp_path)
    ledger = where / ("ledger.jsonl" if command == "loop run" else "records.jsonl")
    before = ledger.read_bytes()
    with DirLock(where, lock, "x"):  # the first writer, still running
        p = harness(*argv)
    assert_one_line(p, command, "second writer")
    assert f"PID {os.getpid()}" in p.stderr and lock in p.stderr
    assert ledger.read_bytes() == before


def test_two_loop_resumes_at_once_leave_one_verified_ledger(tmp_path, made):
    argv, where = _command("loop run", made, tmp_path)
    rows = (made["loop"] / "ledger.jsonl").read_bytes().splitlines()[:5]  # as a kill after row 5 leaves it
    (where / "ledger.jsonl").write_bytes(b"".join(ln + b"\n" for ln in rows))
    last = json.loads(rows[-1])
    (where / "ledger.head").write_text(f"{last['seq']} {last['hash']}\n")
    procs = [subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=TIMEOUT_S), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _ in results)
    assert codes in ([0, 0], [0, 2]), results  # one after the other, or the second refused
    refused = [err for code, err in results if code == 2]
    assert all("loop.lock" in err and "PID" in err for err in refused)
    ins = inspect(where / "ledger.jsonl")
    assert not ins.problems and not ins.notes
