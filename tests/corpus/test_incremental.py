"""Incremental runs (issue 26): a rerun on unchanged code re-judges nothing and says so in one line;
an edit re-judges only the edited function's mutants; --since GIT_REF judges only the functions
changed since a revision."""
from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

from click.testing import CliRunner

from corpus.incremental import changed_units, in_changed, unit_key
from corpus.model import ArtifactSpec
from corpus.operators import generate

CALC = ("LIMIT = 10\n\n\ndef add(a, b):\n    return a + b\n\n\ndef sign(x):\n    if x < 0:\n        return -1\n"
        "    return 1\n\n\ndef scale(x):\n    return x * 3\n")
TESTS = ("from calc import add, sign\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_sign():\n    assert sign(-4) == -1 and sign(5) == 1\n")

SCALE_LINE = CALC.splitlines().index("    return x * 3") + 1




def _muts(src: str) -> list:
    return generate(ArtifactSpec("l", "python", "calc.py", src.encode(), {"role": "code"}), "fine")


def _keys(src: str) -> dict[str, str]:
    """note (line-free: operator + change) -> unit key, per function."""
    return {f"{m.operator}|{m.note.split(':', 1)[1]}": unit_key(src.encode(), m) for m in _muts(src)}


def test_unit_key_follows_the_function_not_the_file():
    before = _keys(CALC)
    edited = CALC.replace("x * 3", "x * 4")
    after = _keys(edited)
    same = {k for k in before if k in after and before[k] == after[k]}
    add_sign = {k for k in before if "a + b" in k or "x < 0" in k or "-1" in k}
    assert add_sign and add_sign <= same                     # untouched functions keep their keys
    assert not any("x * 3" in k for k in same)               # the edited function's mutants do not
    # a change to the module's top-level code (a constant) changes every key
    moved = _keys(CALC.replace("LIMIT = 10", "LIMIT = 11"))
    assert not set(before.values()) & set(moved.values())
    # blank lines added above a function shift its lines, not its key
    shifted = _keys(CALC.replace("def add", "\n\ndef add"))
    assert {before[k] for k in add_sign} <= set(shifted.values())


def test_changed_units_and_since_filter():
    parent = CALC.encode()
    scale_line = SCALE_LINE
    spans = changed_units(parent, {scale_line})
    assert spans and len(spans) == 1
    kept = [m for m in _muts(CALC) if in_changed(parent, m, spans)]
    assert kept and all(m.note.startswith(f"L{scale_line}:") for m in kept)


def _git(d: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=d, check=True, capture_output=True)


def _project(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "calc-suite"\nkind = "pytest"\ntests = "tests"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.proof-harness.corpus]\ngate = "gate.toml"\nartifact = "calc.py"\n'
                                             'families = ["fine"]\nout = ".corpus"\nworkers = 2\n')
    return tmp_path


def _verdicts(d: Path) -> dict[str, tuple[str, str]]:
    rows = csv.DictReader((d / ".corpus" / "judgments.csv").open())
    return {r["mutant"]: (r["verdict"], r["executor"]) for r in rows}


def test_rerun_judges_nothing_and_an_edit_only_its_function(cli, tmp_path, monkeypatch):
    d = _project(tmp_path)
    monkeypatch.chdir(d)
    r = CliRunner().invoke(cli, ["corpus", "measure"])
    assert r.exit_code == 0, r.output
    first = _verdicts(d)
    n = sum(1 for k in first if not k.endswith("/control"))
    assert f"0 unchanged, {n} to judge" in r.output
    r = CliRunner().invoke(cli, ["corpus", "measure"])
    assert r.exit_code == 0 and f"{n} unchanged, 0 to judge" in r.output, r.output
    again = _verdicts(d)
    assert {k: v[0] for k, v in again.items()} == {k: v[0] for k, v in first.items()}
    assert {v[1] for k, v in again.items() if not k.endswith("/control")} == {"cached"}
    # edit scale() only: only its mutants are judged
    (d / "calc.py").write_text(CALC.replace("x * 3", "x * 4"))
    scale_muts = [m for m in _muts(CALC) if m.note.startswith(f"L{SCALE_LINE}:")]
    r = CliRunner().invoke(cli, ["corpus", "measure"])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if "to judge" in x)
    reused, todo = int(line.split()[0]), int(line.split(", ")[1].split()[0])
    assert todo == len(scale_muts) and reused + todo == n, (line, len(scale_muts))
    # --fresh ignores the cache
    r = CliRunner().invoke(cli, ["corpus", "measure", "--fresh", "--quiet"])
    assert r.exit_code == 0 and "0 unchanged" not in r.output


