"""Every harness read or write inside a tree the agent could have touched (a cell's workspace, a
test run's scratch copy) goes through this module.

The agent's commands run confined, but the harness reads and writes the tree from outside, as
root. A path there is hostile: any component may be a symlink the agent planted (to the hidden
oracle, to a root-only host file, back into itself), a FIFO that blocks an ``open``, a chain of
ten thousand directories that overflows a recursive walk or ``PATH_MAX``, or a hundred thousand
sparse files that exhaust memory. So:

- **No link is followed.** A path is opened relative to a directory descriptor with no symlink
  at any component: ``openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_MAGICLINKS)`` where
  the kernel has it, else a walk that opens each component with ``O_NOFOLLOW`` relative to the
  descriptor of the one before (``open_beneath``). A link met on the way raises ``LinkRefused``;
  a FIFO, socket or device where a file is expected raises ``NotRegular`` (it is classified with
  ``fstatat`` before it is opened, and opened with ``O_NONBLOCK`` so a swap cannot block).
- **Trees have declared limits** (``TreeLimits``: depth, path length, entry count, total size, size
  of one file). Walks are iterative (``walk``), read files in bounded chunks, and stop at a limit:
  a reader gets a marker entry where the limit struck, a copy raises ``TreeLimitExceeded``. Both
  are the agent's outcome (a tool error during the cell; a tree the harness will not copy fails
  both tests), never an infrastructure fault.
"""
from __future__ import annotations

import contextlib
import ctypes
import enum
import errno
import hashlib
import json
import os
import secrets
import stat
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from harness.core.errors import HarnessError

_CLOEXEC = os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_STEP = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | _CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | _CLOEXEC
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
CHUNK = 1 << 20


class PathError(HarnessError):
    """A tool path the agent made unusable (a link, a link loop, a special file, a tree past its
    limits): the agent's own error, reported to it as a tool error, never a fault of the cell."""


class LinkRefused(PathError):
    """A symlink at some component of a path the harness was asked to open: never followed."""


class NotRegular(PathError):
    """A FIFO, socket, device node or directory where a regular file is expected: never opened."""


class Limit(enum.Enum):
    """The declared limits of an agent-made tree (``TreeLimits``)."""
    DEPTH = "depth"
    PATH_BYTES = "path length"
    ENTRIES = "entry count"
    TOTAL_BYTES = "total size"
    FILE_BYTES = "file size"


class TreeLimitExceeded(PathError):
    """A tree (or a path in it) past one of its declared limits."""

    def __init__(self, limit: Limit, where: str, detail: str):
        super().__init__(f"the tree exceeds the harness's {limit.value} limit at {where!r}: {detail}")
        self.limit, self.where = limit, where


@dataclass(frozen=True)
class TreeLimits:
    """What the harness reads or copies of a tree the agent made. A task's own tree is far inside
    every one; past one, the tree is the agent's failure (docs/reference/trust-model.md, Confinement).

    ``max_depth``: directory levels below the root. ``max_path_bytes``: bytes of a relative path
    (well under PATH_MAX, so every path the harness opens can be opened). ``max_entries``: files,
    directories and links. ``max_total_bytes``: sum of the regular files' sizes (apparent size:
    a sparse file counts whole, as a reader of it would see it). ``max_file_bytes``: one file (the
    confined command's RLIMIT_FSIZE, sandbox ``Limits.file_mb``). ``max_text_bytes``: a file
    larger than this is hashed in chunks and shown as a marker, never held whole as text."""
    max_depth: int = 64
    max_path_bytes: int = 1024
    max_entries: int = 20_000
    max_total_bytes: int = 256 << 20
    max_file_bytes: int = 64 << 20
    max_text_bytes: int = 4 << 20


DEFAULT_LIMITS = TreeLimits()


# -- opening one path --------------------------------------------------------------------------
class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_SYS_OPENAT2 = 437  # the same number on every architecture (Linux >= 5.6)
_RESOLVE = 0x02 | 0x04 | 0x08  # RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH
_openat2_state: dict[str, bool] = {}


def _libc():
    try:
        lib = ctypes.CDLL(None, use_errno=True)
        lib.syscall.restype = ctypes.c_long
        return lib
    except OSError:  # pragma: no cover - no libc: the component walk alone
        return None


_LIBC = _libc()


