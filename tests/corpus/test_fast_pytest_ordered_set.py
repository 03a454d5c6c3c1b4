"""Issue 26, wall time on a real third-party module (ordered-set, bundled for bench_mutmut): a
method is a unit of its own when mutants are made, a comment no longer turns the swap path off,
the swap child gets the mutated function compiled, and tests that killed a function's mutants
run first. Each speed-up must leave the mutants and verdicts as they were (no timings here).

Formerly ``tests/corpus/test_speed_issue26.py``, named after its origin."""
from __future__ import annotations

import json
from pathlib import Path

from corpus.fast_pytest import PytestSession, changed_function, function_codes, without_comments
from corpus.gates import load_gate
from corpus.kill_history import WHOLE_SUITE, KillHistory, first_failure, node_key
from corpus.model import ArtifactSpec
from corpus.operators import generate

OSET = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "ordered-set"


def _calc(tmp_path: Path, test_text: str) -> tuple:
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(test_text)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    mut = generate(ArtifactSpec("l", "python", "calc.py", (tmp_path / "art" / "calc.py").read_bytes(),
                                {"role": "code"}), "fine")
    return load_gate(tmp_path / "gate.toml"), next(m for m in mut if "a - b" in m.note)


def test_a_comment_naming_a_blocker_keeps_the_swap_path(tmp_path):
    """ordered-set's suite says '# noinspection PyTypeChecker': 'inspect' in a comment cannot
    re-import anything, so the swap path stays on; the same word in code still turns it off."""
    gate, arith = _calc(tmp_path, "import calc  # importlib.reload(calc) would break a swap\n\n\n"
                                  "def test_add():\n    assert calc.add(2, 3) == 5\n")
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.swapping
        r = s.judge(arith)
    assert r.executor == "swap" and r.judgement.verdict.value == "reject"
    assert "inspect" not in without_comments("x = 1  # noinspection\n")
    assert "inspect" in without_comments("s = '# inspect'\n")        # a string is not a comment
    assert without_comments("x = (\n") == "x = (\n"                  # does not tokenize: kept whole


def test_function_codes_are_the_mutants_own():
    src = "def f(x):\n    return x + 1\n\n\nclass C:\n    def m(self):\n        def inner():\n            return 2\n" \
          "        return inner()\n"
    mutant = src.replace("return 2", "return 3").encode()
    assert changed_function(src, mutant) == "C.m"
    import base64
    import marshal
    codes = [marshal.loads(base64.b64decode(c)) for c in function_codes(mutant, "C.m")]
    assert len(codes) == 1 and codes[0].co_qualname == "C.m"
    inner = next(c for c in codes[0].co_consts if hasattr(c, "co_qualname"))
    assert 3 in inner.co_consts and 2 not in inner.co_consts


def test_swap_verdicts_equal_the_fork_path_on_ordered_set():
    """The third-party module's methods (overloads, properties of a Generic class) swapped: the
    same verdicts as forks of the mutated file, on a sample of its mutants."""
    gate = load_gate(OSET / "gate.toml")
    target = "ordered_set/__init__.py"
    src = (OSET / target).read_text()
    muts = [m for m in generate(ArtifactSpec("l", "python", target, src.encode(), {"role": "code"}), "fine")
            if m.content is not None and m.label != "equivalent" and changed_function(src, m.content)][::25]
    with PytestSession(gate, OSET, target, workers=1) as s:
        assert s.swapping
        swapped = [s.judge(m) for m in muts]
        s.swapping = False
        forked = [s.judge(m) for m in muts]
    assert {r.executor for r in swapped} >= {"swap"}
    assert [r.judgement.verdict for r in swapped] == [r.judgement.verdict for r in forked]
    assert {r.judgement.verdict.value for r in swapped} >= {"accept", "reject"}


def test_a_methods_mutants_are_those_of_rebuilding_its_class():
    """A mutant made in its method alone is byte for byte the one rebuilding the whole class gives
    (libcst's deep_replace on the top-level statement), for every site of ordered-set's class."""
    import libcst as cst

    from corpus.operators.fine import _analyse, _mutated_statement
    src = (OSET / "ordered_set" / "__init__.py").read_text()
    analysis = _analyse(src)
    mod, sites = analysis[0], analysis[2]
    cls = next(i for i, s in enumerate(mod.body) if isinstance(s, cst.ClassDef))
    in_methods = [s for ops in sites.values() for s in ops if s[0] == cls and id(s[1]) in analysis[5]]
    assert len(in_methods) > 300
    for site in in_methods[::15]:         # every 15th: a whole-class rebuild costs a tenth of a second
        top, node, new = site[:3]
        assert _mutated_statement(src, analysis, site) == mod.code_for_node(mod.body[top].deep_replace(node, new))


def test_kill_history_puts_last_killers_first_and_persists(tmp_path):
    path = tmp_path / "kill-history.json"
    h = KillHistory("g", path)
    sel = ["/a/tests/test_x.py::test_1", "/a/tests/test_x.py::test_2", "/a/tests/test_x.py::test_3[p]"]
    assert h.order("C.m", sel) == sel                               # no history: suite order
    h.killed("C.m", "tests/test_x.py::test_3[p]")                   # pytest's relative node id
    h.killed("C.m", "tests/test_x.py::test_2")
    assert h.order("C.m", sel) == [sel[1], sel[2], sel[0]]          # newest killer first
    assert h.order("f", sel) == sel                                 # another function: untouched
    assert sorted(h.order("C.m", sel)) == sorted(sel)               # only the order changes
    h.save()
    other = KillHistory("other-gate", path)
    other.killed("f", "t.py::t")
    other.save()
    again = KillHistory("g", path)
    assert again.order("C.m", sel) == [sel[1], sel[2], sel[0]]      # kept across runs and gates
    assert set(json.loads(path.read_text())) == {"g", "other-gate"}
    path.write_text("not json")
    assert KillHistory("g", path).order("C.m", sel) == sel          # a damaged file: no history


