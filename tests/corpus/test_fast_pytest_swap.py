"""Issue 26, wall time against mutmut (second round): the swap child formats a failure in the
native style, the parent finds a mutant's changed lines by prefix and suffix and compiles it once,
each judgment's private copy is removed off the workers' way, and a function's blank lines no
longer cost it its test selection. Each speed-up leaves the mutants and verdicts as they were
(the pinned verdicts of both bench modules, before these changes; no timings here).

Formerly ``tests/corpus/test_speed_m26.py``, named after its origin."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from corpus.catalogue import Loop
from corpus.code_change import changed_lambda
from corpus.coverage_map import changed_lines, changed_lines_difflib, measure_coverage
from corpus.fast_pytest import PytestSession
from corpus.gates import load_gate
from corpus.measure import measure
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize
from support.calc_project import add_and_neg_loop, swapped_and_forked

EXAMPLES = Path(__file__).resolve().parents[2] / "corpus" / "examples"
OSET = EXAMPLES / "ordered-set"
SAMPLES = ((EXAMPLES / "isbn", "isbn.py", ("isbn.py",)),
           (OSET, "ordered_set/__init__.py", ("ordered_set",)))
# every mutant's verdict on both bench modules, measured before these changes (the same measure()
# call as bench_mutmut.run_corpus): {target: {mutant id: [note, verdict, executor]}}
PINNED = Path(__file__).resolve().parent / "data" / "issue26-verdicts.json"


def _mutants(directory: Path, target: str):
    src = (directory / target).read_text()
    return src, generate(ArtifactSpec("l", "python", target, src.encode(), {"role": "code"}), "fine")


def test_changed_lines_by_prefix_and_suffix_equal_difflibs_on_every_bench_mutant():
    for directory, target, _ in SAMPLES:
        src, muts = _mutants(directory, target)
        for m in muts:
            assert m.content is not None
            assert changed_lines(src, m.content.decode()) == changed_lines_difflib(src, m.content.decode()), m.note


def test_changed_lines_cases():
    a = "a\nb\nc\nd\n"
    assert changed_lines(a, a) == set()
    assert changed_lines(a, "a\nB\nc\nd\n") == {2}
    assert changed_lines(a, "a\nc\nd\n") == {2}                  # deleted
    assert changed_lines(a, "a\nb\nX\nc\nd\n") == {2, 3}         # inserted between 2 and 3
    assert changed_lines(a, "a\nb\nc\nd\nX\n") == {4}            # appended
    assert changed_lines(a, "X\na\nb\nc\nd\n") == {1}            # prepended
    assert changed_lines(a, "A\nb\nc\nD\n") == {1, 4}            # two places
    for b in ("A\nb\nc\nD\n", "a\nB\nc\nd\n", "a\nc\nd\n", "a\nb\nX\nc\nd\n", "a\nb\nc\nd\nX\n", "X\na\nb\nc\nd\n"):
        assert changed_lines(a, b) == changed_lines_difflib(a, b)


def test_a_functions_blank_lines_keep_its_selection(tmp_path):
    """ordered-set's ``pop`` has blank lines in its body; they map to the def (run at import), so a
    mutant that changed the function's locals (removing ``elem = ...``, its only binding) ran the
    whole suite. It now runs the one test that calls ``pop``, as its other mutants do."""
    gate = load_gate(OSET / "gate.toml")
    target = "ordered_set/__init__.py"
    src, muts = _mutants(OSET, target)
    home = tmp_path / "home"
    home.mkdir()
    cmap, why = measure_coverage(gate, materialize(OSET, None, tmp_path / "a"), target, str(home))
    assert cmap is not None, why
    removed = next(m for m in muts if m.note == "L268: removed 'elem = self.items[index]'")
    to_none = next(m for m in muts if m.note.startswith("L268: elem = self.items[index] -> elem = None"))
    assert [t.rsplit("::", 1)[1] for t in cmap.select(removed.content)] == ["test_pop"]
    assert cmap.select(removed.content) == cmap.select(to_none.content)
    # the def line itself (a default) still runs every test: it is import-time code
    default = next(m for m in muts if m.note.startswith("L253:"))
    assert cmap.select(default.content) is None


def test_a_swap_failure_names_the_crash_and_the_verdict_is_the_fork_paths(tmp_path):
    """The swap child's traceback is native-style: the summary line still names the failing test
    (the kill history reads it) and where and why it failed; the verdict is the fork path's."""
    swapped, forked = swapped_and_forked(
        tmp_path, "def add(a, b):\n    return a + b\n",
        "import calc\n\n\ndef test_zero():\n    assert calc.add(0, 0) == 0\n\n\n"
        "def test_add():\n    assert calc.add(2, 3) == 5\n")
    assert swapped.executor == "swap" and forked.executor == "fork"
    assert swapped.judgement.verdict == forked.judgement.verdict
    assert swapped.judgement.verdict.value == "reject"
    assert swapped.killer and swapped.killer.endswith("test_add")
    line = next(ln for ln in swapped.judgement.reason.splitlines() if ln.startswith("FAILED"))
    assert "tests/test_calc.py:9: assert -1 == 5" in line


