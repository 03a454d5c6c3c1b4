"""Red team of issue 26's changed lines (``coverage_map.changed_lines``): a line number there must be
Python's (the tokenizer's: \\n, \\r\\n, \\r), or the coverage map looks up another line's tests.

Formerly ``tests/corpus/test_changed_lines_r26.py``, named after its origin."""
from __future__ import annotations

from pathlib import Path

from corpus.catalogue import Loop
from corpus.coverage_map import changed_lines, changed_lines_difflib
from corpus.measure import measure

# U+2028, U+0085, a form feed, U+2029 and \\x1c end a line for str.splitlines, not for Python
SEPS = "\u2028\x85\x0c\u2029\x1c"


def test_changed_lines_count_lines_as_python_does():
    src = f'S = "{SEPS}"\r\ndef add(a, b):\r\n    return a + b\n'
    mut = src.replace("a + b", "a - b")
    assert changed_lines(src, mut) == {3}
    assert changed_lines_difflib(src, mut) == {3}


def test_a_mutant_below_a_line_separator_in_a_string_is_killed(tmp_path: Path):
    """The mutant of ``add`` was looked up five lines down, in ``neg``'s body: only test_neg ran
    and the mutant survived, though test_add kills it."""
    d = tmp_path
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(f'S = "{SEPS}"\n\n\ndef add(a, b):\n    c = a + b\n    return c\n\n\n'
                                       "def neg(x):\n    return -x\n", encoding="utf-8")
    (d / "tests").mkdir()
    (d / "tests" / "test_add.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    (d / "tests" / "test_neg.py").write_text("from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n")
    (d / "gate.toml").write_text('[gate]\nname = "calc"\nkind = "pytest"\ntests = "tests"\n')
    loop = Loop(id="calc", dir=d, title="calc", domains=["software"], requirement="(test)", kind="python",
                target="calc.py", artifact_dir=d / "art", hints={"role": "code"}, not_applicable=(),
                gate_paths=[d / "gate.toml"])
    m = measure([loop], families=("fine",), tier2=False, workers=1)
    rows = {m.mutants[r.mutant].note: r for r in m.rows if not r.is_control}
    row = next(r for k, r in rows.items() if "a + b -> a - b" in k)
    assert row.verdict == "reject", row
