"""Review of the issue-26 corpus work as a user would be hurt by it: a judgment cache that hands
back a stale verdict after an edit it should have noticed.

Formerly ``tests/corpus/test_review_issue26.py``, named after its origin."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchmarks.bench_mutmut import classify_change, survivors_missed
from corpus.fast_pytest import PytestSession, changed_function
from corpus.gates import load_gate
from corpus.incremental import context_digest, unit_key
from corpus.model import ArtifactSpec
from corpus.operators import generate
from support.calc_project import swapped_and_forked

MOD = ("def helper(x):\n    return x + 1\n\n\ndef f(x):\n    return helper(x) * 2\n\n\n"
       "def other(y):\n    return y - 1\n")


def _keys(src: str, in_fn: str) -> dict[str, str]:
    """operator + change (line-free) -> unit key, for the mutants of the line holding ``in_fn``."""
    muts = generate(ArtifactSpec("l", "python", "m.py", src.encode(), {"role": "code"}), "fine")
    line = src.splitlines().index(in_fn) + 1
    return {f"{m.operator}|{m.note.split(':', 1)[1]}": unit_key(src.encode(), m)
            for m in muts if m.note.startswith(f"L{line}:")}


def test_editing_a_function_the_mutated_function_calls_changes_its_key():
    """f calls helper: a mutant of f is judged through helper, so an edit of helper must
    invalidate it (else the cache returns f's old verdict). An edit of ``other``, which f never
    reaches, keeps it."""
    before = _keys(MOD, "    return helper(x) * 2")
    assert before
    edited = _keys(MOD.replace("x + 1", "x + 2"), "    return helper(x) * 2")
    assert not set(before.values()) & set(edited.values())
    unrelated = _keys(MOD.replace("y - 1", "y - 5"), "    return helper(x) * 2")
    assert unrelated == before


def test_pytest_configuration_beside_the_gate_is_part_of_the_key(tmp_path):
    """conftest.py beside the gate (outside its tests directory) changes what the suite does;
    the corpus's own [tool.proof-harness] settings do not."""
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "m.py").write_text("X = 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.proof-harness.corpus]\nworkers = 1\n')
    key = lambda: context_digest(tmp_path / "art", tmp_path / "art" / "m.py", tmp_path, tmp_path / ".corpus")  # noqa: E731
    k0 = key()
    (tmp_path / "pyproject.toml").write_text('[tool.proof-harness.corpus]\nworkers = 2\n')
    assert key() == k0
    (tmp_path / "art" / "m.py").write_text("X = 2\n")            # the artifact is keyed by its units
    assert key() == k0
    (tmp_path / "conftest.py").write_text("import pytest\n")
    k1 = key()
    assert k1 != k0
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\naddopts = "-x"\n')
    assert key() != k1


CALC = "from helper import K\n\n\ndef scale(x):\n    return x * K\n"
TESTS = "from calc import scale\n\n\ndef test_scale():\n    assert scale(2) == 6\n"




def _project(d: Path) -> Path:
    (d / "calc.py").write_text(CALC)
    (d / "helper.py").write_text("K = 3\n")
    (d / "tests").mkdir()
    (d / "tests" / "test_calc.py").write_text(TESTS)
    (d / "gate.toml").write_text('[gate]\nname = "calc-suite"\nkind = "pytest"\ntests = "tests"\n')
    (d / "pyproject.toml").write_text('[tool.proof-harness.corpus]\ngate = "gate.toml"\nartifact = "calc.py"\n'
                                      'context_dir = "."\nfamilies = ["fine"]\nout = ".corpus"\nworkers = 1\n')
    return d


def _control(d: Path) -> tuple[str, str]:
    rows = csv.DictReader((d / ".corpus" / "judgments.csv").open())
    return next((r["verdict"], r["executor"]) for r in rows if r["mutant"].endswith("/control"))


def test_editing_a_module_the_artifact_imports_is_noticed(cli, tmp_path, monkeypatch):
    """With a context directory, the artifact's verdicts depend on its sibling modules: a rerun
    after helper.py changed must judge again (the control now fails), not reuse the old accept."""
    d = _project(tmp_path)
    monkeypatch.chdir(d)
    r = CliRunner().invoke(cli, ["corpus", "measure", "--quiet"])
    assert r.exit_code == 0, r.output
    assert _control(d)[0] == "accept"
    (d / "helper.py").write_text("K = 4\n")
    r = CliRunner().invoke(cli, ["corpus", "measure", "--quiet"])
    assert _control(d)[1] != "cached" and _control(d)[0] == "reject", (r.output, _control(d))


# --- the swap path (issue 26, speed): a mutant confined to one function is judged in a child of
# a suite collected once, with that function's code swapped; its verdicts must be the fork path's

ISBN = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "isbn"


def test_changed_function_names_only_a_lone_function_body_change():
    src = "K = 1\n\n\ndef f(x):\n    return x + K\n\n\nclass C:\n    def m(self):\n        return 2\n"
    assert changed_function(src, src.replace("x + K", "x - K").encode()) == "f"
    assert changed_function(src, src.replace("return 2", "return 3").encode()) == "C.m"
    # the last line shorter: the def's end column moves in the module's line table only
    assert changed_function(src, src.replace("return x + K", "return").encode()) == "f"
    assert changed_function(src, src.replace("return x + K", "return x + K\n    # x").encode()) is None  # C moves
    assert changed_function(src, src.replace("return x + K", "y = x\n    return y + K").encode()) is None  # lines shift
    assert changed_function(src, src.replace("K = 1", "K = 2").encode()) is None       # module code
    assert changed_function(src, src.replace("def f(x)", "def f(x=1)").encode()) is None  # import time
    assert changed_function(src, src.replace("return 2", "return 3").replace("x + K", "x - K").encode()) is None


def test_swap_verdicts_equal_the_fork_path_on_the_bundled_module():
    gate = load_gate(ISBN / "gate.toml")
    src = (ISBN / "isbn.py").read_text()
    muts = [m for m in generate(ArtifactSpec("l", "python", "isbn.py", src.encode(), {"role": "code"}), "fine")
            if m.content is not None and changed_function(src, m.content)][::6]
    with PytestSession(gate, ISBN, "isbn.py", workers=1) as s:
        assert s.swapping
        swapped = [s.judge(m) for m in muts]
        s.swapping = False
        forked = [s.judge(m) for m in muts]
    assert {r.executor for r in swapped} >= {"swap"}
    assert {r.executor for r in forked} <= {"fork", "coverage"}
    assert [r.judgement.verdict for r in swapped] == [r.judgement.verdict for r in forked]
    assert {r.judgement.verdict.value for r in swapped} >= {"accept", "reject"}


def _reload_suite(tmp_path, test_body: str):
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(test_body)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    mut = generate(ArtifactSpec("l", "python", "calc.py", (tmp_path / "art" / "calc.py").read_bytes(),
                                {"role": "code"}), "fine")
    return load_gate(tmp_path / "gate.toml"), next(m for m in mut if "a - b" in m.note)


def test_a_test_that_reloads_the_artifact_reads_the_mutant_on_the_swap_path(tmp_path):
    """A reload re-reads the file: the swap child points the import paths at its copy holding the
    mutant (issue 35; before, the word "reload" turned the swap path off for the session)."""
    gate, arith = _reload_suite(tmp_path, "import importlib\nimport calc\n\n\ndef test_add():\n"
                                          "    importlib.reload(calc)\n    assert calc.add(2, 3) == 5\n")
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.swapping
        r = s.judge(arith)
    assert r.executor == "swap" and r.judgement.verdict.value == "reject"


def test_swap_is_not_used_when_a_test_runs_the_artifact_by_path(tmp_path):
    """runpy (or exec of the file's text) runs the file by path, which no import path reaches."""
    gate, arith = _reload_suite(tmp_path, "import runpy\n\n\ndef test_add():\n"
                                          "    ns = runpy.run_path('calc.py')\n    assert ns['add'](2, 3) == 5\n")
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert not s.swapping
        r = s.judge(arith)
    assert r.executor == "fork" and r.judgement.verdict.value == "reject"


@pytest.mark.parametrize("old,new,cls", [
    ("return (10 - total % 10) % 10", "return (10 - total % 11) % 10", "number"),
    ("return (10 - total % 10) % 10", "return (10 + total % 10) % 10", "arithmetic"),
    ('if ch == "X":', 'if ch == "XXXX":', "string"),
    ("if len(d) != 10:", "if len(d) == 10:", "comparison"),
    ("if a and b:", "if a or b:", "boolean"),
    ("return check(d[:12], x)", "return check(None, x)", "argument"),
    ("return check(d[:12], x)", "return check(x)", "argument"),
    ("total = 0", "total = None", "value"),
    ("s = t.lstrip()", "s = t.rstrip()", "call"),
    # issue 35, the semver race: a change inside an f-string's field, a line cut from a call spread
    # over lines, a trailing argument dropped (mutmut leaves its comma) - each was another class
    ('raise E(f"{n} not {type(value).__name__}")', 'raise E(f"{n} not {type(None).__name__}")', "argument"),
    ("patch=self._patch, build=self._build)", "patch=self._patch, build=None)", "argument"),
    ("return type(self)(major + 1, 0, 0)", "return type(self)(major + 1, 0, )", "argument"),
    # the _abnf.py race: mutmut makes a conditional expression's test constant (the corpus's
    # condition_constant, a boolean change)
    ("x = a if isinstance(d, str) else b", "x = a if (isinstance(d, str)) or True else b", "boolean"),
    ("x = a if ok else b", "x = a if (ok) and False else b", "boolean"),
    # a dropped `not` is a boolean change (remove_not), or a comparison one where it made `is not`;
    # `x = None` -> `x = ""` is the value assigned replaced (assign_none's class)
    ("and not skip_utf8_validation", "and skip_utf8_validation", "boolean"),
    ("and data is not None", "and data is None", "comparison"),
    ("if key not in seen:", "if key in seen:", "comparison"),
    ("self.cont_data = None", 'self.cont_data = ""', "value"),
    ("self.cont_data: Optional[list[Any]] = None", 'self.cont_data: Optional[list[Any]] = ""', "value"),
])
def test_classify_a_mutmut_change(old, new, cls):
    assert classify_change(old, new) == cls


@pytest.mark.parametrize("op", ["ternary_constant", "none_to_empty"])
def test_the_corpus_operators_mutmut_shares_are_read_in_their_own_class(op):
    """The matcher reads mutmut's form of a change in the class it gives the corpus operator that
    makes the same change: each example of the operator, read as another tool's one-line change,
    lands in ``OPERATOR_CLASS[op]`` (else a mutmut survivor beside a corpus one is a false miss)."""
    from benchmarks.bench_mutmut import OPERATOR_CLASS
    from corpus.operators import NO_MUTANT, operators
    fine = {o.name: o for o in operators("fine")}
    assert set(fine) <= set(OPERATOR_CLASS), sorted(set(fine) - set(OPERATOR_CLASS))
    made = [e for e in fine[op].examples() if e.after is not NO_MUTANT]
    assert made
    for e in made:
        assert classify_change(e.before.strip(), e.after.strip()) == OPERATOR_CLASS[op], (e.before, e.after)


def test_survivors_missed_is_by_line_and_class():
    mutmut = [{"line": 28, "class": "number", "change": "a"}, {"line": 6, "class": "string", "change": "b"}]
    corpus = [{"line": 28, "class": "number", "change": "x"}, {"line": 6, "class": "argument", "change": "y"}]
    assert survivors_missed(mutmut, corpus) == [mutmut[1]]
    assert survivors_missed(mutmut[:1], corpus) == []
    # a call spread over lines: mutmut names the changed line, the corpus the statement's first
    source = "def f(a):\n    return dict(\n        x=a,\n        y=a)\n"
    cut = [{"line": 4, "class": "argument", "change": "y=a) -> y=None)"}]
    assert survivors_missed(cut, [{"line": 2, "class": "argument", "change": "z"}], source) == []
    assert survivors_missed(cut, [{"line": 2, "class": "argument", "change": "z"}]) == cut


@pytest.mark.parametrize("text,needle", [
    ('tool = "x"\n', "[tool]"),
    ('[tool]\nproof-harness = 3\n', "[tool.proof-harness]"),
    ('[tool.proof-harness.corpus]\ngate = "a\\u0000b"\n', "'gate'"),
])
def test_a_hostile_pyproject_table_is_one_clear_error(tmp_path, text, needle):
    """A pyproject.toml whose tool or proof-harness entry is not a table, or a path holding a
    NUL byte, is a DeclarationError naming the file and key (never an AttributeError)."""
    from corpus.config import load_config
    from corpus.declarations import DeclarationError
    (tmp_path / "pyproject.toml").write_text(text)
    with pytest.raises(DeclarationError) as exc:
        load_config(tmp_path / "pyproject.toml")
    assert "pyproject.toml" in str(exc.value) and needle in str(exc.value), str(exc.value)


def test_swap_finds_the_implementation_after_overload_stubs(tmp_path):
    """typing.overload stubs share the implementation's name: the swap picks the live function's
    code (by its first line), so the mutant is swapped, and judged as the fork path judges it."""
    swapped, forked = swapped_and_forked(
        tmp_path,
        "from typing import overload\n\n\n@overload\ndef add(a: int, b: int) -> int: ...\n\n\n"
        "@overload\ndef add(a: str, b: str) -> str: ...\n\n\ndef add(a, b):\n    return a + b\n",
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    assert swapped.executor == "swap" and forked.executor == "fork"
    assert swapped.judgement.verdict == forked.judgement.verdict
    assert swapped.judgement.verdict.value == "reject"
