"""minijson 2.0.1: a tiny JSON facade (vendored). See CHANGELOG.md for the 1.x -> 2.x changes."""
import json

__version__ = "2.0.1"


class JSONError(Exception):
    """Raised by loads() for malformed input. Carries .line and .column."""

    def __init__(self, message, line, column):
        super().__init__(f"{message} at line {line} column {column}")
        self.line = line
        self.column = column


def loads(text, *, allow_nan=False):
    """Parse JSON text into Python objects. NaN/Infinity are rejected unless allow_nan."""
    def _reject(token):
        raise ValueError(f"non-finite number {token}")
    try:
        if allow_nan:
            return json.loads(text)
        return json.loads(text, parse_constant=_reject)
    except json.JSONDecodeError as exc:
        raise JSONError(exc.msg, exc.lineno, exc.colno) from None
    except ValueError as exc:
        raise JSONError(str(exc), 1, 1) from None


def dumps(obj, *, indent=None, sort_keys=False):
    """Serialise obj to JSON text."""
    return json.dumps(obj, indent=indent, sort_keys=sort_keys)
