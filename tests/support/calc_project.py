"""Tiny pytest-gated ``calc`` projects for the corpus tests: a module under ``art/``, its tests
under ``tests/`` and a ``gate.toml`` that runs them, written into a temporary directory.

The mutation tests build the same few projects again and again (one to compare the swap and fork
executors, one with a test file per function for the judgment cache); these builders write them
once, so each test shows only what it varies: the module, the tests, what it asserts.
"""
from __future__ import annotations

from pathlib import Path

from corpus.catalogue import Loop
from corpus.fast_pytest import FastJudgement, PytestSession
from corpus.gates import load_gate
from corpus.model import ArtifactSpec
from corpus.operators import generate

TWO_FUNCTIONS = "def add(a, b):\n    return a + b\n\n\ndef neg(x):\n    return -x\n"


def write_pytest_gate(d: Path, name: str) -> Path:
    """``d/gate.toml``: a pytest gate named ``name`` over the tests in ``d/tests``."""
    gate = d / "gate.toml"
    gate.write_text(f'[gate]\nname = "{name}"\nkind = "pytest"\ntests = "tests"\n')
    return gate


def swapped_and_forked(d: Path, calc: str, test_calc: str) -> tuple[FastJudgement, FastJudgement]:
    """Judge the ``a + b -> a - b`` mutant of ``calc`` (``art/calc.py``, tested by
    ``tests/test_calc.py`` = ``test_calc``) in one session twice: first by the swap child (the
    session must start swapping), then with swapping off, by the fork path."""
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(calc)
    (d / "tests").mkdir()
    (d / "tests" / "test_calc.py").write_text(test_calc)
    gate = load_gate(write_pytest_gate(d, "s"))
    muts = generate(ArtifactSpec("l", "python", "calc.py", (d / "art" / "calc.py").read_bytes(),
                                 {"role": "code"}), "fine")
    minus = next(m for m in muts if "a - b" in m.note)
    with PytestSession(gate, d / "art", "calc.py", workers=1) as s:
        assert s.swapping
        swapped = s.judge(minus)
        s.swapping = False
        forked = s.judge(minus)
    return swapped, forked


def add_and_neg_loop(d: Path, add_asserts: str) -> Loop:
    """The ``calc`` Loop over ``add`` and ``neg`` (``TWO_FUNCTIONS``), each with its own test file:
    ``tests/test_add.py`` asserts ``add_asserts``, ``tests/test_neg.py`` that ``neg(0) == 0``."""
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(TWO_FUNCTIONS)
    (d / "tests").mkdir()
    (d / "tests" / "test_add.py").write_text(f"from calc import add\n\n\ndef test_add():\n    assert {add_asserts}\n")
    (d / "tests" / "test_neg.py").write_text("from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n")
    return Loop(id="calc", dir=d, title="calc", domains=["software"], requirement="(test)", kind="python",
                target="calc.py", artifact_dir=d / "art", hints={"role": "code"}, not_applicable=(),
                gate_paths=[write_pytest_gate(d, "calc")])
