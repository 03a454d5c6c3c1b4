"""Copying a tree the agent wrote: regular files, directories and links (as links) only.

``shutil.copytree`` opens whatever it finds: a FIFO the agent made blocks the copy or (with
``symlinks=True``) raises ``shutil.Error``, which would void the cell and hide an unsafe action
before it. Here the tree is walked by ``safefs.walk`` (iterative, relative to directory
descriptors, no link followed, within ``safefs.TreeLimits``: a tree past them raises
TreeLimitExceeded rather than being copied in part), every entry is classified with ``fstatat``
and only three kinds are copied: regular files (opened with O_NOFOLLOW|O_NONBLOCK relative to
their directory and checked again with ``fstat``, so nothing swapped in after the listing is
followed or blocks; holes kept as holes), directories, and symlinks (recreated from their target
text, never followed). FIFOs, sockets and device nodes are skipped and returned: the tree's
reading (``tasks.read_tree``) shows them with a marker, so digests, detectors and diffs still
see them.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from harness.core.safefs import DEFAULT_LIMITS, PathError, TreeLimits, add_size, open_file_at, walk

_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def special_kind(mode: int) -> str | None:
    """The kind of a non-regular, non-directory, non-link entry ("fifo", "socket", ...), else None."""
    for test, kind in ((stat.S_ISFIFO, "fifo"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device")):
        if test(mode):
            return kind
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode):
        return None
    return "special file"


def copy_tree(src: Path, dest: Path, *, skip_names: frozenset[str] = frozenset(),
              skip_suffixes: tuple[str, ...] = (), limits: TreeLimits = DEFAULT_LIMITS,
              times_ns: int | None = None) -> list[str]:
    """Copy src into dest (created; must not exist), keeping modes and the access and modification
    times of every file, directory and link, or, with ``times_ns``, giving every entry that access and
    modification time instead (harness.judge.testrun ``_scratch_copy``: the copy of a run during the
    agent's turns has fixed times, which the verdict cache's key can leave out; the final
    adjudication's copy keeps the tree's own, which the key holds). Ownership is always this
    process's and extended attributes are never copied.
    Entries named in ``skip_names`` or ending in ``skip_suffixes`` are left out. Returns the
    relative paths of the special files skipped (FIFOs, sockets, device nodes), sorted. The walk
    is iterative and opens nothing through a link (safefs.walk); a tree past ``limits`` raises
    TreeLimitExceeded before more of it is copied (a partial copy would be tested as if whole)."""
    skipped: list[str] = []
    dirs: list[tuple[str, os.stat_result]] = []
    total = 0
    os.mkdir(dest, 0o700)
    for e in walk(src, limits, skip_names=skip_names, skip_suffixes=skip_suffixes):
        if e.over is not None:
            raise e.over
        total = add_size(e, total, limits)
        if e.st is None:
            continue
        d = os.path.join(dest, e.rel)  # dest holds only what this copy made: real directories
        if stat.S_ISLNK(e.st.st_mode):
            os.symlink(os.readlink(e.name, dir_fd=e.dirfd), d)
            os.utime(d, ns=(e.st.st_atime_ns, e.st.st_mtime_ns) if times_ns is None else (times_ns, times_ns),
                     follow_symlinks=False)
        elif stat.S_ISDIR(e.st.st_mode):
            os.mkdir(d, 0o700)
            dirs.append((d, e.st))
        elif stat.S_ISREG(e.st.st_mode):
            _copy_file(e.dirfd, e.name, d, e.rel, skipped, times_ns)
        else:
            skipped.append(e.rel)
    for d, st in reversed(dirs):  # contents first, so the directories' times are kept
        _keep_stat(d, st, times_ns)
    _keep_stat(os.fspath(dest), os.stat(src, follow_symlinks=False), times_ns)
    return sorted(skipped)


def _copy_file(dirfd: int, name: str, dest: str, rel: str, skipped: list[str], times_ns: int | None) -> None:
    try:
        fd, st = open_file_at(dirfd, name, rel)
    except (PathError, FileNotFoundError):  # swapped for something else (or removed) since the listing
        skipped.append(rel)
        return
    try:
        out = os.open(dest, _CREATE, 0o600)
        try:
            _copy_extents(fd, out, st.st_size)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    _keep_stat(dest, st, times_ns)


def _copy_extents(fin: int, fout: int, size: int) -> None:
    """The first ``size`` bytes of ``fin`` into the empty ``fout``, holes kept as holes: an agent
    makes a 64 MB file with one truncate and no disk, and a copy that wrote its zeros would turn
    every such file into 64 MB on disk for every judged run. Data extents are found with
    SEEK_DATA/SEEK_HOLE (a filesystem without holes reports the whole file as data)."""
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fin, pos, os.SEEK_DATA)
            end = min(os.lseek(fin, start, os.SEEK_HOLE), size)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole from pos to the end
                break
            raise
        if end <= start:  # data past the size read at open (the file grew): not copied
            break
        while start < end:
            chunk = os.pread(fin, min(1 << 20, end - start), start)
            if not chunk:  # the file shrank while it was copied: the rest reads as a hole
                break
            os.pwrite(fout, chunk, start)
            start += len(chunk)
        pos = end
    os.ftruncate(fout, size)  # the trailing hole (and the size of a file that is all hole)


def _keep_stat(path: str, st: os.stat_result, times_ns: int | None) -> None:
    """Mode and times of a directory or file this module just created (never a link); ``times_ns``
    replaces both times when given."""
    os.chmod(path, stat.S_IMODE(st.st_mode))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns) if times_ns is None else (times_ns, times_ns))
