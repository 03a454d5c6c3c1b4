"""One table from exception class to the command line's exit code (``EXIT_CODES``), read by the
``harness`` command group and kept equal to docs/reference/exit-codes.md's fault table by a test.

An exception is looked up along its class's MRO, so a subclass (``LinkRefused`` under
``PathError``) takes its base's code unless it has its own row. Exceptions outside the table are
bugs: the command line lets them surface. ``OSError`` outside a cell is a full disk or a file the
run cannot write: the run stops (exit 4), the ledger is as it was, ``--resume`` continues.
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.core.errors import ExitCode, InputError
from harness.core.registry import RegistryError

EXIT_CODES: dict[type[BaseException], ExitCode] = {
    InputError: ExitCode.BAD_INPUT,  # a protocol, lock, transcript, option or run directory
    RegistryError: ExitCode.BAD_INPUT,  # a plug-in that cannot be loaded
    OSError: ExitCode.STOPPED,  # outside a cell: a full disk, a run file that cannot be written
}

# the codes ``harness run`` ends with: the table's, and those a finished run reports (RunOutcome)
RUN_EXIT_CODES = frozenset({ExitCode.OK, ExitCode.INCOMPLETE, ExitCode.STOPPED, *EXIT_CODES.values()})


def exit_code_for(exc: BaseException) -> ExitCode | None:
    """The exit code of ``exc`` (the first of its classes, in MRO order, with a row), or None."""
    for cls in type(exc).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return None


def handled() -> tuple[type[BaseException], ...]:
    """The exception classes with a row (for an ``except`` clause)."""
    return tuple(EXIT_CODES)


@dataclass(frozen=True)
class CommandExits:
    """What one command ends with: every exit code it can end with, the code a SIGINT or SIGTERM
    ends it with (harness.cli.startup: one STOPPED line), and the code a full or read-only disk
    ends it with (harness.core.runio.NoSpace: one line naming what to free and the command to
    rerun; 4 where the command keeps state a rerun continues, 2 for an output that is simply not
    written). docs/reference/exit-codes.md's "Exit codes of every command" table is this one (tests/harness/core/test_exits.py)."""
    codes: frozenset[int]
    signal: int
    disk: int


def _cmd(codes: tuple[int, ...], signal: int = 4, disk: int = 2) -> CommandExits:
    return CommandExits(frozenset(codes) | {signal, disk}, signal, disk)


COMMAND_EXITS: dict[str, CommandExits] = {
    "run": _cmd((0, 2, 3, 4), disk=4),  # also `run --resume`
    "loop run": _cmd((0, 2, 4), disk=4),
    "corpus measure": _cmd((0, 1, 2, 4, 130), signal=130, disk=4),
    "analyze": _cmd((0, 2)),
    "compare": _cmd((0, 2)),
    "view": _cmd((0, 2)),
    "monitor": _cmd((0, 2)),
    "export inspect": _cmd((0, 2)),
    "reproduce": _cmd((0, 1, 2)),
    "ledger verify": _cmd((0, 1, 2)),
    "other": _cmd((0, 1, 2)),  # protocol, plan, tasks, plugins, schema, power, import, ledger anchor/keygen,
    # export bundle, receipts verify, rejudge
}


def command_exits(words: list[str]) -> CommandExits:
    """The row of ``COMMAND_EXITS`` for a command line's leading words (``["corpus", "measure"]``)."""
    for n in (2, 1):
        key = " ".join(words[:n])
        if key in COMMAND_EXITS:
            return COMMAND_EXITS[key]
    return COMMAND_EXITS["other"]
