"""The harness's exception root, its exit codes, and the bad-input error.

``HarnessError`` is the one root every exception class the harness defines derives from (a
test checks it), so a caller can tell "the harness refused or failed" from a bug in a library.
``ExitCode`` is the closed set of exit codes the command line uses; which exception ends in which
code is one table, ``harness.core.exits.EXIT_CODES`` (docs/reference/exit-codes.md).
Standard library only: every layer may import this module.
"""
from __future__ import annotations

from enum import IntEnum


class HarnessError(Exception):
    """Root of every exception class defined in ``harness`` (apart from the standalone files that
    run outside the harness process; see tests/harness/core/test_exits.py for the named ones)."""


class ExitCode(IntEnum):
    """The command line's exit codes. ``harness run``'s are docs/reference/exit-codes.md's fault table (a test keeps
    the two in agreement); ``CHECK_FAILED`` is the verdict of a check command (ledger verify,
    tasks validate, reproduce)."""

    OK = 0  # all cells scored (run); intact (verify)
    CHECK_FAILED = 1  # a check found a problem
    BAD_INPUT = 2  # one line naming file, line and field; nothing written
    INCOMPLETE = 3  # cells left void after the rerun policy
    STOPPED = 4  # the run stopped early (credentials, disk, spend ceiling, a signal); --resume continues


class InputError(HarnessError):
    """Bad user input. Rendered as 'FILE[:LINE]: FIELD: what was expected'."""

    def __init__(self, file: str, field: str, message: str, line: int | None = None):
        self.file, self.field, self.line, self.message = str(file), field, line, message
        where = f"{self.file}:{line}" if line is not None else self.file
        super().__init__(f"{where}: {field}: {message}")
