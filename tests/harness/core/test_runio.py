"""The one safe reader, atomic writer and directory lock every command uses (harness.core.runio):
a FIFO, a link or a 100,000-deep line is one error naming the file (and line), never a hang or a
RecursionError; a full disk is ``NoSpace`` with nothing partial under the final name; a second
writer is refused naming the holder's PID."""
from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import textwrap
import threading

import pytest

from harness.core import runio, statefile
from harness.core.errors import ExitCode


def _no_hang(code: str, tmp_path) -> subprocess.CompletedProcess:
    """Run ``code`` in a child with a generous bound: a reader that blocked on a FIFO never returns."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("reader", ["read_bytes", "read_text", "read_json", "read_prefix"])
def test_a_fifo_is_refused_before_it_is_read(tmp_path, reader):
    os.mkfifo(tmp_path / "records.jsonl")
    args = "(p, 10)" if reader == "read_prefix" else "(p)"
    p = _no_hang(f"""
        from harness.core import runio
        p = "records.jsonl"
        try:
            runio.{reader}{args}
        except runio.UnsafeFile as exc:
            print("REFUSED", exc)
    """, tmp_path)
    assert "REFUSED" in p.stdout and "FIFO" in p.stdout and "records.jsonl" in p.stdout, p.stderr


def test_a_link_is_refused_and_never_followed(tmp_path):
    (tmp_path / "secret").write_text("{}")
    (tmp_path / "run.json").symlink_to(tmp_path / "secret")
    with pytest.raises(runio.UnsafeFile, match="symbolic link"):
        runio.read_json(tmp_path / "run.json")


def test_a_missing_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        runio.read_bytes(tmp_path / "absent")


def test_a_file_over_its_bound_is_refused(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 101)
    with pytest.raises(runio.UnsafeFile, match="over the 100-byte bound"):
        runio.read_bytes(tmp_path / "big", limit=100)
    assert runio.read_bytes(tmp_path / "big", limit=101) == b"x" * 101


def test_a_line_nested_100000_deep_names_the_file_and_line_and_never_recurses(tmp_path):
    p = tmp_path / "requeues.jsonl"
    p.write_text('{"cell_key": "a"}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(runio.UnsafeFile) as info:
        list(runio.read_jsonl(p))
    assert info.value.line == 2 and str(p) in str(info.value) and "nested deeper than" in str(info.value)
    assert [obj for _, obj in runio.read_jsonl(p, skip_bad=True)] == [{"cell_key": "a"}]


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert runio.parse_json('{"k": "' + "[" * 5000 + '"}', "f") == {"k": "[" * 5000}


def test_a_bad_line_names_file_and_line(tmp_path):
    p = tmp_path / "voids.jsonl"
    p.write_text('{"a": 1}\n{not json\n')
    with pytest.raises(runio.UnsafeFile, match=r"voids.jsonl:2: <line>: not valid JSON"):
        list(runio.read_jsonl(p))


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"], ids=["U+2028", "U+2029", "U+0085"])
def test_a_line_holding_a_unicode_line_break_is_one_line(tmp_path, char):
    """A line ends at a line feed only: the ledger writes U+2028, U+2029 and U+0085 raw inside a string
    (ensure_ascii=False), which str.splitlines would break the line at."""
    p = tmp_path / "records.jsonl"
    p.write_text('{"claim": "done' + char + 'ok"}\n{"claim": null}\n', encoding="utf-8")
    assert [obj for _, obj in runio.read_jsonl(p)] == [{"claim": f"done{char}ok"}, {"claim": None}]


def test_append_line_refuses_a_fifo_without_waiting(tmp_path):
    os.mkfifo(tmp_path / "voids.jsonl")
    p = _no_hang("""
        from harness.core import runio
        try:
            runio.append_line("voids.jsonl", "{}")
        except runio.UnsafeFile as exc:
            print("REFUSED", exc)
    """, tmp_path)
    assert "REFUSED" in p.stdout, p.stderr


def test_append_line_appends_whole_lines(tmp_path):
    runio.append_line(tmp_path / "j.jsonl", '{"a": 1}')
    runio.append_line(tmp_path / "j.jsonl", '{"a": 2}', fsync=True)
    assert (tmp_path / "j.jsonl").read_text() == '{"a": 1}\n{"a": 2}\n'


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_is_one_line_naming_what_to_free_and_the_command(tmp_path, monkeypatch):
    target = tmp_path / "summary.json"
    target.write_text("old\n")
    monkeypatch.setattr(statefile, "write_atomic", _disk_full)
    with pytest.raises(runio.NoSpace) as info:
        runio.write_atomic(target, "new\n", "harness loop run T --resume D")
    msg = str(info.value)
    assert "\n" not in msg and "the disk is full" in msg and "free space" in msg
    assert "`harness loop run T --resume D`" in msg and info.value.code == ExitCode.STOPPED
    assert target.read_text() == "old\n"


def test_a_read_only_file_system_says_so(tmp_path):
    exc = runio.NoSpace(tmp_path / "x", OSError(errno.EROFS, "Read-only file system"), "harness view R",
                        ExitCode.BAD_INPUT)
    assert "read-only" in str(exc) and "remount" in str(exc) and exc.code == ExitCode.BAD_INPUT


def test_the_atomic_writer_leaves_no_temporary_file_after_a_failure(tmp_path, monkeypatch):
    real_write = os.write

    def full_after_first(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "write", full_after_first)
    with pytest.raises(runio.NoSpace):
        runio.write_atomic(tmp_path / "table.md", "x" * 100, "harness run --resume D")
    monkeypatch.setattr(os, "write", real_write)
    assert os.listdir(tmp_path) == []


def test_a_staged_directory_is_published_whole_and_keeps_what_it_does_not_own(tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "index.html").write_text("old")
    (out / "cells.html").write_text("old, owned, not rebuilt")
    (out / "notes.txt").write_text("the user's")
    with runio.staged_dir(out, "harness view R", ExitCode.BAD_INPUT, owned=("cells.html",)) as stage:
        assert stage.parent == out.parent and stage != out
        runio.write_staged(stage / "index.html", "new")
        assert (out / "index.html").read_text() == "old"  # nothing under the final name until whole
    assert (out / "index.html").read_text() == "new" and (out / "notes.txt").read_text() == "the user's"
    assert not (out / "cells.html").exists()
    assert sorted(os.listdir(tmp_path)) == ["report"]  # no staging or trash directory left


def test_a_staged_directory_that_fails_leaves_the_old_output_and_no_stage(tmp_path):
    out = tmp_path / "analysis"
    out.mkdir()
    (out / "report.md").write_text("old")
    with pytest.raises(runio.NoSpace) as info:
        with runio.staged_dir(out, "harness analyze R --out A", ExitCode.BAD_INPUT) as stage:
            (stage / "report.md").write_text("half")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert info.value.code == ExitCode.BAD_INPUT and "harness analyze R --out A" in str(info.value)
    assert (out / "report.md").read_text() == "old" and sorted(os.listdir(tmp_path)) == ["analysis"]


def test_a_second_writer_is_refused_naming_the_holders_pid(tmp_path):
    with runio.DirLock(tmp_path, "loop.lock", "continue with `harness loop run T --resume D`"):
        with pytest.raises(runio.Locked) as info:
            runio.DirLock(tmp_path, "loop.lock", "continue with `harness loop run T --resume D`").acquire()
    assert f"PID {os.getpid()}" in str(info.value) and "loop.lock" in str(info.value)
    runio.DirLock(tmp_path, "loop.lock", "x").acquire().release()  # released with the holder


def test_a_second_writer_arriving_before_the_holder_writes_its_pid_still_names_the_lock(tmp_path):
    """The holder takes the flock, then writes its PID: a writer arriving in between reads an empty
    file. It waits for the PID briefly and otherwise says it is not yet written (CI, stop 44)."""
    fd = os.open(tmp_path / "loop.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # held, PID never written
    try:
        with pytest.raises(runio.Locked) as info:
            runio.DirLock(tmp_path, "loop.lock", "x").acquire()
        assert "PID not yet written" in str(info.value) and "loop.lock" in str(info.value)
        timer = threading.Timer(0.1, lambda: os.pwrite(fd, b"4242\n", 0))  # written while the second waits
        timer.start()
        with pytest.raises(runio.Locked, match="PID 4242"):
            runio.DirLock(tmp_path, "loop.lock", "x").acquire()
        timer.join()
    finally:
        os.close(fd)


def test_a_killed_holder_releases_the_lock(tmp_path):
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from harness.core import runio
        runio.DirLock({str(tmp_path)!r}, "run.lock", "x").acquire()
        print("held", flush=True)
        time.sleep(600)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "held"
        with pytest.raises(runio.Locked, match=f"PID {p.pid}"):
            runio.DirLock(tmp_path, "run.lock", "x").acquire()
    finally:
        p.kill()
        p.wait()
    runio.DirLock(tmp_path, "run.lock", "x").acquire().release()


def test_create_once_keeps_the_first_content_private_and_leaves_no_temporary_file(tmp_path):
    """The run's private key: concurrent workers each call it; the first file stays (mode 600), a
    later call changes nothing and says so, and no temporary file is left beside it."""
    key = tmp_path / "key.pem"
    assert runio.create_once(key, b"first", mode=0o600) is True
    assert runio.create_once(key, b"second", mode=0o600) is False
    assert key.read_bytes() == b"first" and (key.stat().st_mode & 0o777) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.pem"]


def test_open_stream_refuses_a_fifo_and_reads_a_regular_file_line_by_line(tmp_path):
    (tmp_path / "r.jsonl").write_bytes(b"a\nb\n")
    with runio.open_stream(tmp_path / "r.jsonl", "records file") as fh:
        assert list(fh) == [b"a\n", b"b\n"]
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(runio.NotRegular, match="FIFO"):
        runio.open_stream(tmp_path / "fifo", "records file")


def test_a_kill_while_a_rebuilt_output_is_published_leaves_the_old_output_or_the_new_one(tmp_path):
    """A kill at any instruction leaves the old output or the new one (docs/io-guarantees.md). The kill
    is placed exactly: the child ends itself (``os._exit``, as SIGKILL would) right after the first
    entry of the rebuilt output is renamed into place. No sleep, no race."""
    final = tmp_path / "report"
    names = ("index.html", "cells.html", "style.css")
    p = _no_hang(f"""
        import os
        from pathlib import Path
        from harness.core import runio
        from harness.core.errors import ExitCode
        final = Path({str(final)!r})
        with runio.staged_dir(final, "rerun", ExitCode.BAD_INPUT) as stage:
            for n in {names!r}:
                (stage / n).write_text("old " + n)
        def then_die(real):
            def step(*a, **k):
                real(*a, **k)
                os._exit(137)  # killed right after the first step that publishes
            return step
        os.replace, os.rename, runio.exchange = then_die(os.replace), then_die(os.rename), then_die(runio.exchange)
        with runio.staged_dir(final, "rerun", ExitCode.BAD_INPUT) as stage:
            for n in {names!r}:
                (stage / n).write_text("new " + n)
    """, tmp_path)
    assert p.returncode == 137, p.stderr
    contents = {n: (final / n).read_text() if (final / n).exists() else None for n in names}
    assert contents in ({n: f"old {n}" for n in names}, {n: f"new {n}" for n in names}), contents
    # what the killed process left beside the output is removed by the next publication of it
    with runio.staged_dir(final, "rerun", ExitCode.BAD_INPUT) as stage:
        (stage / "index.html").write_text("next")
    assert not [n for n in os.listdir(tmp_path) if ".old-" in n or ".staging-" in n], os.listdir(tmp_path)
