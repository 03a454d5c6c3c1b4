"""One table from exception class to the command line's exit code (``EXIT_CODES``), read by the
``harness`` command group and kept equal to the README's fault table by a test.

An exception is looked up along its class's MRO, so a subclass (``LinkRefused`` under
``PathError``) takes its base's code unless it has its own row. Exceptions outside the table are
bugs: the command line lets them surface. ``OSError`` outside a cell is a full disk or a file the
run cannot write: the run stops (exit 4), the ledger is as it was, ``--resume`` continues.
"""
from __future__ import annotations

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
