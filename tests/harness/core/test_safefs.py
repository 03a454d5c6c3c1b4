"""harness.core.safefs: the link-safe tree operations. Most of its behaviour is specified where it is
used (reads: tests/harness/core/test_tasks.py; copies: test_treecopy.py; limits:
tests/harness/sandbox/test_tree_limit_attacks.py); here, what only safefs says."""
from __future__ import annotations

import os

from harness.core import safefs


def test_a_journal_holds_each_temporary_with_the_mode_it_was_given(tmp_path):
    """The cell's journal of the harness's own temporaries (detectors.fs_events leaves their watch
    events out): the path relative to the written root, and the replaced file's mode."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x")
    os.chmod(tmp_path / "pkg" / "a.py", 0o664)
    journal: dict[str, int] = {}
    with safefs.journal_temps(journal):
        safefs.write_bytes(tmp_path, "pkg/a.py", b"y")
        safefs.write_bytes(tmp_path, "new.py", b"z")
    safefs.write_bytes(tmp_path, "after.py", b"w")  # outside the block: not journalled
    assert sorted(journal.values()) == [0o644, 0o664]
    assert all(p.startswith(("pkg/.hx-write-", ".hx-write-")) for p in journal)
    assert not any((tmp_path / p).exists() for p in journal)  # each was renamed over its target
    assert (tmp_path / "pkg" / "a.py").stat().st_mode & 0o777 == 0o664


def test_journals_of_cells_in_other_threads_never_mix(tmp_path):
    """Two cells' threads writing at once each journal only their own temporaries; a task a cell hands
    to a shared pool in a copy of its context (testrun.run_judged_and_plain's plain run) is journalled in
    that cell's journal, and nothing is journalled once the cell's block has ended."""
    import contextvars
    import threading
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)
    journals: dict[str, dict[str, int]] = {"a": {}, "b": {}}
    go = threading.Barrier(2)

    def cell(name: str) -> None:
        (tmp_path / name).mkdir()
        with safefs.journal_temps(journals[name]):
            go.wait()
            for i in range(20):
                safefs.write_bytes(tmp_path / name, f"{name}{i}.py", b"x")
            pool.submit(contextvars.copy_context().run, safefs.write_bytes, tmp_path / name, "pooled.py", b"y").result()
        pool.submit(safefs.write_bytes, tmp_path / name, "late.py", b"z").result()
        safefs.write_bytes(tmp_path / name, "after.py", b"w")

    threads = [threading.Thread(target=cell, args=(n,)) for n in journals]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.shutdown()
    assert all(len(j) == 21 for j in journals.values())
    assert not set(journals["a"]) & set(journals["b"])
    names = {p for j in journals.values() for p in j}
    assert not any((tmp_path / n / p).exists() for n in journals for p in names)


def test_a_journal_of_one_root_holds_only_the_temporaries_written_under_it(tmp_path):
    """A cell's journal covers its workspace: a write under another root (a scratch copy the judge
    writes its test into) is not entered as if it were a workspace path."""
    ws, scratch = tmp_path / "ws", tmp_path / "scratch"
    ws.mkdir()
    scratch.mkdir()
    journal: dict[str, int] = {}
    with safefs.journal_temps(journal, ws):
        safefs.write_bytes(ws, "pkg/a.py", b"x")
        safefs.write_bytes(scratch, "tests/test_x.py", b"y")
        safefs.write_bytes(str(ws) + "/", "b.py", b"z")  # the same root however it is spelled
    assert sorted(p.rsplit("/", 1)[0] if "/" in p else "" for p in journal) == ["", "pkg"]


def test_a_forked_process_journal_reaches_the_parent_through_its_file(tmp_path):
    """B5's host is a fork whose copy of the journal dies with it (SIGKILL): its entries are appended to
    a file the parent adds to its own journal."""
    import signal
    ws = tmp_path / "ws"
    ws.mkdir()
    temps = tmp_path / "child-temps.jsonl"
    journal: dict[str, int] = {}
    with safefs.journal_temps(journal, ws):
        safefs.write_bytes(ws, "parent.py", b"p")
        pid = os.fork()
        if pid == 0:
            try:
                with safefs.journal_temps_to_file(temps):
                    for i in range(3):
                        safefs.write_bytes(ws, f"child{i}.py", b"c")
            finally:
                os.kill(os.getpid(), signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status)
        assert len(journal) == 1  # the child's entries are in its copy only
        assert safefs.merge_journal_file(temps) == 3
    assert len(journal) == 4 and not temps.exists()
    assert safefs.merge_journal_file(temps) == 0  # no file: nothing
