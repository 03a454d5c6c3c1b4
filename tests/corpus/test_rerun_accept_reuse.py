"""Red team of issue 26's accept reuse (now corpus/rerun.py's ``FineReuse``): edits of a test file that holds
no selected test but still changes what a selected test does. Each case compares the second run's
verdict of ``a + b -> a - b`` with what a run from scratch says (killed): a reused accept there is a
false accept in the published survivors.

Formerly ``tests/corpus/test_accept_reuse_r26.py``, named after its origin."""
from __future__ import annotations

from pathlib import Path

from corpus.catalogue import Loop
from corpus.measure import measure

MUTANT = "L5: a + b -> a - b"


def _project(d: Path, test_add: str, others: dict[str, str]) -> Loop:
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text("SAMPLE = (0, 0)\n\n\ndef add(a, b):\n    return a + b\n\n\n"
                                       "def neg(x):\n    return -x\n")
    (d / "tests").mkdir()
    (d / "tests" / "test_add.py").write_text(test_add)
    for name, text in others.items():
        (d / "tests" / name).write_text(text)
    (d / "gate.toml").write_text('[gate]\nname = "calc"\nkind = "pytest"\ntests = "tests"\n')
    return Loop(id="calc", dir=d, title="calc", domains=["software"], requirement="(test)", kind="python",
                target="calc.py", artifact_dir=d / "art", hints={"role": "code"}, not_applicable=(),
                gate_paths=[d / "gate.toml"])


def _run(loop: Loop, cache: Path, fresh: bool = False):
    """The mutant's row (and the control's): the other mutants of the family are left out of the plan
    (``keep``, as ``--since`` narrows it), which changes no judgment of the one kept."""
    keep = (lambda job: job.mutant.note == MUTANT, "the one mutant these cases are about")
    m = measure([loop], families=("fine",), tier2=False, workers=1, cache=None if fresh else cache, keep=keep)
    return {m.mutants[r.mutant].note: r for r in m.rows if not r.is_control}


def _twice(tmp_path: Path, test_add: str, others: dict[str, str], edit: dict[str, str]):
    """The mutant's row after a cached run, ``edit`` and a second cached run; and a fresh run's."""
    loop = _project(tmp_path, test_add, others)
    cache = tmp_path / "out" / "judgment-cache.jsonl"
    cache.parent.mkdir()
    first = _run(loop, cache)
    assert first[MUTANT].verdict == "accept", first[MUTANT]
    for name, text in edit.items():
        (tmp_path / "tests" / name).write_text(text)
    return _run(loop, cache)[MUTANT], _run(loop, cache, fresh=True)[MUTANT]


NEG = "from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n"


def test_a_test_named_helper_module_imported_by_the_covering_test_rejudges_the_accept(tmp_path):
    """test_data.py holds no test that runs ``add`` (so no selected test), but test_add.py takes its
    cases from it: a new case there kills the mutant."""
    test_add = ("from calc import add\nfrom test_data import CASES\n\n\ndef test_add():\n"
                "    for a, b in CASES:\n        assert add(a, b) == a + b\n")
    data = "CASES = [(0, 0)]\n\n\ndef test_cases():\n    assert CASES\n"
    second, fresh = _twice(tmp_path, test_add, {"test_data.py": data, "test_neg.py": NEG},
                           {"test_data.py": data.replace("[(0, 0)]", "[(0, 0), (2, 3)]")})
    assert fresh.verdict == "reject"
    assert (second.verdict, second.executor != "cached") == ("reject", True), second


def test_a_global_patch_at_import_in_a_non_covering_test_file_rejudges_the_accept(tmp_path):
    """test_neg.py runs none of ``add``'s lines, but an edit sets calc.SAMPLE when it is collected
    (before any test runs): test_add now adds (2, 3) and kills the mutant."""
    test_add = "import calc\n\n\ndef test_add():\n    a, b = calc.SAMPLE\n    assert calc.add(a, b) == a + b\n"
    second, fresh = _twice(tmp_path, test_add, {"test_neg.py": NEG},
                           {"test_neg.py": "import calc\n\ncalc.SAMPLE = (2, 3)\n" + NEG})
    assert fresh.verdict == "reject"
    assert (second.verdict, second.executor != "cached") == ("reject", True), second


