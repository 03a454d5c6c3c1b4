"""Read a TOML file, turning syntax errors into InputError with the file and line."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.core.errors import InputError

TOML_BYTES = 64 << 20  # a protocol, a graph or a task file is a few KiB


def load_toml(path: Path) -> dict:
    """The TOML file at ``path``, a file the user named (read by the one safe reader, links followed:
    ``harness.core.runio``'s rule; a FIFO or a device, which would hang or never end, refused)."""
    from harness.core import runio
    try:
        text = runio.read_text(path, "TOML file", limit=TOML_BYTES, follow=True)
    except FileNotFoundError:
        raise InputError(str(path), "<file>", "no such TOML file") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(str(path), "<syntax>", str(exc), int(m.group(1)) if m else None) from exc