def test_a_swap_failure_inside_the_artifact_names_it_relative_to_its_temporary_copy(tmp_path):
    """A crash in the artifact's own code is named relative to the session's private copy, so the
    same verdict has the same reason on every run (an absolute temporary path made judgments.csv
    differ between runs)."""
    swapped, _ = swapped_and_forked(
        tmp_path, "def add(a, b):\n    c = a + b\n    assert c >= 0, 'negative'\n    return c\n",
        "import calc\n\n\ndef test_add():\n    assert calc.add(2, 3) == 5\n")
    line = next(ln for ln in swapped.judgement.reason.splitlines() if ln.startswith("FAILED"))
    assert " - calc.py:3: AssertionError: negative" in line and "/tmp" not in line, line


def test_each_judgments_private_copy_is_removed_by_the_sessions_end(tmp_path, monkeypatch):
    gate = load_gate(OSET / "gate.toml")
    target = "ordered_set/__init__.py"
    _, muts = _mutants(OSET, target)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with PytestSession(gate, OSET, target, workers=1) as s:
        verdicts = [s.judge(m).executor for m in muts[::60]]
    assert "swap" in verdicts
    assert not [p for p in scratch.iterdir() if p.name.startswith(("corpus-fswap-", "corpus-fmut-"))]


def _measure(directory: Path, target: str, copy: tuple[str, ...], tmp: Path):
    import shutil
    art = tmp / "artifact"
    art.mkdir()
    for name in copy:
        src = directory / name
        (shutil.copytree(src, art / name) if src.is_dir() else shutil.copy(src, art / name))
    # identity and ordering became opt-in after the pin (issue 35: mostly equivalents), and so did an
    # if's negation (negate_if, split from add_not: the pin's add_not ids of if statements were
    # re-keyed to negate_if's, by note), and so did an argument dropped from a call of the builtin len or
    # isinstance (drop_builtin_argument: the pin's drop_argument ids re-keyed by note, to it and within
    # drop_argument); named here so every pinned mutant is generated again
    loop = Loop(id="bench", dir=tmp, title=target, domains=["software"], requirement="(bench)", kind="python",
                target=target, artifact_dir=art,
                hints={"role": "code", "extra_operators": ["identity", "ordering", "negate_if", "drop_builtin_argument"]},
                not_applicable=(),
                gate_paths=[directory / "gate.toml"])
    return measure([loop], families=("fine",), tier2=False, workers=2)


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=["isbn", "ordered-set"])
def test_every_verdict_on_the_bench_modules_is_the_pinned_one(sample, tmp_path):
    """The same mutants (id and note) and the same verdict for each as before the speed-ups, on
    both bench modules: what was killed is killed, what survived survives. Mutants of operators added
    since the pin are extra, never in place of a pinned one."""
    directory, target, copy = sample
    m = _measure(directory, target, copy, tmp_path)
    pinned = json.loads(PINNED.read_text())[target]
    got = {r.mutant: [m.mutants[r.mutant].note, r.verdict] for r in m.rows if not r.is_control}
    want = {k: v[:2] for k, v in pinned.items()}
    # the equivalence screen (issue 35) takes a pinned survivor out of judging, with its rule in the note;
    # it may never take one the tests killed (a killable mutant screened is a lost gap)
    screened = {k for k, (note, verdict) in got.items()
                if k in want and got[k] != want[k] and verdict == "not-judged" and "[equivalent:" in note}
    assert all(want[k][1] == "accept" and got[k][0].startswith(want[k][0]) for k in screened), \
        {k: (got[k], want[k]) for k in screened}
    assert {k: got.get(k) for k in pinned if k not in screened} == {k: v for k, v in want.items() if k not in screened}
    # what the pin does not hold comes only from the operators issue 35 added after it
    extra = sorted({k.split("/")[2] for k in set(got) - set(pinned)})
    assert set(extra) <= OPERATORS_AFTER_THE_PIN, extra


OPERATORS_AFTER_THE_PIN = {"break_continue", "unary", "string_case", "lambda_none", "remove_case", "dict_keyword",
                           "shallow_copy", "remove_decorator",
                           "ternary_constant", "none_to_empty"}  # issue 35's ten (corpus/operators/fine.py)


