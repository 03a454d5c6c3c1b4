"""Crash-safe state files and bounded readers for everything the harness rewrites or reads as JSON.

``write_atomic`` is how every rewritten state file (``run.json``, ``records.head``, ``spend.json``,
a protocol's lock, a loop run's summary) reaches the disk: written to a temporary file in the
same directory, fsynced, renamed over the target, and the directory fsynced. A kill or a full
disk at any step leaves either the old file or the new one, never an empty or half-written one
(issue 25: an open-truncate-then-write ``run.json`` left runs no command could recover).

``loads`` is ``json.loads`` with a nesting bound: a file nested deeper than ``MAX_DEPTH`` (for
example a lock nested 100,000 deep, which made the C decoder raise ``RecursionError``) is a
``ValueError`` like any other malformed JSON, so callers report it as bad input in one line.

Reading a file (refusing a FIFO, a device, a link, an oversized file) is ``harness.core.runio``'s
one safe reader, not this module's.
"""
from __future__ import annotations

import json
import os
import stat
import uuid
from pathlib import Path

MAX_DEPTH = 200  # no file the harness writes nests deeper than a dozen levels


def fsync_dir(path: Path) -> None:
    """Make a rename or creation in ``path`` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path | str, data: str | bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data``: temp file in the same directory, fsync, rename, fsync the directory.
    On any error the temporary file is removed and the old ``path`` is untouched."""
    path = Path(path)
    raw = data.encode() if isinstance(data, str) else data
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def write_json(path: Path | str, obj, mode: int = 0o644) -> None:
    """``write_atomic`` of ``obj`` as indented, key-sorted JSON with a final newline."""
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n", mode)


def depth_of(text: str, limit: int = MAX_DEPTH) -> int:
    """The bracket nesting depth of JSON ``text`` outside strings, scanning at most until ``limit`` is passed."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > best:
                best = depth
                if best > limit:
                    return best
        elif ch in "]}":
            depth -= 1
    return best


def obj_depth(obj, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of lists/tuples/dicts in ``obj``, counted without recursion (so an object
    nested past the interpreter's recursion limit is measured, not crashed on); stops past ``limit``."""
    best = 0
    stack = [(obj, 1)]
    while stack:
        o, d = stack.pop()
        if isinstance(o, (list, tuple, dict)):
            if d > best:
                best = d
                if best > limit:
                    return best
            stack.extend((v, d + 1) for v in (o.values() if isinstance(o, dict) else o))
    return best


def loads(text: str | bytes, max_depth: int = MAX_DEPTH):
    """``json.loads`` that raises ``ValueError`` (never ``RecursionError``) for input nested past ``max_depth``."""
    if isinstance(text, bytes):
        text = text.decode()
    try:
        obj = json.loads(text)
    except RecursionError:
        raise ValueError(f"nested deeper than {max_depth} levels") from None
    if isinstance(obj, (dict, list)) and depth_of(text, max_depth) > max_depth:
        raise ValueError(f"nested deeper than {max_depth} levels")
    return obj


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISREG, "regular file"), (stat.S_ISLNK, "symbolic link"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory")):
        if test(mode):
            return name
    return "special file"
