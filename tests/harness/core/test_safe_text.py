"""harness.core.safe_text: a file name that is not UTF-8 is shown with its raw bytes escaped, and
never crashes what writes it (issue 10)."""
from __future__ import annotations

import json
import os

from harness.core.safe_text import printable, printable_obj


def test_a_utf8_name_is_itself():
    assert printable("café/ü.py") == "café/ü.py"


def test_an_undecodable_byte_of_a_name_is_shown_as_its_escape(tmp_path):
    os.close(os.open(os.path.join(os.fsencode(tmp_path), b"\xff.py"), os.O_CREAT | os.O_WRONLY, 0o644))
    (name,) = os.listdir(tmp_path)  # Python reads it with a lone surrogate (surrogateescape)
    shown = printable(name)
    assert shown == "\\xff.py"
    assert json.dumps(shown).encode("utf-8")  # writable anywhere


def test_a_lone_surrogate_that_is_no_escaped_byte_is_still_printable():
    shown = printable("a\ud800b")  # not from surrogateescape: kept as its UTF-8 bytes, escaped
    shown.encode("utf-8")
    assert shown.startswith("a") and shown.endswith("b") and "\\x" in shown


def test_every_string_of_a_json_value_keys_included():
    out = printable_obj({"\udcff": ["x\udcfe", 3, ("\udcfd",)], "ok": None})
    assert out == {"\\xff": ["x\\xfe", 3, ["\\xfd"]], "ok": None}
    json.dumps(out).encode("utf-8")
