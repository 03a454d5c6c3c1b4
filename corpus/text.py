"""Text a gate printed, made safe to write into a CSV cell, an HTML page or a terminal.

A gate's output is hostile (the artifact under judgment can print anything through it): NUL
bytes, ANSI escape sequences that repaint a terminal, carriage returns that overwrite a CSV
viewer's line, bidirectional overrides that reorder what a reader sees. ``escape_controls``
replaces every such character with a visible escape (``\\x1b``, ``\\u202e``), keeping newlines
and tabs; the rest of the text is unchanged, so nothing a reader needs is lost.
"""
from __future__ import annotations

import re

# C0 and C1 controls except \t and \n, DEL, and the Unicode bidi / zero-width format characters
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def _visible(m: re.Match) -> str:
    c = ord(m.group(0))
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def escape_controls(text: str | None) -> str:
    """``text`` with every control or format character replaced by its escape (see module doc)."""
    return _CONTROLS.sub(_visible, text or "")
