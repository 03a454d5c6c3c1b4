"""minijson 1.4.2: a tiny JSON facade (vendored). Deprecated: removed in the next release."""
import json

__version__ = "1.4.2"


class DecodeError(ValueError):
    """Raised by decode() for malformed input."""


def decode(text):
    """Parse JSON text into Python objects."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DecodeError(f"{exc.msg} at line {exc.lineno} column {exc.colno}") from None


def encode(obj, pretty=False):
    """Serialise obj to JSON text. Keys are always sorted."""
    return json.dumps(obj, indent=2 if pretty else None, sort_keys=True)