# the accept cache key narrowed to the covering tests: an accept is reused while the tests selected
# for it, and their files, are unchanged; an edit of a test file that runs none of its lines keeps it
def _calc_project(d: Path) -> Loop:
    """add's test runs its lines but cannot tell ``a - b`` from ``a + b``: that mutant is an accept."""
    return add_and_neg_loop(d, "add(0, 0) == 0")


def test_an_accept_is_kept_while_its_covering_tests_are_unchanged(tmp_path):
    loop = _calc_project(tmp_path)
    cache = tmp_path / "out" / "judgment-cache.jsonl"
    cache.parent.mkdir()

    def run():
        m = measure([loop], families=("fine",), tier2=False, workers=1, cache=cache)
        return {m.mutants[r.mutant].note: r for r in m.rows if not r.is_control}, m
    first, _ = run()
    add_acc = {k for k, r in first.items() if r.verdict == "accept" and k.startswith("L2:")}
    neg_acc = {k for k, r in first.items() if r.verdict == "accept" and k.startswith("L6:")}
    assert "L2: a + b -> a - b" in add_acc and "L6: -x -> x" in neg_acc
    # test_neg.py (runs neg, not add) edited: add's accepts are kept, neg's judged again (now killed)
    (tmp_path / "tests" / "test_neg.py").write_text(
        "from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n    assert neg(3) == -3\n")
    second, m = run()
    assert all(second[k].executor == "cached" and second[k].verdict == "accept" for k in add_acc)
    assert all(second[k].executor != "cached" for k in neg_acc)
    assert second["L6: -x -> x"].verdict == "reject"
    assert m.cached >= len(add_acc)
    # a rerun of the same files: everything from the cache, the reused accepts included
    again, m = run()
    assert all(r.executor == "cached" for r in again.values()) and m.cached == len(again) + 1   # + the control
    # a comment in the covering test: the same code, the accepts are kept (issue 35: a test's
    # fingerprint is its code, not its file's bytes)
    (tmp_path / "tests" / "test_add.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(0, 0) == 0  # same test\n")
    third, _ = run()
    assert all(third[k].executor == "cached" and third[k].verdict == "accept" for k in add_acc)
    # the covering test itself edited: add's accepts are judged again
    (tmp_path / "tests" / "test_add.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(0, 0) == 0 * 1\n")
    fourth, _ = run()
    assert all(fourth[k].executor != "cached" and fourth[k].verdict == "accept" for k in add_acc)


def test_a_new_test_file_that_runs_the_mutant_rejudges_its_accept(tmp_path):
    """Adversarial: the covering files are unchanged but a new file's test now runs ``add``. The
    selection changed, so the accept is judged again, and the new test kills ``a - b``."""
    loop = _calc_project(tmp_path)
    cache = tmp_path / "out" / "judgment-cache.jsonl"
    cache.parent.mkdir()
    measure([loop], families=("fine",), tier2=False, workers=1, cache=cache)
    (tmp_path / "tests" / "test_more.py").write_text("from calc import add\n\n\ndef test_more():\n"
                                                      "    assert add(2, 3) == 5\n")
    m = measure([loop], families=("fine",), tier2=False, workers=1, cache=cache)
    rows = {m.mutants[r.mutant].note: r for r in m.rows if not r.is_control}
    assert rows["L2: a + b -> a - b"].executor != "cached" and rows["L2: a + b -> a - b"].verdict == "reject"
    assert rows["L6: -x -> x"].executor == "cached" and rows["L6: -x -> x"].verdict == "accept"


# issue 35: a lambda written in module or class-body code (semver's ``_MATCH`` table) is swapped
# into the collected suite instead of forking the whole suite per mutant (corpus/forkserver.py's
# lambda swap rule); where the swap would not be exact the child declines and the fork decides
LAMBDAS = ('OPS = {"<": lambda c: c < 0, "==": lambda c: c == 0}\n\n\n'
           'class Table:\n    pick = staticmethod(lambda x: x + 1)\n\n\n'
           'def match(op, c):\n    return OPS[op](c)\n')
LAMBDA_TESTS = ("import calc\n\n\ndef test_lt():\n    assert calc.match('<', -1) and not calc.match('<', 0)\n\n\n"
                "def test_eq():\n    assert calc.match('==', 0)\n\n\n"
                "def test_pick():\n    assert calc.Table.pick(1) == 2\n")


