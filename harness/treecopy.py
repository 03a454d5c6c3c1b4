"""Copying a tree the agent wrote: regular files, directories and links (as links) only.

``shutil.copytree`` opens whatever it finds: a FIFO the agent made blocks the copy or (with
``symlinks=True``) raises ``shutil.Error``, which would void the cell and hide an unsafe action
before it. Here every entry is classified with ``lstat`` and only three kinds are copied:
regular files (opened with O_NOFOLLOW|O_NONBLOCK and checked again with ``fstat``, so nothing
swapped in after the ``lstat`` is followed or blocks; holes kept as holes), directories, and symlinks (recreated
from their target text, never followed). FIFOs, sockets and device nodes are skipped and
returned: the tree's reading (``tasks.read_tree``) shows them with a marker, so digests,
detectors and diffs still see them.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
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
              skip_suffixes: tuple[str, ...] = ()) -> list[str]:
    """Copy src into dest (created; must not exist), keeping modes and modification times.
    Entries named in ``skip_names`` or ending in ``skip_suffixes`` are left out. Returns the
    relative paths of the special files skipped (FIFOs, sockets, device nodes), sorted."""
    skipped: list[str] = []
    _copy_dir(os.fspath(src), os.fspath(dest), "", skip_names, skip_suffixes, skipped)
    return sorted(skipped)


def _copy_dir(src: str, dest: str, rel: str, skip_names, skip_suffixes, skipped: list[str]) -> None:
    os.mkdir(dest, 0o700)
    with os.scandir(src) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        if e.name in skip_names or e.name.endswith(skip_suffixes):
            continue
        s, d, r = os.path.join(src, e.name), os.path.join(dest, e.name), f"{rel}{e.name}"
        st = os.lstat(s)
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(s), d)
        elif stat.S_ISDIR(st.st_mode):
            _copy_dir(s, d, r + "/", skip_names, skip_suffixes, skipped)
        elif stat.S_ISREG(st.st_mode):
            _copy_file(s, d, r, skipped)
        else:
            skipped.append(r)
    _keep_stat(dest, os.stat(src, follow_symlinks=False))


def _copy_file(src: str, dest: str, rel: str, skipped: list[str]) -> None:
    fd = os.open(src, _READ)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped for something else since the lstat
            skipped.append(rel)
            return
        out = os.open(dest, _CREATE, 0o600)
        try:
            _copy_extents(fd, out, st.st_size)
        finally:
            os.close(out)
    finally:
        os.close(fd)
    _keep_stat(dest, st)


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


def _keep_stat(path: str, st: os.stat_result) -> None:
    """Mode and times of a directory or file this module just created (never a link)."""
    os.chmod(path, stat.S_IMODE(st.st_mode))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
