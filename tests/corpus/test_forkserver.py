"""corpus/forkserver.py ``_parsed_sources``: a server parses, before it forks, the files a child's failure report
parses (pytest's and pluggy's own, the suite's test files); the lookup is by the text parsed, so what a report shows
(each frame's statement range) is what a fresh parse gives, and a text not parsed there is parsed as before."""
from __future__ import annotations

import ast
import linecache
import warnings
from pathlib import Path

import _pytest.main
import pytest
from _pytest._code import code, source

from corpus import forkserver


def _frame_source(path: str) -> source.Source:
    src = source.Source()  # as pytest's ``findsource`` makes a frame's whole-file source
    src.lines = [line.rstrip() for line in linecache.getlines(path)]
    return src


@pytest.fixture
def parsed(monkeypatch):
    """``_parsed_sources`` installed for one test (pytest's own names restored after it)."""
    full = source.getstatementrange_ast
    monkeypatch.setattr(source, "getstatementrange_ast", full)
    monkeypatch.setattr(code, "getstatementrange_ast", full)
    forkserver._parsed_sources([__file__])
    assert source.getstatementrange_ast is not full and code.getstatementrange_ast is source.getstatementrange_ast
    return full


@pytest.mark.parametrize("path", [_pytest.main.__file__, __file__], ids=["pytest-main", "a-test-file"])
def test_every_statement_range_is_a_fresh_parses(parsed, path):
    src = _frame_source(path)
    fresh = ast.parse(str(src), "source", "exec")  # (parsed here, apart from the server's)
    assert ast.dump(source.getstatementrange_ast(0, src)[0]) == ast.dump(fresh)
    for lineno in range(len(src.lines)):
        assert source.getstatementrange_ast(lineno, src)[1:] == parsed(lineno, src, False, fresh)[1:], lineno


def test_a_text_parsed_before_the_fork_is_not_parsed_again(parsed):
    src = _frame_source(_pytest.main.__file__)
    assert source.getstatementrange_ast(10, src)[0] is source.getstatementrange_ast(20, src)[0]  # the one parse
    other = source.Source("x = 1\ny = 2\n")
    assert source.getstatementrange_ast(0, other)[0] is not source.getstatementrange_ast(0, other)[0]


def test_a_parse_the_test_replaced_is_called_as_pytest_calls_it(parsed, monkeypatch):
    """A test's monkeypatch of ``ast.parse`` is in force while its failure is reported: the cold run's report calls it
    (red team rv-speed: one that raises made the cold run an INTERNALERROR and the fork child a plain failure)."""
    calls = []
    real = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **k: calls.append(a[1:]) or real(*a, **k))
    source.getstatementrange_ast(10, _frame_source(_pytest.main.__file__))
    assert calls == [("source", "exec")]


def test_a_hit_raises_the_parses_audit_event(parsed):
    import sys
    seen: list = []
    on = [True]  # (an audit hook cannot be removed: it records only while this test runs)
    sys.addaudithook(lambda event, args: seen.append(args[1]) if on[0] and event == "compile" else None)
    try:
        source.getstatementrange_ast(10, _frame_source(_pytest.main.__file__))
    finally:
        on[0] = False
    assert "source" in seen


def test_a_text_not_parsed_before_is_parsed_as_before(parsed):
    src = source.Source("def f():\n    x = 1\n\n    return x\n")
    assert source.getstatementrange_ast(1, src)[1:] == parsed(1, src)[1:] == (1, 2)
    with pytest.raises(SyntaxError):
        source.getstatementrange_ast(0, source.Source("def f(:\n"))


def test_the_warnings_filters_are_as_the_parse_left_them(parsed):
    before = list(warnings.filters)
    source.getstatementrange_ast(3, _frame_source(_pytest.main.__file__))
    source.getstatementrange_ast(1, source.Source("x = 1\ny = 2\n"))
    assert warnings.filters == before


def test_installed_once(parsed):
    installed = source.getstatementrange_ast
    forkserver._parsed_sources([str(Path(__file__))])
    assert source.getstatementrange_ast is installed
