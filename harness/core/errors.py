"""Errors for bad input: each names the file, the line (when there is one) and the field."""
from __future__ import annotations


class InputError(Exception):
    """Bad user input. Rendered as 'FILE[:LINE]: FIELD: what was expected'."""

    def __init__(self, file: str, field: str, message: str, line: int | None = None):
        self.file, self.field, self.line, self.message = str(file), field, line, message
        where = f"{self.file}:{line}" if line is not None else self.file
        super().__init__(f"{where}: {field}: {message}")
