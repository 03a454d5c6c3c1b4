"""A forked child formats its reports as the cold run does, parse for parse, whatever the suite does to the parser.

Red team helper-131 against b2800bc (not landed): a server parsed the suite's test files and pytest's
interrupted-session modules before forking, and ``getstatementrange_ast`` reused a tree for the identical text
(issue 35: a forked child 250 -> 160-180 ms on ordered-set). The trees were right; what differed is that the cold
run parses while it formats, inside the tested process, where the code under test can see it: 5 of these cases
changed the verdict and 3 the report. The change was dropped (docs/mutation.md, Measurements, 2026-12-07
afternoon); every case passes on main and is the spec, beside test_rv2_attacks.py and test_rv_speed_attacks.py
(the same class, against the earlier ``_parsed_sources``).

Each test compares the fork child's (exit code, verdict) -- and where it says so, its output lines -- with the
cold run's (``python -m pytest`` with the same args), as test_fork_reports_attacks._both does, but with a server
given the suite's test files as ``rewrite`` (what PytestSession starts it with)."""
import re

from tests.corpus.test_fork_reports_attacks import fork_and_cold


def _lines(text: str) -> list[str]:
    """Output lines without timings and addresses."""
    text = re.sub(r" in \d+\.\d+s( \([^)]*\))?", " in Ns", text)
    text = re.sub(r"0x[0-9a-f]+", "0xADDR", text)
    return text.splitlines()


def _both(tmp_path, tests: dict[str, str], artifact: dict[str, str]):
    """(fork verdict, cold verdict, fork output, cold output) of the suite ``tests`` on ``artifact``,
    the fork server started with the suite's test files (test_fork_reports_attacks.fork_and_cold)."""
    return fork_and_cold(None, tmp_path, tests, artifact)


HALF = {"mod.py": "def half(v):\n    return v // 2\n"}      # a mutant: half(4) == 2, the test wants 3