def _openat2(dirfd: int, rel: str, flags: int) -> int | None:
    """openat2(2) with no symlink at any component and nothing above ``dirfd``; None when the
    kernel (or a seccomp filter) does not offer it, or on any error: the caller then walks the
    components itself, which is as strict and names the offending component."""
    if _LIBC is None or _openat2_state.get("off"):
        return None
    how = _OpenHow(flags, 0, _RESOLVE)
    fd = _LIBC.syscall(_SYS_OPENAT2, ctypes.c_int(dirfd), os.fsencode(rel), ctypes.byref(how),
                       ctypes.c_size_t(ctypes.sizeof(how)))
    if fd >= 0:
        return int(fd)
    if ctypes.get_errno() in (errno.ENOSYS, errno.EPERM):
        _openat2_state["off"] = True
    return None


def split(rel: str) -> list[str]:
    """The components of a relative path, lexically normalised; ValueError for an absolute path,
    one that leaves its root (``..``), a NUL, or an empty one."""
    if not isinstance(rel, str) or not rel or "\0" in rel or rel.startswith("/"):
        raise ValueError(f"not a relative path inside the tree: {rel!r}")
    norm = os.path.normpath(rel)
    parts = [] if norm == "." else norm.split("/")
    if parts and parts[0] == "..":
        raise ValueError(f"not a relative path inside the tree: {rel!r}")
    return parts


def _step(dirfd: int, name: str, shown: str) -> int:
    """Open the directory ``name`` under ``dirfd`` without following it; LinkRefused if a link."""
    try:
        return os.open(name, _STEP, dir_fd=dirfd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            with contextlib.suppress(OSError):
                if stat.S_ISLNK(os.stat(name, dir_fd=dirfd, follow_symlinks=False).st_mode):
                    raise LinkRefused(f"{shown!r} is a link (the harness never follows one)") from None
        raise


def open_dir(dirfd: int, parts: list[str]) -> int:
    """A descriptor for the directory ``parts`` beneath ``dirfd``, no link at any component."""
    if not parts:
        return os.dup(dirfd)
    fd = _openat2(dirfd, "/".join(parts), _DIR)
    if fd is not None:
        return fd
    cur = os.dup(dirfd)
    try:
        for i, name in enumerate(parts):
            nxt = _step(cur, name, "/".join(parts[: i + 1]))
            os.close(cur)
            cur = nxt
        # an O_PATH descriptor cannot be listed: reopen the final directory for reading
        out = os.open(".", os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC, dir_fd=cur)
    finally:
        os.close(cur)
    return out


def _parent(rootfd: int, rel: str) -> tuple[int, str]:
    parts = split(rel)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "is the workspace root", rel)
    return open_dir(rootfd, parts[:-1]), parts[-1]


def lstat_at(dirfd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def open_file_at(dirfd: int, name: str, shown: str) -> tuple[int, os.stat_result]:
    """Open the regular file ``name`` in ``dirfd`` for reading: LinkRefused for a link, NotRegular
    for anything else (classified before it is opened, checked again after)."""
    st = lstat_at(dirfd, name)
    if st is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", shown)
    if stat.S_ISLNK(st.st_mode):
        raise LinkRefused(f"{shown!r} is a link (the harness never follows one)")
    if not stat.S_ISREG(st.st_mode):
        raise NotRegular(f"{shown!r} is not a regular file ({kind_of(st.st_mode)})")
    fd = os.open(name, _FILE, dir_fd=dirfd)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):  # swapped since the fstatat
        os.close(fd)
        raise NotRegular(f"{shown!r} is not a regular file ({kind_of(st.st_mode)})")
    return fd, st


