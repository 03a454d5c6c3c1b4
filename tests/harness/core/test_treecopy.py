"""Copying an agent's tree (harness.core.treecopy): only regular files, directories and links (as
links); FIFOs, sockets and device nodes are skipped, reported, and shown by read_tree as markers."""
from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from harness.core import treecopy
from harness.core.tasks import BINARY_MARK, SPECIAL_MARK, read_tree
from harness.core.treecopy import copy_tree, special_kind
from harness.judge import testrun
from harness.sandbox import warm


@pytest.fixture
def tree(tmp_path):
    src = tmp_path / "src"
    (src / "pkg" / "__pycache__").mkdir(parents=True)
    (src / "pkg" / "mod.py").write_text("X = 1\n")
    (src / "pkg" / "__pycache__" / "mod.cpython-311.pyc").write_bytes(b"\0pyc")
    (src / "pkg" / "stale.pyc").write_bytes(b"\0pyc")
    (src / "run.sh").write_text("echo hi\n")
    os.chmod(src / "run.sh", 0o750)
    os.symlink("/etc/passwd", src / "host-link")  # a link out: copied as a link, never followed
    os.symlink("missing", src / "dangling")
    os.symlink("pkg", src / "pkg-link")
    os.mkfifo(src / "pkg" / "pipe")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(src / "sock"))
    return src


def test_regular_files_directories_and_links_are_copied_and_special_files_reported(tree, tmp_path):
    dest = tmp_path / "dest"
    skipped = copy_tree(tree, dest, skip_names=frozenset({"__pycache__"}), skip_suffixes=(".pyc",))
    assert skipped == ["pkg/pipe", "sock"]
    assert (dest / "pkg" / "mod.py").read_text() == "X = 1\n"
    assert stat.S_IMODE(os.stat(dest / "run.sh").st_mode) == 0o750
    assert os.stat(dest / "run.sh").st_mtime_ns == os.stat(tree / "run.sh").st_mtime_ns
    for link in ("host-link", "dangling", "pkg-link"):
        assert os.readlink(dest / link) == os.readlink(tree / link)
    assert not (dest / "pkg" / "__pycache__").exists() and not (dest / "pkg" / "stale.pyc").exists()
    assert not os.path.lexists(dest / "pkg" / "pipe") and not os.path.lexists(dest / "sock")


def test_read_tree_shows_special_files_as_markers_that_readers_treat_as_binary(tree):
    files = read_tree(tree)
    assert files["pkg/pipe"] == SPECIAL_MARK + "fifo" and files["sock"] == SPECIAL_MARK + "socket"
    assert files["pkg/pipe"].startswith(BINARY_MARK)  # detectors, diffs and restore leave it alone
    assert files["pkg/mod.py"] == "X = 1\n"


def test_special_kind_names_every_kind_and_nothing_else():
    assert special_kind(stat.S_IFIFO | 0o644) == "fifo"
    assert special_kind(stat.S_IFCHR) == "character device" and special_kind(stat.S_IFBLK) == "block device"
    assert special_kind(stat.S_IFREG | 0o644) is None and special_kind(stat.S_IFDIR) is None
    assert special_kind(stat.S_IFLNK) is None