def test_since_git_ref(cli, tmp_path, monkeypatch):
    d = _project(tmp_path)
    _git(d, "init", "-q")
    _git(d, "add", "calc.py")
    _git(d, "commit", "-qm", "calc")
    (d / "calc.py").write_text(CALC.replace("x * 3", "x * 4"))
    monkeypatch.chdir(d)
    r = CliRunner().invoke(cli, ["corpus", "measure", "--since", "HEAD", "--quiet"])
    assert r.exit_code == 0, r.output
    s = json.loads((d / ".corpus" / "summary.json").read_text())
    assert any(e["reason"] == "unchanged since HEAD" for e in s["exclusions"])
    judged = [k for k in _verdicts(d) if not k.endswith("/control")]
    notes = {json.loads(x)["id"]: json.loads(x)["note"] for x in (d / ".corpus" / "mutants.jsonl").read_text().splitlines()}
    assert judged and all(notes[k].startswith(f"L{SCALE_LINE}:") for k in judged), [notes[k] for k in judged]
    r = CliRunner().invoke(cli, ["corpus", "measure", "--since", "no-such-ref", "--quiet"])
    assert r.exit_code == 2 and "--since no-such-ref" in r.output and "Traceback" not in r.output


# issue 26: an edit of a *caller* of the mutated function re-judges it (a test reaching the mutant
# through the caller may now kill it); so does an edit of a callee of such a caller
CALLS = ("def f(x):\n    return x * 2\n\n\ndef caller(x):\n    return f(x) + 1\n\n\n"
         "def sibling(z):\n    return z + 3\n\n\ndef top(x):\n    return caller(sibling(x))\n\n\n"
         "def other(y):\n    return y - 1\n")


def _f_keys(src: str) -> dict[str, str]:
    line = src.splitlines().index("    return x * 2") + 1
    return {f"{m.operator}|{m.note.split(':', 1)[1]}": unit_key(src.encode(), m)
            for m in _muts(src) if m.note.startswith(f"L{line}:")}


def test_an_edit_of_a_caller_changes_the_key():
    before = _f_keys(CALLS)
    assert before
    for edit in (("f(x) + 1", "f(x) + 7"),            # the caller
                 ("caller(sibling(x))", "caller(x)"),  # the caller's caller
                 ("z + 3", "z - 3")):                  # what a caller passes on (its callee)
        after = _f_keys(CALLS.replace(*edit))
        assert not set(before.values()) & set(after.values()), edit
    assert _f_keys(CALLS.replace("y - 1", "y - 5")) == before     # unrelated: kept


# issue 26, refined by issue 35: a reject is reused while the test that killed it is unchanged,
# whatever else in the suite was edited; an accept is judged again when a test covering it was
# added or edited (it may kill it now)
def _two_file_project(d: Path):
    """add's test kills ``a - b`` (a reject whose killer is in test_add.py)."""
    from support.calc_project import add_and_neg_loop
    return add_and_neg_loop(d, "add(2, 3) == 5")


