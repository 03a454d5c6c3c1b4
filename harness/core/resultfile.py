"""Reading a file that a confined run could have replaced (its observations, its JUnit report).

The run's scratch directory is writable by the code under test, so whatever lies at a result
path may be a symlink to a host file or a FIFO that blocks its reader forever. The harness reads
such a path only through ``read_result``: opened with ``O_NOFOLLOW | O_NONBLOCK`` (a link is
refused, a FIFO never blocks the open), accepted only if ``fstat`` says it is a regular file, and
read up to a limit. Anything else is reported, never followed or waited for.
"""
from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ResultFile:
    data: bytes | None  # None: missing or refused (see ``problem``)
    problem: str | None = None  # why it was refused (a link, a FIFO, a directory...); None if missing or read
    truncated: bool = False  # longer than the limit: ``data`` holds the first ``limit`` bytes


def read_result(path: Path, limit: int) -> ResultFile:
    """The first ``limit`` bytes of the regular file at ``path`` (see the module docstring)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return ResultFile(None)
    except OSError as exc:
        code = exc.errno  # None when the OSError carries no errno
        name = errno.errorcode.get(code, code) if code is not None else None
        why = "a symbolic link" if code == errno.ELOOP else f"unreadable ({name})"
        return ResultFile(None, f"{Path(path).name} is {why}, not a regular file")
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a directory" if stat.S_ISDIR(mode) else "a special file"
            return ResultFile(None, f"{Path(path).name} is {kind}, not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        return ResultFile(data[:limit], None, len(data) > limit)
    finally:
        os.close(fd)