def test_kill_history_runs_the_untried_tests_fastest_first():
    """With the coverage run's durations, the tests no earlier kill puts first go fastest first (a
    test without a time last, in suite order); the killers stay first; the set never changes."""
    h = KillHistory("g")
    sel = ["t.py::a", "t.py::b", "t.py::c", "t.py::d"]
    times = {"t.py::a": 0.3, "t.py::b": 0.01, "t.py::c": 0.2}
    assert h.order("f", sel, times) == ["t.py::b", "t.py::c", "t.py::a", "t.py::d"]
    h.killed("f", "t.py::a")
    assert h.order("f", sel, times) == ["t.py::a", "t.py::b", "t.py::c", "t.py::d"]
    assert h.order("f", sel) == sel                                 # no durations: suite order after killers


def test_first_failure_reads_pytest_and_swap_summaries():
    assert first_failure("..F\nFAILED tests/t.py::test_a - assert 1 == 2\n1 failed") == "tests/t.py::test_a"
    assert first_failure("FAILED t.py::test_b[x-1] (call) - boom\n1 failed, 2 selected (swap)\n") == "t.py::test_b[x-1]"
    assert first_failure("3 passed") is None
    assert node_key("/abs/tests/t.py::C::test_a[1]") == node_key("tests/t.py::C::test_a[1]") == ("t.py", "C::test_a[1]")


def test_a_session_orders_the_swap_by_kill_history(tmp_path):
    """The second mutant of a function runs the test that killed the first one first: with -x it
    is the only test run (the summary says which failed), and the verdict is unchanged."""
    gate, arith = _calc(tmp_path, "import calc\n\n\ndef test_zero():\n    assert calc.add(0, 0) == 0\n\n\n"
                                  "def test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
                                  "def test_more():\n    assert calc.add(1, 1) == 2\n")
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        first = s.judge(arith)
        # test_add and test_more kill it; which runs first is the faster one (durations vary)
        assert first.killer and first.killer.endswith(("test_add", "test_more"))
        second = s.judge(arith)
    assert first.judgement.verdict == second.judgement.verdict
    assert second.killer == first.killer
    name = first.killer.rsplit("::", 1)[1]
    sel = ["x/test_calc.py::test_zero", "x/test_calc.py::test_add", "x/test_calc.py::test_more"]
    assert s.history.order("add", sel)[0].endswith(name)


def test_a_session_orders_a_whole_suite_fork_by_kill_history(tmp_path):
    """A module-level mutant is judged by the whole suite in a forked pytest; the next such
    mutant runs the test that killed it first (kill_history.WHOLE_SUITE): with -x that test is
    the only one run (no 'passed' in the summary), and the verdict is unchanged."""
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text("LIMIT = 3\n\n\ndef add(a, b):\n    return a + b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n\n\n"
        "def test_limit():\n    assert calc.LIMIT == 3\n")
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    mut = generate(ArtifactSpec("l", "python", "calc.py", (tmp_path / "art" / "calc.py").read_bytes(),
                                {"role": "code"}), "fine")
    limit = next(m for m in mut if m.note.startswith("L1:") and m.content is not None)
    with PytestSession(load_gate(tmp_path / "gate.toml"), tmp_path / "art", "calc.py", workers=1) as s:
        first = s.judge(limit)
        assert first.executor == "fork" and first.tests is None and first.killer.endswith("test_limit")
        assert s.history.killers(WHOLE_SUITE) == [("test_calc.py", "test_limit")]
        second = s._judge_selected(limit, None, None, 0.0, s.history.killers(WHOLE_SUITE))
    assert second.judgement.verdict == first.judgement.verdict and second.killer == first.killer
    assert "1 passed" in first.judgement.reason and "passed" not in second.judgement.reason, second


# --- bench_mutmut's survivor comparison (by line and operator class) on the real module

def test_classify_the_changes_mutmut_survived_on_ordered_set():
    from benchmarks.bench_mutmut import classify_change
    assert classify_change("return all(item in other for item in self)",
                           "return all(item not in other for item in self)") == "comparison"
    assert classify_change("self.map = {item: idx for (idx, item) in enumerate(items)}", "self.map = None") == "value"
    assert classify_change("items_to_remove |= items_as_set", "items_to_remove = items_as_set") == "arithmetic"
    assert classify_change("x = f(a)", "x = f(None)") == "argument"
    assert classify_change("cls: type = OrderedSet", "cls: type = None") == "value"


SHOW = """# ordered_set.xǁOrderedSetǁ__getitem____mutmut_14: survived
--- ordered_set/__init__.py
+++ ordered_set/__init__.py
@@ -28,4 +28,4 @@
         else:
             return result
     else:
-        raise TypeError("Don't know how to index an OrderedSet by %r" % index)
+        raise TypeError("XXDon't know how to index an OrderedSet by %rXX" % index)
"""


def test_a_mutmut_survivor_is_placed_in_its_overloaded_method():
    """mutmut's show diff counts lines from the function; the site is found in the implementation
    (after two @overload stubs of the same name), on the file's own line."""
    from benchmarks.bench_mutmut import site_of_show
    src = (OSET / "ordered_set" / "__init__.py").read_text()
    site = site_of_show(src, "ordered_set.xǁOrderedSetǁ__getitem____mutmut_14", SHOW)
    assert site["line"] == 128 and site["class"] == "string"
    assert src.splitlines()[127].strip().startswith("raise TypeError(")
    assert site_of_show(src, "ordered_set.x_nothing__mutmut_1", SHOW)["line"] is None