def _lambda_session(d: Path, calc: str, tests: str):
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(calc)
    (d / "tests").mkdir()
    (d / "tests" / "test_calc.py").write_text(tests)
    (d / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    muts = generate(ArtifactSpec("l", "python", "calc.py", calc.encode(), {"role": "code"}), "fine")
    return load_gate(d / "gate.toml"), [m for m in muts if m.content and changed_lambda(calc, m.content)]


def test_changed_lambda_names_only_a_module_or_class_level_lambdas_own_change():
    src = LAMBDAS
    one = changed_lambda(src, src.replace("c < 0", "c > 0").encode())
    assert one is not None and one[0].co_name == one[1].co_name == "<lambda>" and one[0] != one[1]
    assert changed_lambda(src, src.replace("x + 1", "x - 1").encode()) is not None      # in a class body
    assert changed_lambda(src, src.replace('"<":', '"<<":').encode()) is None           # the table changed too
    # a longer body moves the next lambda on its line (its columns are in its code): two changed
    assert changed_lambda(src, src.replace("c < 0", "c <= 0").encode()) is None
    assert changed_lambda(src, src.replace("OPS[op](c)", "OPS[op](-c)").encode()) is None   # a function
    inner = "def f():\n    return (lambda: 1)()\n"
    assert changed_lambda(inner, inner.replace("1", "2").encode()) is None              # made per call


@pytest.fixture
def lambda_swap(monkeypatch):
    """The lambda swap on (``PytestSession.swap_lambdas``: off by default, see there)."""
    monkeypatch.setattr(PytestSession, "swap_lambdas", True)


def test_a_module_level_lambdas_mutants_are_swapped_with_the_fork_paths_verdicts(tmp_path, lambda_swap):
    gate, muts = _lambda_session(tmp_path, LAMBDAS, LAMBDA_TESTS)
    assert len(muts) >= 6
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.swapping
        swapped = [s.judge(m) for m in muts]
        s.swap_lambdas = False
        forked = [s.judge(m) for m in muts]
    assert [j.executor for j in swapped] == ["swap"] * len(muts)
    assert [j.executor for j in forked] == ["fork"] * len(muts)
    assert [j.judgement.verdict for j in swapped] == [j.judgement.verdict for j in forked]
    assert {j.judgement.verdict.value for j in swapped} == {"accept", "reject"}     # both kinds compared


@pytest.mark.parametrize("calc, test", [
    # called while the module was imported: the value it left was made by the conforming code
    ("DOUBLE = lambda x: x * 2\nFOUR = DOUBLE(2)\n", "def test_four():\n    assert calc.FOUR == 4\n"),
    # called while the suite was collected (a test file's parametrize)
    ("DOUBLE = lambda x: x * 2\n",
     "import pytest\n\n\n@pytest.mark.parametrize('v', [calc.DOUBLE(2)])\ndef test_v(v):\n    assert v == 4\n"),
    # held where the module's namespace does not reach: a partial keeps the function
    ("import functools\nADD = functools.partial(lambda a, b: a * b, 2)\n",
     "def test_add():\n    assert calc.ADD(2) == 4\n"),
    # deeper than the walk goes: found nowhere, so not swapped
    ("DEEP = {'a': {'b': {'c': [lambda: 2 * 2]}}}\n",
     "def test_deep():\n    assert calc.DEEP['a']['b']['c'][0]() == 4\n"),
    # its code read at import (a copy made from it keeps the conforming body)
    ("import types\nDOUBLE = lambda x: x * 2\nCOPY = types.FunctionType(DOUBLE.__code__.replace(co_name='c'), {})\n",
     "def test_copy():\n    assert calc.COPY(2) == 4\n"),
    # held by a dict subclass whose own values() the walk must not run (it is not walked)
    ("class Table(dict):\n    def values(self):\n        raise RuntimeError('walked')\n\n\n"
     "OPS = Table({'<': lambda c: c < 0})\n", "def test_lt():\n    assert dict.__getitem__(calc.OPS, '<')(-1)\n"),
    # a second thread alive when the suite was collected: its calls were not all watched
    ("import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
     "DOUBLE = lambda x: x * 2\n", "def test_double():\n    assert calc.DOUBLE(2) == 4\n"),
    # the suite set a profile function of its own at collection: the watch was replaced
    ("DOUBLE = lambda x: x * 2\n",
     "import sys\nsys.setprofile(lambda *a: None)\n\n\ndef test_double():\n    assert calc.DOUBLE(2) == 4\n"),
], ids=["called_at_import", "called_at_collection", "held_by_a_partial", "nested_deeper_than_the_walk",
        "code_read_at_import", "held_by_a_dict_subclass", "a_thread_alive_at_collection", "profile_replaced_at_collection"])
def test_a_lambda_swap_that_would_not_be_exact_is_declined_and_the_fork_decides(tmp_path, calc, test, lambda_swap):
    gate, muts = _lambda_session(tmp_path, calc, "import calc\n\n\n" + test)
    assert muts
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.swapping
        got = [s.judge(m) for m in muts]
        s.swap_lambdas = False
        forked = [s.judge(m) for m in muts]
    assert [j.executor for j in got] == ["fork"] * len(muts)
    assert [j.judgement.verdict for j in got] == [j.judgement.verdict for j in forked]
    assert "reject" in {j.judgement.verdict.value for j in got}
