"""Read a TOML file, turning syntax errors into InputError with the file and line."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from harness.core.errors import InputError


def load_toml(path: Path) -> dict:
    from harness.core.statefile import regular_file
    regular_file(path, "<file>", "TOML file", follow=True)  # a FIFO or a device would hang or never end
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise InputError(str(path), "<file>", f"cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(str(path), "<file>", f"not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise InputError(str(path), "<syntax>", str(exc), int(m.group(1)) if m else None) from exc