def test_a_scratch_copy_that_fails_leaves_nothing_behind(tree, monkeypatch):
    def broken(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(treecopy, "copy_tree", broken)
    monkeypatch.setattr(warm, "scratch_base", lambda: str(tree.parent))
    with pytest.raises(OSError):
        testrun._scratch_copy(tree)
    assert not list(Path(tree.parent).glob("hx-run-*"))


def test_a_scratch_copy_of_a_tree_with_a_fifo_succeeds(tree, monkeypatch):
    monkeypatch.setattr(warm, "scratch_base", lambda: str(tree.parent))
    scratch, work, res, _ = testrun._scratch_copy(tree)
    assert work == scratch / "w" and scratch.parent == tree.parent
    assert (work / "pkg" / "mod.py").is_file() and not os.path.lexists(work / "pkg" / "pipe")
    assert (res / "pytest.ini").is_file()


def test_a_name_that_is_not_utf8_is_copied_by_its_bytes(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    name = os.fsdecode(b"caf\xe9.py")  # Latin-1, not UTF-8
    (src / name).write_text("X = 1\n")
    os.mkfifo(src / os.fsdecode(b"p\xff"))
    skipped = copy_tree(src, tmp_path / "dest")
    assert os.listdir(os.fsencode(tmp_path / "dest")) == [b"caf\xe9.py"]
    assert [os.fsencode(s) for s in skipped] == [b"p\xff"]


def test_a_sparse_file_stays_sparse_in_the_copy(tmp_path):
    """An agent's command makes a 64 MB file (the per-file limit) with one truncate and no disk; a
    copy that writes its holes as zeros turns every such file into 64 MB on disk, for every judged
    run (a thousand of them fill the host's disk). The copy keeps holes as holes."""
    src = tmp_path / "src"
    src.mkdir()
    with open(src / "big.bin", "wb") as fh:  # ends at the per-file limit (a command cannot write past it)
        fh.write(b"head")
        fh.seek((64 << 20) - 4)
        fh.write(b"tail")
    if os.stat(src / "big.bin").st_blocks * 512 > 1 << 20:
        pytest.skip("this filesystem does not keep holes")
    copy_tree(src, tmp_path / "dest")
    got = tmp_path / "dest" / "big.bin"
    assert got.stat().st_size == (src / "big.bin").stat().st_size
    assert got.stat().st_blocks * 512 < 1 << 20, "the holes were written out as data"
    with open(got, "rb") as fh:
        assert fh.read(4) == b"head"
        fh.seek((64 << 20) - 4)
        assert fh.read() == b"tail"
        fh.seek(1 << 20)
        assert fh.read(1 << 16) == bytes(1 << 16)


def test_with_fixed_times_every_entry_gets_them_and_no_extended_attribute_is_copied(tree, tmp_path):
    """The scratch copy of a run in the agent's turns (harness.judge.testrun ``_scratch_copy``) keeps
    nothing of the tree's metadata that the verdict cache's key leaves out: every file, directory
    and link gets one time, and an extended attribute the agent set is not copied."""
    os.utime(tree / "pkg" / "mod.py", ns=(3, 3))
    try:
        os.setxattr(tree / "pkg" / "mod.py", "user.hx", b"1")
        has_xattr = True
    except OSError:  # a filesystem without user xattrs
        has_xattr = False
    dest = tmp_path / "dest"
    copy_tree(tree, dest, skip_names=frozenset({"__pycache__"}), times_ns=testrun.SCRATCH_TIME_NS)
    for p in [dest, *dest.rglob("*")]:  # (the access times change as this loop reads the copy)
        assert os.lstat(p).st_mtime_ns == testrun.SCRATCH_TIME_NS, p
    if has_xattr:
        assert os.listxattr(dest / "pkg" / "mod.py") == []
    copy_tree(tree, tmp_path / "kept")  # without times_ns the times are kept
    assert os.stat(tmp_path / "kept" / "pkg" / "mod.py").st_mtime_ns == 3


def test_every_entry_keeps_its_times_and_no_extended_attribute_is_copied(tree, tmp_path):
    """The final adjudication's scratch copy (harness.judge.testrun ``_scratch_copy``) shows the tree
    the times it has in its workspace, links' and directories' included (red team r32: fixed times
    told a tree it was in the harness's copy); an extended attribute the agent set is not copied."""
    os.utime(tree / "pkg" / "mod.py", ns=(3, 5))
    os.utime(tree / "pkg-link", ns=(7, 9), follow_symlinks=False)
    os.utime(tree / "pkg", ns=(11, 13))
    try:
        os.setxattr(tree / "pkg" / "mod.py", "user.hx", b"1")
        has_xattr = True
    except OSError:  # a filesystem without user xattrs
        has_xattr = False
    before = {p.relative_to(tree): os.lstat(p).st_mtime_ns for p in [tree, *tree.rglob("*")]
              if "__pycache__" not in p.parts and p.suffix != ".pyc" and p.name not in ("pipe", "sock")}
    dest = tmp_path / "dest"
    copy_tree(tree, dest, skip_names=frozenset({"__pycache__"}), skip_suffixes=(".pyc",))
    assert {p.relative_to(dest): os.lstat(p).st_mtime_ns for p in [dest, *dest.rglob("*")]} == before
    assert os.lstat(dest / "pkg-link").st_atime_ns == 7 and os.lstat(dest / "pkg").st_mtime_ns == 13
    if has_xattr:
        assert os.listxattr(dest / "pkg" / "mod.py") == []


def test_a_scratch_copy_of_the_agents_turns_has_fixed_times(tree):
    scratch, work, _, seen = testrun._scratch_copy(tree)
    try:
        assert seen == work
        assert {os.lstat(p).st_mtime_ns for p in [work, *work.rglob("*")]} == {testrun.SCRATCH_TIME_NS}
    finally:
        testrun.safefs.rmtree(scratch)


def test_the_final_adjudications_scratch_copy_keeps_the_trees_times_and_is_shown_at_its_path(tree):
    """Red team r32: every entry of the final adjudication's copy had the time 2000-01-01, which no
    workspace has, under /tmp/hx-run-*; a tree that checked for either behaved right only in the
    harness's copy. Now it keeps the tree's times (``own_times``, at every level), and the run is
    shown it at ``at`` (every level but basic)."""
    os.utime(tree / "pkg" / "mod.py", ns=(3, 5))
    scratch, work, _, seen = testrun._scratch_copy(tree, at=tree, own_times=True)
    try:
        assert seen == tree and work != tree
        assert os.stat(work / "pkg" / "mod.py").st_mtime_ns == 5
        assert os.lstat(work / "pkg-link").st_mtime_ns == os.lstat(tree / "pkg-link").st_mtime_ns
        assert os.stat(work).st_mtime_ns == os.stat(tree).st_mtime_ns
    finally:
        testrun.safefs.rmtree(scratch)
