"""A process tree that dies with the harness (issue 25).

A ``kill -9`` of the harness (or the OOM killer) runs no Python code, so nothing the harness does
at exit can stop its pool workers. Instead each child the harness forks asks the kernel, as its
first act, to be sent SIGKILL when its parent dies (``PR_SET_PDEATHSIG``); the sandboxes and warm
zygotes the workers start carry ``--die-with-parent`` themselves, so the whole tree goes.

A forked child also inherits every open file description, including ``run.lock``'s, whose
``flock`` would then outlive the harness in the child: ``close_inherited`` closes the
descriptors the driver registered (``inherit_never``) in every forked worker.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal

PR_SET_PDEATHSIG = 1
_NEVER_INHERIT: set[int] = set()


def inherit_never(fd: int) -> None:
    """Register ``fd`` (e.g. run.lock's) to be closed in every worker the harness forks."""
    _NEVER_INHERIT.add(fd)


def release(fd: int) -> None:
    _NEVER_INHERIT.discard(fd)


def close_inherited() -> None:
    """In a freshly forked child: close the registered descriptors (the parent keeps its own)."""
    for fd in list(_NEVER_INHERIT):
        try:
            os.close(fd)
        except OSError:
            pass
    _NEVER_INHERIT.clear()


def die_with_parent(parent_pid: int | None = None) -> bool:
    """Ask for SIGKILL when the parent dies (Linux ``prctl``); if the parent is already gone
    (``getppid`` no longer ``parent_pid``), exit at once. False where prctl is unavailable."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        ok = libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        ok = False
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(1)
    return ok


def worker_init(parent_pid: int) -> None:
    """A pool worker's initializer: die with the harness, hold none of its locks, and leave
    SIGINT to the harness (a Ctrl-C reaches the whole foreground process group; the harness
    decides what in-flight cells do, harness.run.driver)."""
    die_with_parent(parent_pid)
    close_inherited()
    signal.signal(signal.SIGINT, _ignore)  # a handler, not SIG_IGN: exec'd children get the default back


def _ignore(signum, frame) -> None:
    return None