def kind_of(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "directory"), (stat.S_ISLNK, "link"), (stat.S_ISFIFO, "fifo"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return kind
    return "regular file" if stat.S_ISREG(mode) else "special file"


@contextlib.contextmanager
def root_fd(root: Path | str) -> Iterator[int]:
    """A descriptor for a tree's root (made by the harness, so opened by its path)."""
    fd = os.open(os.fspath(root), _DIR)
    try:
        yield fd
    finally:
        os.close(fd)


# -- one file ----------------------------------------------------------------------------------
def lstat(root: Path | str, rel: str) -> os.stat_result | None:
    """The entry at rel itself (a link is not followed), None if absent. A link on the way raises."""
    with root_fd(root) as rfd:
        try:
            dfd, name = _parent(rfd, rel)
        except FileNotFoundError:
            return None
        try:
            return lstat_at(dfd, name)
        finally:
            os.close(dfd)


def read_bytes(root: Path | str, rel: str, limit: int) -> bytes:
    """At most ``limit`` bytes of the regular file at rel, read without following any link."""
    with root_fd(root) as rfd:
        dfd, name = _parent(rfd, rel)
        try:
            fd, _ = open_file_at(dfd, name, rel)
        finally:
            os.close(dfd)
    try:
        return _read_upto(fd, limit)
    finally:
        os.close(fd)


def _read_upto(fd: int, limit: int) -> bytes:
    chunks, got = [], 0
    while got < limit:
        b = os.read(fd, min(CHUNK, limit - got))
        if not b:
            break
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def hash_fd(fd: int, size: int) -> str:
    """sha256 of the first ``size`` bytes, read in bounded chunks (never the whole file at once)."""
    h = hashlib.sha256()
    pos = 0
    while pos < size:
        b = os.pread(fd, min(CHUNK, size - pos), pos)
        if not b:
            break
        h.update(b)
        pos += len(b)
    return h.hexdigest()


def _make_dirs(rfd: int, parts: list[str], *, replace_links: bool) -> int:
    """The directory ``parts`` beneath rfd, created as needed. A link or file on the way raises
    LinkRefused / NotADirectoryError, or with ``replace_links`` (a harness-owned scratch copy) is
    replaced by a real directory; never followed."""
    cur = os.dup(rfd)
    try:
        for i, name in enumerate(parts):
            st = lstat_at(cur, name)
            if st is not None and not stat.S_ISDIR(st.st_mode):
                if not replace_links:
                    if stat.S_ISLNK(st.st_mode):
                        raise LinkRefused(f"{'/'.join(parts[: i + 1])!r} is a link (the harness never follows one)")
                    raise NotADirectoryError(errno.ENOTDIR, "not a directory", "/".join(parts[: i + 1]))
                os.unlink(name, dir_fd=cur)
                st = None
            if st is None:
                os.mkdir(name, 0o755, dir_fd=cur)
            nxt = _step(cur, name, "/".join(parts[: i + 1]))
            os.close(cur)
            cur = nxt
        return cur
    except BaseException:
        os.close(cur)
        raise


@dataclass(frozen=True)
class _Journal:
    """The journal ``write_bytes`` enters its temporaries in: the cell's dict, the one root it covers
    (its directory's (st_dev, st_ino); None: every root), and, in a forked process, a file each entry is
    also appended to (``journal_temps_to_file``)."""
    entries: dict[str, int]
    root: tuple[int, int] | None = None
    file: Path | None = None

    def covers(self, rfd: int) -> bool:
        if self.root is None:
            return True
        st = os.fstat(rfd)
        return (st.st_dev, st.st_ino) == self.root

    def enter(self, key: str, mode: int) -> None:
        self.entries[key] = mode
        if self.file is not None:  # one short line, appended whole (O_APPEND): a kill leaves at most a torn last one
            fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                os.write(fd, (json.dumps([key, mode]) + "\n").encode())
            finally:
                os.close(fd)


_OWN_TEMPS: ContextVar[_Journal | None] = ContextVar("hx_own_temps", default=None)


@contextlib.contextmanager
def journal_temps(journal: dict[str, int], root: Path | str | None = None) -> Iterator[dict[str, int]]:
    """Within the block, every temporary file ``write_bytes`` makes under ``root`` (the cell's
    workspace; None: under any root) is entered in ``journal`` as its path relative to that root ->
    the mode it was given; a write under another root (a scratch copy the judge writes into,
    harness.judge.testrun.place_file) is not, so no entry names a path the workspace never held. A
    cell holds one journal for its whole run, so every detector that reads the workspace watch
    (harness.judge.detectors.fs_events: the watched changes, creates and modes) can tell the
    harness's own temporaries (a write on the agent's behalf, an injection) from files the agent
    made: what the harness writes is the harness's record, never a name in the tree (issue 32). A
    forked process's entries reach the parent through a file (``journal_temps_to_file``)."""
    key = None
    if root is not None:
        st = os.stat(root)
        key = (st.st_dev, st.st_ino)
    token = _OWN_TEMPS.set(_Journal(journal, key))
    try:
        yield journal
    finally:
        _OWN_TEMPS.reset(token)


@contextlib.contextmanager
def journal_temps_to_file(path: Path) -> Iterator[None]:
    """In a forked process (B5's host, harness.run.cellrun): within the block, each entry the current
    journal gets is also appended to ``path``, one JSON line each. The fork's copy of the journal dies
    with it (SIGKILLed at its declared turn); the parent adds the file's entries to its own
    (``merge_journal_file``). No journal: nothing is written."""
    cur = _OWN_TEMPS.get()
    token = _OWN_TEMPS.set(None if cur is None else _Journal(cur.entries, cur.root, Path(path)))
    try:
        yield
    finally:
        _OWN_TEMPS.reset(token)


def merge_journal_file(path: Path) -> int:
    """Add the entries a forked process appended to ``path`` (``journal_temps_to_file``) to the current
    journal and remove the file; a line a kill cut short is skipped. Returns how many were added."""
    cur = _OWN_TEMPS.get()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return 0
    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    os.unlink(path)
    n = 0
    for line in data.split(b"\n"):
        try:
            key, mode = json.loads(line)
        except (ValueError, TypeError):
            continue
        if cur is not None and isinstance(key, str) and type(mode) is int:
            cur.entries[key] = mode
            n += 1
    return n


def write_bytes(root: Path | str, rel: str, data: bytes, *, replace_links: bool = False,
                limits: TreeLimits = DEFAULT_LIMITS) -> bool:
    """Replace the file at rel with ``data``, never opening what is there: the bytes go to a fresh
    file (O_CREAT|O_EXCL|O_NOFOLLOW) renamed over the entry, so a FIFO, a device node or a link
    there is replaced, never written through. A regular file keeps its permission bits. Missing
    directories are made; a link on the way raises LinkRefused (or, ``replace_links``, is
    replaced). Returns whether the entry existed. A path past ``limits`` raises."""
    parts = split(rel)
    check_path(rel, limits)
    if not parts:
        raise IsADirectoryError(errno.EISDIR, "is the workspace root", rel)
    if len(data) > limits.max_file_bytes:
        raise TreeLimitExceeded(Limit.FILE_BYTES, rel, f"{len(data)} bytes > {limits.max_file_bytes}")
    journal = _OWN_TEMPS.get()
    with root_fd(root) as rfd:
        if journal is not None and not journal.covers(rfd):
            journal = None  # a write under another root than the journal's (a scratch copy)
        dfd = _make_dirs(rfd, parts[:-1], replace_links=replace_links)
    try:
        name = parts[-1]
        st = lstat_at(dfd, name)
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
        mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else 0o644
        tmp = f".hx-write-{secrets.token_hex(8)}"
        fd = os.open(tmp, _CREATE, 0o600, dir_fd=dfd)
        if journal is not None:
            journal.enter("/".join([*parts[:-1], tmp]), mode)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                os.fchmod(fh.fileno(), mode)
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
            raise
        return st is not None
    finally:
        os.close(dfd)


def unlink(root: Path | str, rel: str) -> bool:
    """Remove the entry at rel (a link is removed, never followed); False if absent;
    IsADirectoryError for a directory."""
    with root_fd(root) as rfd:
        try:
            dfd, name = _parent(rfd, rel)
        except FileNotFoundError:
            return False
    try:
        st = lstat_at(dfd, name)
        if st is None:
            return False
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
        os.unlink(name, dir_fd=dfd)
        return True
    finally:
        os.close(dfd)


def check_path(rel: str, limits: TreeLimits = DEFAULT_LIMITS) -> None:
    """TreeLimitExceeded if rel alone is past the depth or path-length limit."""
    if len(os.fsencode(rel)) > limits.max_path_bytes:
        raise TreeLimitExceeded(Limit.PATH_BYTES, rel[:80] + "...", f"{len(os.fsencode(rel))} bytes > "
                                f"{limits.max_path_bytes}")
    if len(split(rel)) - 1 > limits.max_depth:
        raise TreeLimitExceeded(Limit.DEPTH, rel[:80], f"{len(split(rel)) - 1} levels > {limits.max_depth}")


# -- whole trees -------------------------------------------------------------------------------
@dataclass
class Entry:
    """One entry of a walk: ``rel`` (posix, relative to the root), its lstat, and the open
    descriptor of its directory with its name there (valid only until the walk moves on).
    ``over`` is set (and ``st`` None) where a limit struck: the walk reports it and goes on
    elsewhere (depth, path length), or stops (entry count)."""
    rel: str
    st: os.stat_result | None
    dirfd: int
    name: str
    over: TreeLimitExceeded | None = None


def walk(root: Path | str, limits: TreeLimits = DEFAULT_LIMITS, *, skip_names: frozenset[str] = frozenset(),
         skip_suffixes: tuple[str, ...] = ()) -> Iterator[Entry]:
    """Every entry under root, directories before their contents, in sorted order, iteratively
    (no recursion; one directory descriptor open at a time), no link followed, directories
    descended only within ``limits``. Entries named in ``skip_names`` or ending in
    ``skip_suffixes`` are left out (and not descended)."""
    count = 0
    with root_fd(root) as rfd:
        stack: list[tuple[str, int]] = [("", 0)]
        while stack:
            rel_dir, depth = stack.pop()
            try:
                fd = open_dir(rfd, split(rel_dir)) if rel_dir else os.dup(rfd)
            except (LinkRefused, NotADirectoryError, FileNotFoundError):
                continue  # swapped for a link or removed since it was listed: not followed
            try:
                subdirs = []
                for name in sorted(os.listdir(fd)):
                    if name in skip_names or name.endswith(skip_suffixes):
                        continue
                    rel = rel_dir + name
                    count += 1
                    if count > limits.max_entries:
                        yield Entry(rel, None, fd, name, TreeLimitExceeded(
                            Limit.ENTRIES, rel, f"more than {limits.max_entries} entries"))
                        return
                    st = lstat_at(fd, name)
                    if st is None:
                        continue
                    if len(os.fsencode(rel)) > limits.max_path_bytes:
                        yield Entry(rel, None, fd, name, TreeLimitExceeded(
                            Limit.PATH_BYTES, rel[:80] + "...", f"a path longer than {limits.max_path_bytes} bytes"))
                        continue
                    if stat.S_ISDIR(st.st_mode) and depth + 1 > limits.max_depth:
                        yield Entry(rel, None, fd, name, TreeLimitExceeded(
                            Limit.DEPTH, rel[:80], f"directories deeper than {limits.max_depth} levels"))
                        continue
                    yield Entry(rel, st, fd, name)
                    if stat.S_ISDIR(st.st_mode):
                        subdirs.append((rel + "/", depth + 1))
                stack.extend(reversed(subdirs))
            finally:
                os.close(fd)


def check_tree(root: Path | str, limits: TreeLimits = DEFAULT_LIMITS, **skip) -> None:
    """TreeLimitExceeded at the first limit the tree is past (metadata only: nothing is read)."""
    total = 0
    for e in walk(root, limits, **skip):
        if e.over is not None:
            raise e.over
        total = add_size(e, total, limits)


def add_size(e: Entry, total: int, limits: TreeLimits) -> int:
    """The running total size with e's file added; TreeLimitExceeded past a size limit."""
    if e.st is None or not stat.S_ISREG(e.st.st_mode):
        return total
    if e.st.st_size > limits.max_file_bytes:
        raise TreeLimitExceeded(Limit.FILE_BYTES, e.rel, f"{e.st.st_size} bytes > {limits.max_file_bytes}")
    total += e.st.st_size
    if total > limits.max_total_bytes:
        raise TreeLimitExceeded(Limit.TOTAL_BYTES, e.rel, f"the files' sizes sum past {limits.max_total_bytes} bytes")
    return total


def rmtree(path: Path | str) -> None:
    """Remove a tree without recursion and without following links, however deep (a ten-thousand
    level chain overflows ``shutil.rmtree``'s recursion): each directory's subdirectories are
    renamed up to the top before it is removed, so at most two directories are open at a time.
    Errors are ignored (the tree is scratch)."""
    path = os.fspath(path)
    try:
        top = os.open(path, _DIR)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    tag, n = secrets.token_hex(6), 0
    pending: list[str | None] = [None]  # None: the top directory itself
    try:
        while pending:
            name = pending.pop()
            try:
                fd = os.dup(top) if name is None else os.open(name, _DIR, dir_fd=top)
            except OSError:
                continue
            try:
                with contextlib.suppress(OSError):
                    os.fchmod(fd, 0o700)
                for child in os.listdir(fd):
                    st = lstat_at(fd, child)
                    if st is not None and stat.S_ISDIR(st.st_mode):
                        new = f".hx-rm-{tag}-{n}"
                        n += 1
                        with contextlib.suppress(OSError):
                            os.rename(child, new, src_dir_fd=fd, dst_dir_fd=top)
                            pending.append(new)
                    else:
                        with contextlib.suppress(OSError):
                            os.unlink(child, dir_fd=fd)
            finally:
                os.close(fd)
            if name is not None:
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=top)
    finally:
        os.close(top)
    with contextlib.suppress(OSError):
        os.rmdir(path)
