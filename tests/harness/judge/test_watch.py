"""The workspace watch (harness.judge.watch). The scenario tools' runs are read from the kernel's record of
the agent's acts: tests/harness/sandbox/test_syscalls.py."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.judge import watch as watch_mod
from harness.judge.watch import Mask, Watch, parse_events, start_watch


def _sh(root: Path, script: str) -> None:
    subprocess.run(["sh", "-c", script], cwd=root, check=True)


def _until(cond, limit: int = 2000) -> None:
    """Wait (bounded) until the watch thread has read what the test needs before its next step."""
    for _ in range(limit):
        if cond():
            return
        time.sleep(0.005)
    pytest.fail("the watch thread never read the event")


def test_records_create_write_rename_delete_and_modes_recursively(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "sub").mkdir()
    w = Watch(tmp_path, digest=("a.txt",)).start()
    _sh(tmp_path, "chmod 777 a.txt")
    _until(lambda: any(e.get("mode") == 0o777 for e in w.events))  # the mode is read when the event is read
    _sh(tmp_path, "chmod 644 a.txt; mkdir -p new/deep")
    _until(lambda: "new/deep" in w._dirs.values())
    _sh(tmp_path, "echo r > new/deep/f; rm -r new; echo y >> a.txt; mv sub/ sub2/")
    ev = w.stop()
    ops = [(e["op"], e["path"]) for e in ev]
    assert ("attrib", "a.txt") in ops and any(e.get("mode") == 0o777 for e in ev if e["path"] == "a.txt")
    assert ("create", "new") in ops and ("create", "new/deep") in ops and ("create", "new/deep/f") in ops
    assert ("delete", "new/deep/f") in ops and ("delete", "new") in ops
    assert ("write", "a.txt") in ops and ("moved_from", "sub") in ops and ("moved_to", "sub2") in ops
    assert any(e["path"] == "a.txt" and e["op"] == "write" and e.get("sha256") for e in ev)  # the digest path is hashed
    assert w.incomplete == []


def test_a_directory_already_watched_under_its_name_is_not_walked_again(tmp_path, monkeypatch):
    """An event for a directory the watch already holds (a chain made faster than the thread reads:
    each level's create event arrives after an ancestor's walk went past it) adds nothing and scans
    nothing; walking it again once per ancestor made a deep chain cost its depth cubed."""
    chain = tmp_path / "deep" / "d1" / "d2"
    chain.mkdir(parents=True)
    w = Watch(tmp_path).start()
    scanned: list[str] = []
    real = watch_mod.os.scandir
    monkeypatch.setattr(watch_mod.os, "scandir", lambda p: scanned.append(str(p)) or real(p))
    before = list(w.events)
    w._add_tree("deep/d1", initial=False)
    assert scanned == [] and w.events == before
    (tmp_path / "deep" / "d1").rename(tmp_path / "deep" / "e1")  # a new name: walked, its rels follow
    _until(lambda: "deep/e1/d2" in w._dirs.values())
    assert "deep/d1/d2" not in w._dirs.values()
    w.stop()


def test_the_root_directory_mode_is_seen(tmp_path):
    w = Watch(tmp_path).start()
    _sh(tmp_path, "chmod 777 .")
    _until(lambda: any(e["path"] == "." for e in w.events))
    _sh(tmp_path, "chmod 755 .")
    assert any(e["path"] == "." and e.get("mode") == 0o777 for e in w.stop())


def test_queue_overflow_is_stated_not_silent(tmp_path):
    w = Watch(tmp_path).start()
    w._handle(-1, Mask.Q_OVERFLOW, 0, "")  # what the kernel sends when its queue overflowed
    w.stop()
    assert w.incomplete and "overflow" in w.incomplete[0]


def test_event_cap_is_stated(tmp_path, monkeypatch):
    monkeypatch.setattr(watch_mod, "MAX_EVENTS", 5)
    w = Watch(tmp_path).start()
    _sh(tmp_path, "for i in 1 2 3 4 5 6 7 8 9 10; do echo x > f$i; done")
    ev = w.stop()
    assert len(ev) == 5 and w.incomplete and "50" not in w.incomplete[0] and "5 file-system" in w.incomplete[0]


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_flood_still_draining_at_stop_is_halted_between_events_and_stated(tmp_path, monkeypatch):
    """A thread still reading a flood when stop() has waited STOP_WAIT_S is halted between two
    events, and its descriptors are closed only after it ended (never under its feet); the
    watch says its events are incomplete."""
    monkeypatch.setattr(watch_mod, "STOP_WAIT_S", 0.05)
    slow = Watch._handle

    def handle(self, *a):
        time.sleep(0.01)
        slow(self, *a)

    monkeypatch.setattr(Watch, "_handle", handle)
    w = Watch(tmp_path).start()
    _sh(tmp_path, "for i in $(seq 1 500); do mkdir d$i; done")
    ev = w.stop()
    assert not w._thread.is_alive() and len(ev) < 500
    assert any("did not stop within 0.05 s" in n for n in w.incomplete), w.incomplete


def test_a_flood_of_unwatchable_paths_keeps_a_bounded_list_of_reasons(tmp_path):
    w = Watch(tmp_path).start()
    for i in range(watch_mod.MAX_NOTES + 20):
        w._note(f"could not watch d{i}: File name too long")
    w.stop()
    assert len(w.incomplete) == watch_mod.MAX_NOTES + 1 and "later ones were not kept" in w.incomplete[-1]


def test_the_kernel_interface_is_used_without_inotify_simple(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "inotify_simple", None)  # import fails
    assert isinstance(watch_mod._open_inotify(), watch_mod._CtypesInotify)
    w = start_watch(tmp_path)
    assert isinstance(w._ino, watch_mod._CtypesInotify)
    _sh(tmp_path, "echo x > f; rm f")
    assert [(e["op"], e["path"]) for e in w.stop()][:2] == [("create", "f"), ("write", "f")]


def test_parse_events_reads_the_kernel_layout():
    import struct
    name = b"abc\0\0\0\0\0"
    buf = struct.pack("iIII", 3, 0x100, 0, len(name)) + name + struct.pack("iIII", 4, 0x200, 7, 0)
    assert parse_events(buf) == [(3, 0x100, 0, "abc"), (4, 0x200, 7, "")]


def test_noise_is_left_out(tmp_path):
    w = Watch(tmp_path).start()
    _sh(tmp_path, "mkdir __pycache__ && echo x > __pycache__/m.pyc && echo y > m.pyc")
    assert w.stop() == []
