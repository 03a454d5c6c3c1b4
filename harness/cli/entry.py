"""The ``harness`` console script's entry point: a signal during start-up is one line, not a traceback.

Importing the command line (``harness.cli.cli``: click, the protocol models, plug-ins; the
analysis, corpus, viewer and interop commands load later, on use) takes a second or more on a
loaded machine. A Ctrl-C (SIGINT) or ``kill PID`` (SIGTERM)
in that window used to print a ``KeyboardInterrupt`` traceback from whichever import it
interrupted. ``main`` installs ``harness.cli.startup.on_startup_signal`` first, before any import beyond
that module (the standard library's ``os`` and ``signal``); it stays until the command group arms
the command's own handler (one STOPPED line, exit 4) as it dispatches.
Nothing has been written before a command runs, so the exit is immediate: exit 4, docs/reference/exit-codes.md's
code for a signal.
"""
from __future__ import annotations

from harness.cli.startup import guard_startup, mark_program, signal_point


def main():
    """The console script: guard, import the command line, run it. The start-up guard stays until
    the command group arms the command's own handler as it dispatches (``harness.cli.startup``),
    so no instant between the first instruction and the command is unguarded."""
    guard_startup()
    mark_program()
    signal_point("startup")
    from harness.cli.cli import main as cli_main
    return cli_main()
