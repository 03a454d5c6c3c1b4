"""The ``harness`` console script's entry point: a signal during start-up is one line, not a traceback.

Importing the command line (``harness.cli.cli``: click, the protocol models, plug-ins; the
analysis, corpus, viewer and interop commands load later, on use) takes a second or more on a
loaded machine. A Ctrl-C (SIGINT) or ``kill PID`` (SIGTERM)
in that window used to print a ``KeyboardInterrupt`` traceback from whichever import it
interrupted. ``main`` installs ``harness.cli.startup.on_startup_signal`` first, before any import beyond
that module (the standard library's ``os`` and ``signal``), and restores the previous handlers once the imports are done, so
each command's own handling (``harness run``'s STOPPED line, click's) applies from then on.
Nothing has been written before a command runs, so the exit is immediate: exit 4, the README's
code for a signal.
"""
from __future__ import annotations

from harness.cli.startup import end_startup, guard_startup


def main():
    """The console script: guard, import the command line, unguard, run it."""
    previous = guard_startup()
    from harness.cli.cli import main as cli_main
    end_startup(previous)
    return cli_main()