def test_a_test_that_stubs_ast_parse_gets_the_cold_verdict(tmp_path):
    """The test stubs ast.parse with monkeypatch (still in place when its call-phase failure is
    formatted): cold, pytest's statement lookup calls the stub for the test file's frame and the
    session ends in INTERNALERROR (exit 3, incapacity); the fork reuses the warmed tree, never calls
    ast.parse, and reports the failure (exit 1, reject)."""
    test = """
        import ast
        from mod import half
        def test_x(monkeypatch):
            def no_parse(*a, **k):
                raise ValueError("parser unavailable")      # the code under test must not parse
            monkeypatch.setattr(ast, "parse", no_parse)
            assert half(4) == 3
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert cold[0] == 3 and fork == cold, out + "\n-- cold --\n" + cout


def test_a_test_whose_ast_parse_stub_returns_a_tree_gets_the_cold_report(tmp_path):
    """The stub returns a canned tree (a linter's test): cold, pytest's lookup walks the canned
    (empty) module, so the failing frame's source ends with the file's first block and the frame shows as
    '>   ???'; the fork's report shows the test's statements from the warmed tree. Same exit code, different FAILURES text."""
    test = """
        import ast
        from mod import half
        def _unused():
            pass
        def test_x(monkeypatch):
            monkeypatch.setattr(ast, "parse", lambda *a, **k: ast.Module(body=[], type_ignores=[]))
            assert half(4) == 3


        def test_y():
            pass
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert fork == cold and _lines(out) == _lines(cout), out + "\n-- cold --\n" + cout


def test_an_audit_hook_that_forbids_compile_gets_the_cold_verdict(tmp_path):
    """A sandbox test installs an audit hook that refuses ``compile`` once armed (audit hooks cannot
    be removed): cold, the report's parse of the test file raises through the hook (exit 3); the fork
    compiles nothing for the warmed test file and exits 1."""
    test = """
        import sys
        from mod import half
        ARMED = []
        def _hook(event, args):
            if ARMED and event == "compile":
                raise RuntimeError("sandbox: no runtime compilation")
        sys.addaudithook(_hook)
        def test_x():
            ARMED.append(1)
            assert half(4) == 3
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert cold[0] == 3 and fork == cold, out + "\n-- cold --\n" + cout


DEEP_TEST = '''
import sys
import pytest
from mod import half

TREE = %s


def _depth():
    f, n = sys._getframe(), 0
    while f:
        n += 1
        f = f.f_back
    return n


@pytest.fixture
def tight():
    """a recursion test's tight limit, relative to where the test runs"""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_depth() + 16)
    yield
    sys.setrecursionlimit(old)


def test_x(tight):
    assert half(4) == 3
''' % ("[" * 60 + "]" * 60)


def test_a_tight_recursion_limit_gets_the_cold_verdict(tmp_path):
    """A fixture sets a tight recursion limit for the test; the test file holds a deeply nested
    literal. Cold, the report's parse of the test file needs more stack than the limit leaves
    ("maximum recursion depth exceeded during ast construction": INTERNALERROR, exit 3); the fork
    reuses the tree parsed in the server at a shallow stack and exits 1."""
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": DEEP_TEST}, HALF)
    assert cold[0] == 3 and fork == cold, out + "\n-- cold --\n" + cout


def test_a_test_that_reads_pytests_statement_lookup_gets_the_cold_verdict(tmp_path):
    """The replaced function is visible to the tested code: a plugin's test that pins pytest's
    internals (``getstatementrange_ast`` is the one in ``_pytest._code.source``) passes cold and
    fails in the fork."""
    test = """
        from _pytest._code import code, source
        def test_pytest_internals_unpatched():
            assert code.getstatementrange_ast is source.getstatementrange_ast
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert cold[0] == 0 and fork == cold, out + "\n-- cold --\n" + cout


def test_a_test_that_edits_a_shared_tree_does_not_change_a_later_report(tmp_path):
    """The warmed tree (and its memoized statement lines) is shared by every report of the child:
    a test that formats an exception itself (ExceptionInfoFormatter, as a reporting plugin's test does)
    and edits the tree it was handed (here pytest's memo on it) changes the next test's report in the
    fork (">   ???" for test_b's source); cold, each report parses its own tree. (A private attribute:
    the least likely of these.)"""
    test = """
        import pytest
        from _pytest._code.code import ExceptionInfoFormatter
        from mod import half

        def test_a():
            with pytest.raises(ZeroDivisionError) as ei:
                1 / 0
            fmt = ExceptionInfoFormatter()
            fmt.repr_traceback(ei)
            for tree in fmt.astcache.values():      # the tree pytest handed the formatter
                tree._pytest_statement_linenos.clear()

        def test_b():
            x = 4
            assert half(
                x
            ) == 3
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert fork == cold and _lines(out) == _lines(cout), out + "\n-- cold --\n" + cout


def test_a_spy_on_ast_parse_sees_the_cold_runs_calls(tmp_path):
    """No stub that fails: a fixture spies on ast.parse (how often the code under test parses) and
    reports the count at teardown (a warning, so it shows in the summary). The call phase fails
    (the mutant); formatting its failure parses the test file cold (3 calls: the test's own, the
    report's whole-file lookup, pytest's indent lookup on the statement) but not in the fork (2):
    the warnings summary differs. (The same count decides a verdict wherever a check reads it.)"""
    test = """
        import ast
        import warnings
        import pytest
        from mod import half

        @pytest.fixture
        def parses(monkeypatch):
            calls = []
            real = ast.parse
            monkeypatch.setattr(ast, "parse", lambda *a, **k: calls.append(1) or real(*a, **k))
            yield calls
            warnings.warn(f"parsed {len(calls)} times")

        def test_x(parses):
            ast.parse("x = 1")      # the code under test's one parse
            assert half(5) == 2.5
        """
    fork, cold, out, cout = _both(tmp_path, {"test_x.py": test}, HALF)
    assert fork == cold and _lines(out) == _lines(cout), out + "\n-- cold --\n" + cout


def test_a_conftest_that_replaces_ast_parse_for_the_session_gets_the_cold_verdict(tmp_path):
    """The stub set for the whole session by the suite's conftest (no fixture): cold, the test
    file's failure report calls it (INTERNALERROR, exit 3: incapacity); the fork reuses the warmed
    tree of test_x.py and rejects (exit 1)."""
    conftest = """
        import ast
        def _no(*a, **k):
            raise ValueError("parser unavailable")
        ast.parse = _no      # the suite runs without a parser
        """
    test = "from mod import half\ndef test_x():\n    assert half(4) == 3\n"
    fork, cold, out, cout = _both(tmp_path, {"conftest.py": conftest, "test_x.py": test}, HALF)
    assert cold[0] == 3 and fork == cold, out + "\n-- cold --\n" + cout