def test_a_reject_survives_an_edit_of_another_test_file(tmp_path):
    from corpus.measure import measure
    loop = _two_file_project(tmp_path)
    cache = tmp_path / "out" / "judgment-cache.jsonl"
    cache.parent.mkdir()

    def run(fresh: bool = False):
        m = measure([loop], families=("fine",), tier2=False, workers=1, cache=None if fresh else cache)
        return {r.mutant: r for r in m.rows if not r.is_control}, m
    first, m0 = run()
    add_rejects = {k for k, r in first.items() if r.verdict == "reject" and r.killer and "test_add" in r.killer}
    neg_rejects = {k for k, r in first.items() if r.verdict == "reject" and r.killer and "test_neg" in r.killer}
    # neg's survivors (line 6, ``return -x``): test_neg_one, added below, covers them
    neg_accepts = {k for k, r in first.items() if r.verdict == "accept" and m0.mutants[k].note.startswith("L6:")}
    assert add_rejects and neg_rejects and neg_accepts
    (tmp_path / "tests" / "test_neg.py").write_text(
        "from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n\n\ndef test_neg_one():\n    assert neg(1) == -1\n")
    second, m = run()
    # the kills of unchanged tests are kept; what the added test covers is judged again
    assert all(second[k].executor == "cached" and second[k].verdict == "reject" for k in add_rejects | neg_rejects)
    assert all(second[k].executor != "cached" for k in neg_accepts)
    assert m.cached == sum(r.executor == "cached" for r in second.values())
    assert {k: r.verdict for k, r in second.items()} == {k: r.verdict for k, r in run(fresh=True)[0].items()}
    (tmp_path / "tests" / "test_add.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(0, 0) == 0\n")
    third, _ = run()
    assert all(third[k].executor != "cached" for k in add_rejects)    # the killer itself changed
    assert all(third[k].executor == "cached" for k in neg_rejects)


def test_the_world_digest_holds_what_a_run_can_read_and_leaves_out_what_is_keyed_finer(tmp_path, monkeypatch):
    """corpus/incremental.world_digest's table, row by row: every file under the roots (a hidden
    directory, a linked directory and a linked file followed), pytest's files above the roots,
    the children's environment, what is installed on sys.path; not the module and test files
    (``leave_out``), the --out directory, caches or a VCS's directory."""
    import os
    import sys

    from corpus.incremental import world_digest
    proj, out, outside, site = tmp_path / "a" / "proj", tmp_path / "a" / "proj" / "out", tmp_path / "outside", \
        tmp_path / "site"
    for d in (proj / "art", proj / "tests", out, outside, site, proj / ".git", proj / "tests" / "__pycache__"):
        d.mkdir(parents=True)
    module, test = proj / "art" / "m.py", proj / "tests" / "test_m.py"
    module.write_text("X = 1\n")
    test.write_text("def test_x():\n    pass\n")
    (outside / "data.json").write_text("1\n")
    (proj / "tests" / "linked").symlink_to(outside)
    (proj / "one.json").symlink_to(outside / "data.json")
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setattr(sys, "path", [*sys.path, str(site)])

    def key() -> str:
        return world_digest([proj / "art", proj / "tests", proj], {module, test}, out)
    k0 = key()
    for change in (lambda: module.write_text("X = 2\n"), lambda: test.write_text("def test_x():\n    assert 1\n"),
                   lambda: (out / "judgment-cache.jsonl").write_text("{}\n"), lambda: (proj / ".git" / "HEAD").write_text("x"),
                   lambda: (proj / "tests" / "__pycache__" / "t.pyc").write_bytes(b"\0")):
        change()
        assert key() == k0
    for change in (lambda: (proj / ".conf").mkdir() or (proj / ".conf" / "rate.json").write_text("2\n"),
                   lambda: (outside / "data.json").write_text("2\n"),          # through both links
                   lambda: (tmp_path / "a" / "conftest.py").write_text("X = 1\n"),
                   lambda: (tmp_path / "a" / "conftest.py").write_text("X = 2\n"),
                   lambda: os.environ.__setitem__("TZ", "EST5"),
                   lambda: (site / "lib-1.0.dist-info").mkdir()):
        change()
        k1 = key()
        assert k1 != k0
        k0 = k1


def test_the_users_original_of_the_judging_copy_counts_by_its_path_in_the_world(tmp_path):
    """``harness corpus measure`` without --context-dir judges a copy of the artifact: the
    original in the project tree holds the module's bytes, keyed finer; any other content of
    that file (or another file of that name) is keyed as every file is."""
    from corpus.incremental import world_digest
    (tmp_path / "calc.py").write_text("X = 1\n")

    def key(module: bytes) -> str:
        return world_digest([tmp_path], set(), None, ("calc.py", module))
    k1 = key(b"X = 1\n")
    (tmp_path / "calc.py").write_text("X = 2\n")       # edited, and copied again as the module
    assert key(b"X = 2\n") == k1
    k = key(b"X = 3\n")             # the file does not hold the module's bytes: its content counts
    assert k != k1
    (tmp_path / "calc.py").write_text("X = 4\n")
    assert key(b"X = 3\n") != k
