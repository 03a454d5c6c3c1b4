"""Text that can always be written: file names are bytes, and a name that is not UTF-8 must never
crash a run (issue 10). Python reads such a name as a str with lone surrogates
(``surrogateescape``); anything the harness writes (records, logs, messages to a model) shows it
with its raw bytes escaped instead (``b'\\xff.py'`` becomes ``\\xff.py``)."""
from __future__ import annotations


def printable(s: str) -> str:
    """``s`` with every lone surrogate (an undecodable byte of a file name) shown as \\xNN."""
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogateescape" if _only_escapes(s) else "surrogatepass").decode(
            "utf-8", "backslashreplace")


def _only_escapes(s: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in s)


def printable_obj(obj):
    """``printable`` applied to every string (keys included) of a JSON-like value."""
    if isinstance(obj, str):
        return printable(obj)
    if isinstance(obj, dict):
        return {printable_obj(k): printable_obj(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [printable_obj(v) for v in obj]
    return obj
