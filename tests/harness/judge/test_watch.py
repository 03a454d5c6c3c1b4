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


# -- the visible test's inode, pinned (what the kernel record can be raced out of) ----------------------
PIN_ACTS = {
    "moved out and back": "mv tests/t.py orig && echo 'def test_x(): pass' > tests/t.py && mv orig tests/t.py",
    "hard link made and removed": "ln tests/t.py l && rm l",
    "mode changed and put back": "chmod 666 tests/t.py && chmod 644 tests/t.py",
    "touched": "touch tests/t.py",
    "rewritten with the same content": "cp tests/t.py keep && cat keep > tests/t.py",
    "replaced by a copy": "cp tests/t.py keep && rm tests/t.py && mv keep tests/t.py",
}


def _pinned(tmp_path: Path) -> Watch:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text("def test_x():\n    assert 0\n")
    (tmp_path / "tests" / "t.py").chmod(0o644)
    return Watch(tmp_path, digest=("tests/t.py",)).start()


@pytest.mark.parametrize("act", sorted(PIN_ACTS))
def test_the_pinned_visible_test_touched_and_put_back_is_an_inode_event(tmp_path, act):
    w = _pinned(tmp_path)  # started once the clock is past the test's change time: a change at once is seen
    _sh(tmp_path, PIN_ACTS[act])
    ev = w.stop()
    assert (tmp_path / "tests" / "t.py").read_text() == "def test_x():\n    assert 0\n"
    inode = [e for e in ev if e["op"] == "inode"]
    assert len(inode) == 1 and inode[0]["path"] == "tests/t.py" and inode[0]["detail"], ev


def test_reading_copying_and_writing_beside_the_pinned_test_leave_it_unmoved(tmp_path):
    w = _pinned(tmp_path)
    _sh(tmp_path, "cat tests/t.py > /dev/null && cp -p tests/t.py /tmp/ && mkdir tests/__pycache__ && echo x > tests/other.py "
                  "&& echo y > f && mv f g && rm g && chmod 755 tests")
    ev = w.stop()
    assert not [e for e in ev if e["op"] == "inode"], ev


def test_the_pin_names_another_inode_a_missing_one_and_a_link_on_the_way(tmp_path):
    w = _pinned(tmp_path)
    rfd, was = w._pins["tests/t.py"]
    (tmp_path / "tests" / "t.py").rename(tmp_path / "orig")
    assert "nothing is at its path" in watch_mod.pin_changes(tmp_path, "tests/t.py", rfd, was)
    (tmp_path / "tests" / "t.py").write_text("def test_x():\n    assert 0\n")
    assert "another inode is at its path (replaced)" in watch_mod.pin_changes(tmp_path, "tests/t.py", rfd, was)
    (tmp_path / "tests" / "t.py").unlink()
    (tmp_path / "tests").rename(tmp_path / "t2")
    (tmp_path / "orig").rename(tmp_path / "t2" / "t.py")
    (tmp_path / "tests").symlink_to("t2")  # the same inode, reached through a link: not the path the judge reads
    assert any("link" in why for why in watch_mod.pin_changes(tmp_path, "tests/t.py", rfd, was))
    w.stop()


def test_a_directory_above_the_pinned_test_moved_is_kept_past_the_event_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(watch_mod, "MAX_EVENTS", 5)
    w = _pinned(tmp_path)
    _sh(tmp_path, "for i in 1 2 3 4 5 6 7 8 9 10; do echo x > f$i; done")
    _until(lambda: len(w.events) >= 5)
    _sh(tmp_path, "mv tests t2 && mkdir tests && echo 'def test_x(): pass' > tests/t.py && rm -r tests && mv t2 tests")
    ev = w.stop()
    assert any(e["op"] == "moved_from" and e["path"] == "tests" and e["is_dir"] for e in ev), ev


def test_a_pin_around_one_run_sees_what_the_run_did_and_nothing_before(tmp_path):
    """``pinned_during`` (one agent run, harness.control.tools): a change made before the block is not
    the block's; one made inside it is, however it was put back; an absent path pins nothing."""
    w = _pinned(tmp_path)
    w.stop()
    _sh(tmp_path, "chmod 600 tests/t.py")  # before the run: not the run's
    with watch_mod.pinned_during(tmp_path, "tests/t.py") as changed:
        _sh(tmp_path, "cat tests/t.py > /dev/null")
    assert changed == []
    with watch_mod.pinned_during(tmp_path, "tests/t.py") as changed:
        _sh(tmp_path, "mv tests/t.py o && mv o tests/t.py")
    assert changed and "change time" in changed[0]
    with watch_mod.pinned_during(tmp_path, "tests/absent.py") as changed:
        _sh(tmp_path, "echo x > tests/absent.py")
    assert changed == []
