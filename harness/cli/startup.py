"""The start-up signal guard: a SIGINT or SIGTERM while the harness is still importing is one line
and exit 4 (the README's exit table), never a traceback. ``harness.cli.entry.main`` guards the
command line's own imports; ``harness.cli.cli.load_command`` guards a lazy command's."""
from __future__ import annotations

import os
import signal

STARTUP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def on_startup_signal(signum, frame) -> None:
    """A signal before any command ran: one line, exit 4 (the README's exit table), nothing written."""
    name = signal.Signals(signum).name
    os.write(2, f"STOPPED: {name} while the harness was starting, before any command ran; nothing was "
                "run or written\n".encode())
    os._exit(4)


def guard_startup() -> dict:
    """Install ``on_startup_signal`` for SIGINT and SIGTERM; returns the handlers it replaced. A
    signal the parent set to be ignored (``nohup``, a background job) stays ignored: the guard
    must not make the harness stoppable by a signal meant for its parent."""
    previous = {}
    for sig in STARTUP_SIGNALS:
        try:
            if signal.getsignal(sig) == signal.SIG_IGN:
                continue
            previous[sig] = signal.signal(sig, on_startup_signal)
        except ValueError:  # not the main thread (an embedding caller): signals stay as they were
            break
    return previous


def end_startup(previous: dict) -> None:
    """Put back the handlers ``guard_startup`` replaced."""
    for sig, handler in previous.items():
        signal.signal(sig, handler)
