"""The one TOML loader: read a TOML file by the safe reader and parse it with its nesting bounded,
turning syntax errors into InputError with the file and line.

``tomllib`` parses inline arrays and tables by recursion: a 200 KB file of 100,000 ``[`` is a
``RecursionError`` traceback, not a line naming the file. So the text is pre-scanned for its
bracket depth (outside strings and comments) before ``tomllib.loads``, and the parsed document's
depth is measured without recursion after it (dotted keys nest without brackets): past
``MAX_DEPTH`` (200, the JSON readers' bound) it is one ``InputError`` naming the file and line.
Every TOML input goes through ``parse_toml`` (a protocol, a graph, a task, a gate, hints, a
pyproject, an artifact of kind toml).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.core.errors import InputError
from harness.core.statefile import MAX_DEPTH, obj_depth

TOML_BYTES = 64 << 20  # a protocol, a graph or a task file is a few KiB


def toml_depth(text: str, limit: int = MAX_DEPTH) -> tuple[int, int]:
    """(the bracket depth of TOML ``text`` outside strings and comments, the line where it passed
    ``limit``, or 0), scanning at most until ``limit`` is passed; a character scan, no recursion."""
    depth = best = 0
    line = 1
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif ch in "\"'":
            quote = ch * 3 if text.startswith(ch * 3, i) else ch
            j = i + len(quote)
            while j < n:
                if ch == '"' and text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j) or (len(quote) == 1 and text[j] == "\n"):
                    break
                j += 1
            line += text.count("\n", i, j)
            i = j + len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if depth > best:
                best = depth
                if best > limit:
                    return best, line
        elif ch in "]}":
            depth -= 1
        i += 1
    return best, 0


def parse_toml(text: str, where: str, max_depth: int = MAX_DEPTH) -> dict:
    """``tomllib.loads`` of ``text`` with its nesting bounded: ``InputError`` naming ``where`` (and
    the line) for text nested past ``max_depth`` or not TOML; never a ``RecursionError``."""
    if text.count("[") + text.count("{") > max_depth:
        depth, line = toml_depth(text, max_depth)
        if depth > max_depth:
            raise InputError(where, "<syntax>", f"TOML nested deeper than {max_depth} levels", line or None)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(where, "<syntax>", str(exc), int(m.group(1)) if m else None) from exc
    except RecursionError:
        raise InputError(where, "<syntax>", f"TOML nested deeper than {max_depth} levels") from None
    if text.count(".") + text.count("[") + text.count("{") > max_depth and obj_depth(doc, max_depth) > max_depth:
        raise InputError(where, "<syntax>", f"TOML nested deeper than {max_depth} levels (tables or dotted keys)")
    return doc


def load_toml(path: Path) -> dict:
    """The TOML file at ``path``, a file the user named (read by the one safe reader, links followed:
    ``harness.core.runio``'s rule; a FIFO or a device, which would hang or never end, refused)."""
    from harness.core import runio
    try:
        text = runio.read_text(path, "TOML file", limit=TOML_BYTES, follow=True)
    except FileNotFoundError:
        raise InputError(str(path), "<file>", "no such TOML file") from None
    return parse_toml(text, str(path))
