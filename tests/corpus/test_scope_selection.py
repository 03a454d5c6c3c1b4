"""Issue 26: a mutant that changes only one function's variables (a local made global by removing
its only binding) is judged by the tests that ran that function, not the whole suite, and on the
swap path; its verdicts equal the cold whole-suite run's."""
from __future__ import annotations

from corpus.fast_pytest import PytestSession
from corpus.gates import judge, load_gate
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize

CALC = ("LIMIT = 100\n\n\ndef clamp(x):\n    limit = 10\n    if x > limit:\n        return limit\n    return x\n\n\n"
        "def double(x):\n    return 2 * x\n")
TESTS = ("from calc import clamp, double\n\n\ndef test_clamp():\n    assert clamp(50) == 10\n\n\n"
         "def test_small():\n    assert clamp(3) == 3\n\n\ndef test_double():\n    assert double(2) == 4\n")


def test_a_local_made_global_selects_the_functions_tests(tmp_path):
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    gate = load_gate(tmp_path / "gate.toml")
    muts = generate(ArtifactSpec("l", "python", "calc.py", CALC.encode(), {"role": "code"}), "fine")
    removed = next(m for m in muts if m.note == "L5: removed 'limit = 10'")   # limit now reads LIMIT
    with PytestSession(gate, tmp_path / "art", "calc.py", workers=1) as s:
        assert s.map is not None
        sel = s.map.select(removed.content)
        r = s.judge(removed)
    assert sel is not None and sorted(t.split("::")[-1] for t in sel) == ["test_clamp", "test_small"]
    assert r.executor == "swap" and r.tests == 2
    cold = judge(gate, materialize(tmp_path / "art", removed, tmp_path / "cold"), "calc.py")
    assert r.judgement.verdict == cold.verdict and cold.verdict.value == "reject"
