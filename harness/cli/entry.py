"""The ``harness`` console script's entry point: a signal during start-up is one line, not a traceback.

Importing the command line (``harness.cli.cli``: click, the protocol models, plug-ins; the
analysis, corpus, viewer and interop commands load later, on use) takes a second or more on a
loaded machine. A Ctrl-C (SIGINT) or ``kill PID`` (SIGTERM)
in that window used to print a ``KeyboardInterrupt`` traceback from whichever import it
interrupted. ``main`` installs ``on_startup_signal`` first, before any import beyond the standard
library's ``os`` and ``signal``, and restores the previous handlers once the imports are done, so
each command's own handling (``harness run``'s STOPPED line, click's) applies from then on.
Nothing has been written before a command runs, so the exit is immediate: exit 4, the README's
code for a signal.
"""
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


def main():
    """The console script: guard, import the command line, unguard, run it."""
    previous = guard_startup()
    from harness.cli.cli import main as cli_main
    end_startup(previous)
    return cli_main()
