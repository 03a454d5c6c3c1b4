"""Review of the issue-26 corpus work as a user would be hurt by it: a judgment cache that hands
back a stale verdict after an edit it should have noticed."""
from __future__ import annotations

import csv
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from corpus.cli import register
from corpus.incremental import context_digest, unit_key
from corpus.model import ArtifactSpec
from corpus.operators import generate

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


@pytest.fixture(scope="module")
def cli():
    @click.group()
    def main():
        pass
    register(main)
    return main


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
