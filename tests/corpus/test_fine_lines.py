"""A fine mutant keeps every line of the module where it was (corpus/operators/fine.py ``lines_kept``).

A unit that loses lines (a two-line ``except`` clause removed, a call spread over lines cut to one) is
followed by as many empty lines, so no other function's code moves: a mutant of one function is a
change of that one code object, judged by swapping it into a collected suite, not by a whole-suite
pytest run per mutant (issue 35). The padding is whitespace between statements: the module compiles to
the code the unpadded mutant compiles to, but for positions. Cold and fast paths judge the same text.
"""
from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

from corpus.coverage_map import changed_lines
from corpus.model import ArtifactSpec
from corpus.operators import fine, generate
from corpus.workdir import materialize
from support.calc_project import write_pytest_gate

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "corpus" / "examples"
MODULES = (EXAMPLES / "ordered-set" / "ordered_set" / "__init__.py", EXAMPLES / "isbn" / "isbn.py",
           *(pytest.param(p, marks=pytest.mark.slow) for p in (          # 6-11 s each
               EXAMPLES / "semver" / "semver.py", EXAMPLES / "websocket-abnf" / "websocket" / "_abnf.py",
               ROOT / "corpus" / "coverage_map.py")))
LINE_END = re.compile(r"\r\n?|\n")


def _lines(text: str) -> int:
    return len(LINE_END.findall(text))


def _without_positions(co: types.CodeType) -> tuple:
    """A code object as the interpreter runs it, its line numbers and columns left out."""
    return (co.co_code, co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars, co.co_flags,
            co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount, co.co_name, co.co_qualname,
            co.co_exceptiontable, co.co_stacksize,
            tuple(_without_positions(c) if isinstance(c, types.CodeType) else c for c in co.co_consts))


def _fine(path: Path) -> list:
    return generate(ArtifactSpec("l", "python", path.name, path.read_bytes(), {"role": "code"}), "fine")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: getattr(p, "name", p))
def test_no_mutant_moves_a_line_and_the_padding_is_no_code(path, monkeypatch):
    source = path.read_text()
    padded = _fine(path)
    monkeypatch.setattr(fine, "lines_kept", lambda unit, mutated, prefix=None: mutated)
    plain = _fine(path)
    assert [m.note for m in padded] == [m.note for m in plain]
    moved = 0
    for a, b in zip(padded, plain):
        text = a.content.decode()
        assert _lines(text) >= _lines(source), a.note
        if a.content != b.content:
            moved += 1
            assert _lines(b.content.decode()) < _lines(source) == _lines(text), a.note
            assert _without_positions(compile(text, "m", "exec", dont_inherit=True)) == \
                _without_positions(compile(b.content.decode(), "m", "exec", dont_inherit=True)), a.note
    if path.parent.name in ("ordered_set", "semver", "websocket"):
        assert moved, "the bench modules have multi-line statements a mutant shortens"


@pytest.mark.parametrize(("unit", "mutated", "want"), [
    ("try:\n    f()\nexcept E:\n    pass\n", "f()\n", "f()\n\n\n\n"),
    ("try:\r\n    f()\r\nexcept E:\r\n    pass\r\n", "f()\r\n", "f()\r\n\r\n\r\n\r\n"),   # the file's own line end
    ("x = g(\n    1)\n", "x = g()\n", "x = g()\n\n"),
    ("x = g(1)\n", "x = g(\n    1)\n", "x = g(\n    1)\n"),         # a longer unit is left as it is
    ("x = g(\n    1)", "x = g()", "x = g()"),                       # the file's last line, no line end: as it is
    ("def f():\n    return g(\n        1)\n\n", "def f():\n    return\n\n",   # before the unit's own blank lines
     "def f():\n    return\n\n\n"),
    ("def f():\n    return g(\n        1)\n    # c\n \n", "def f():\n    return\n    # c\n \n",
     "def f():\n    return\n\n    # c\n \n"),                      # where the change ends
    ('s = f(1,\n      2) + """\ntail"""\n', 's = f(1) + """\ntail"""\n',   # not inside a string: after the unit
     's = f(1) + """\ntail"""\n\n'),
])
def test_lines_kept(unit, mutated, want):
    assert fine.lines_kept(unit, mutated) == want


CALC = '''class Calc:
    def parse(self, text):
        value = None
        try:
            value = int(text)
        except ValueError:
            value = None
        return value

    @staticmethod
    def total(items):
        return sum(
            Calc().parse(i) or 0
            for i in items
        )
'''
TESTS = '''from calc import Calc


def test_parse():
    assert Calc().parse("3") == 3


def test_total():
    assert Calc.total(["1", "x", "2"]) == 3
'''


def test_a_removed_two_line_handler_is_judged_by_swapping_its_function(tmp_path):
    """Removing ``except ValueError: return None`` shortens ``parse`` by two lines; ``total`` below it keeps its
    lines, so the mutant changes ``parse``'s code alone and is judged by a swap, with the fork path's verdict
    (test_total's ``"x"`` now raises: rejected). The empty lines go where the removed clause was, before
    ``return value``: after it, the changed lines would reach the blank line after the method (difflib counts
    the lines on both sides of an insertion), outside any function, and select the whole suite, as on
    ordered-set's ``update``."""
    from corpus.fast_pytest import PytestSession
    from corpus.gates import judge, load_gate
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    gate = load_gate(write_pytest_gate(tmp_path, "lines"))
    mutant = next(m for m in _fine(tmp_path / "art" / "calc.py") if m.operator == "remove_handler")
    assert _lines(mutant.content.decode()) == _lines(CALC)
    assert changed_lines(CALC, mutant.content.decode()) == {4, 6, 7}
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.swapping
        swapped = s.judge(mutant)
        s.swapping = False
        forked = s.judge(mutant)
    cold = judge(gate, materialize(tmp_path / "art", mutant, tmp_path / "cold"), "calc.py")
    assert swapped.executor == "swap" and forked.executor == "fork"
    assert swapped.judgement.verdict == forked.judgement.verdict == cold.verdict
    assert cold.verdict.value == "reject"