def test_an_edit_of_a_non_covering_tests_body_still_keeps_the_accept(tmp_path):
    """The reuse's point survives the fix: only a test body that is not selected changed."""
    test_add = "from calc import add\n\n\ndef test_add():\n    assert add(0, 0) == 0\n"
    second, fresh = _twice(tmp_path, test_add, {"test_neg.py": NEG},
                           {"test_neg.py": NEG + "    assert neg(3) == -3\n"})
    assert fresh.verdict == "accept"
    assert (second.verdict, second.executor) == ("accept", "cached"), second


def _covering(tmp_path: Path, files: dict[str, str]) -> str | None:
    """The fingerprint of test_add (corpus/rerun.py ``TestPrints``) over the test files now in
    ``tmp_path``: what an accept or a kill of a mutant test_add covers rests on."""
    from corpus.coverage_map import CoverageMap
    from corpus.incremental import SuiteSplit
    from corpus.rerun import TestPrints
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    cmap = CoverageMap(target="calc.py", source="def add(a, b):\n    return a + b\n", order=["test_add.py::test_add"],
                       contexts={2: {"test_add.py::test_add"}}, statements={1, 2})
    return TestPrints(cmap, SuiteSplit(sorted(tmp_path.glob("*.py")), "calc")).of("test_add.py::test_add")


ADD = "from calc import add\n\n\ndef test_add():\n    assert add(0, 0) == 0\n"
PARAM = "import pytest\nfrom calc import neg\n\n\n@pytest.mark.parametrize('x', [0], ids=['zero'])\n" \
        "def test_neg(x):\n    assert neg(x) == -x\n"


def test_what_a_non_selected_test_file_adds_to_the_covering_digest(tmp_path):
    base = _covering(tmp_path, {"test_add.py": ADD, "test_neg.py": NEG})
    assert base is not None
    # a body edit of a test that is not selected, a new file of plain tests: the same digest
    assert _covering(tmp_path, {"test_neg.py": NEG + "    assert neg(3) == -3\n"}) == base
    assert _covering(tmp_path, {"test_more.py": "import calc\n\n\ndef test_more():\n    calc.neg(1)\n"}) == base
    # what runs at collection: a global patch, a fixture, a parametrize id, a helper import
    assert _covering(tmp_path, {"test_neg.py": "import calc\ncalc.SAMPLE = (2, 3)\n" + NEG}) != base
    (tmp_path / "test_neg.py").write_text(NEG)
    assert _covering(tmp_path, {"test_neg.py": "import pytest\n\n\n@pytest.fixture\ndef f():\n    return 1\n"
                                + NEG}) != base
    (tmp_path / "test_neg.py").write_text(NEG)
    p1 = _covering(tmp_path, {"test_neg.py": PARAM})
    assert p1 != base and _covering(tmp_path, {"test_neg.py": PARAM.replace("zero", "nil")}) != p1
    # a test file another test imports counts whole, test bodies included
    (tmp_path / "test_neg.py").write_text(NEG)
    h1 = _covering(tmp_path, {"test_add.py": "from test_neg import test_neg\n" + ADD})
    assert _covering(tmp_path, {"test_neg.py": NEG.replace("neg(0) == 0", "neg(1) == -1")}) != h1


def test_a_fixture_named_test_and_a_plugin_test_file_count_whole(tmp_path):
    fx = "import pytest\n\n\n@pytest.fixture\ndef test_value():\n    return 0\n"
    base = _covering(tmp_path, {"test_add.py": ADD, "test_neg.py": NEG, "test_fx.py": fx})
    assert _covering(tmp_path, {"test_fx.py": fx.replace("return 0", "return 2")}) != base
    # a test file loaded as a plugin by conftest.py (its fixtures serve every test)
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["test_plug"]\n')
    plug = "def test_plug_helper():\n    return 0\n"
    p1 = _covering(tmp_path, {"test_plug.py": plug})
    assert _covering(tmp_path, {"test_plug.py": plug.replace("0", "1")}) != p1
