"""Developer habits (issue 26): `# pragma: no mutate` and skip_lines regexes, the
[tool.proof-harness.corpus] table of pyproject.toml, and browsing a finished measurement with
`corpus results / show / apply / retest`."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.browse import splice
from corpus.config import load_config
from corpus.declarations import DeclarationError
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.operators.fine import skipped_lines

CALC = ("def add(a, b):\n    return a + b\n\n\ndef sign(x):\n    if x < 0:  # pragma: no mutate\n"
        "        return -1\n    return 1\n\n\ndef scale(x):\n    return x * 3\n")
TESTS = ("from calc import add, sign\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
         "def test_sign():\n    assert sign(-4) == -1\n")




def _fine(src: str, **hints) -> list:
    return generate(ArtifactSpec("l", "python", "m.py", src.encode(), {"role": "code", **hints}), "fine")


def test_pragma_no_mutate_drops_that_line_only():
    src = "def f(a, b):\n    x = a + b  # pragma: no mutate\n    y = a * 2\n    return x + y\n"
    lines = {m.note.split(":")[0] for m in _fine(src)}
    assert "L2" not in lines and {"L3", "L4"} <= lines
    # the same text in a string is not a pragma; a pragma spelt with extra spaces is
    assert skipped_lines("s = '# pragma: no mutate'\nt = 1  #pragma:  no  mutate\n") == frozenset({2})


def test_skip_lines_regex():
    src = "def f(a):\n    log.debug('x %s', a + 1)\n    return a - 1\n"
    lines = {m.note.split(":")[0] for m in _fine(src, skip_lines=[r"log\.debug"])}
    assert lines and "L2" not in lines and "L3" in lines
    assert "L2" in {m.note.split(":")[0] for m in _fine(src)}


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "calc-suite"\nkind = "pytest"\ntests = "tests"\n')
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'calc'\n\n[tool.proof-harness.corpus]\n{table}")
    return tmp_path / "pyproject.toml"


@pytest.mark.parametrize("table,needle", [
    ('gate = "gate.toml"\nartfact = "calc.py"\n', "unknown key 'artfact'"),
    ('workers = "two"\n', "key 'workers': expected an integer"),
    ('families = ["fine", "v9"]\n', "unknown family 'v9'"),
    ('skip_lines = ["(unclosed"]\n', "key 'skip_lines'"),
    ('bound = "upper-ish"\n', "key 'bound'"),
])
def test_config_refuses_bad_keys(tmp_path, table, needle):
    path = _project(tmp_path, table)
    with pytest.raises(DeclarationError) as e:
        load_config(path)
    assert str(path) in str(e.value) and "[tool.proof-harness.corpus]" in str(e.value) and needle in str(e.value)


def test_config_drives_measure_and_browsing(cli, tmp_path, monkeypatch):
    _project(tmp_path, 'gate = "gate.toml"\nartifact = "calc.py"\nfamilies = ["fine"]\nout = ".corpus"\n'
                       'workers = 1\nskip_lines = ["x \\\\* 3"]\n')
    monkeypatch.chdir(tmp_path)
    run = CliRunner()
    r = run.invoke(cli, ["corpus", "measure", "--quiet"])
    assert r.exit_code == 0, r.output
    s = json.loads((tmp_path / ".corpus" / "summary.json").read_text())
    assert s["families"] == ["fine"] and s["gates"][0]["all"]["destroying_judged"] > 0
    notes = [json.loads(x)["note"] for x in (tmp_path / ".corpus" / "mutants.jsonl").read_text().splitlines()]
    assert not any(n.startswith(("L6:", "L12:")) for n in notes)    # pragma line and skip_lines regex
    # a bad key on the command line's behalf: one line, exit 2
    (tmp_path / "pyproject.toml").write_text("[tool.proof-harness.corpus]\nbogus = 1\n")
    bad = run.invoke(cli, ["corpus", "measure"])
    assert bad.exit_code == 2 and "bogus" in bad.output and "Traceback" not in bad.output
    (tmp_path / "pyproject.toml").write_text("[tool.proof-harness.corpus]\nout = '.corpus'\n")

    r = run.invoke(cli, ["corpus", "results"])
    assert r.exit_code == 0 and "survivors of" in r.output, r.output
    survivor = r.output.splitlines()[0].split()[0]        # sign(): no test of x >= 0
    r = run.invoke(cli, ["corpus", "show", survivor.split("/", 1)[1]])
    assert r.exit_code == 0 and "--- a/calc.py" in r.output and "calc-suite: accept" in r.output, r.output
    r = run.invoke(cli, ["corpus", "retest", survivor])
    assert r.exit_code == 0 and "accept -> accept" in r.output, r.output
    before = (tmp_path / "calc.py").read_bytes()
    r = run.invoke(cli, ["corpus", "apply", survivor])
    assert r.exit_code == 0 and (tmp_path / "calc.py").read_bytes() != before, r.output
    # the artifact changed since the measurement: a mutant of the old text is refused
    r = run.invoke(cli, ["corpus", "apply", survivor])
    assert r.exit_code == 2 and "changed since it was measured" in r.output
    assert run.invoke(cli, ["corpus", "show", "no/such/mutant"]).exit_code == 2


@pytest.mark.parametrize("a,b", [(b"abc", b"abd"), (b"abc", b"abc"), (b"", b"x"), (b"aaaa", b"aa"),
                                 (b"xaay", b"xay"), (b"abc", b"")])
def test_splice_round_trip(a, b):
    lo, hi, rep = splice(a, b)
    assert a[:lo] + rep + a[hi:] == b


def test_pragma_block_form_start_end():
    src = ("def f(a, b):\n    x = a + b\n    # pragma: no mutate start\n    y = a * 2\n    z = b - 1\n"
           "    # pragma: no mutate end\n    return x + y + z\n")
    lines = {m.note.split(":")[0] for m in _fine(src)}
    assert {"L2", "L7"} <= lines and not lines & {"L4", "L5"}
    # an unclosed start runs to the end of the file; an end with no start is nothing
    assert skipped_lines("a = 1\n# pragma: no mutate start\nb = 2\nc = 3\n") >= {3, 4}
    assert skipped_lines("a = 1\n# pragma: no mutate end\nb = 2\n") == frozenset()


def test_pragma_on_a_def_or_class_line_covers_its_body():
    src = ("def f(a):  # pragma: no mutate\n    return a + 1\n\n\n"
           "@decorate  # pragma: no mutate\ndef g(a):\n    return a - 1\n\n\n"
           "class C:  # pragma: no mutate\n    def h(self):\n        return 2 * 3\n\n\n"
           "def k(a):\n    return a * 2\n")
    lines = {m.note.split(":")[0] for m in _fine(src)}
    assert lines and not lines & {"L1", "L2", "L5", "L6", "L7", "L10", "L11", "L12"}
    assert "L16" in lines


def test_mutmut_table_is_read_when_ours_is_absent(cli, tmp_path, monkeypatch):
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'calc'\n\n[tool.mutmut]\n"
                                             "paths_to_mutate = ['calc.py']\ntests_dir = ['tests/']\n")
    cfg = load_config(tmp_path / "pyproject.toml")
    assert cfg.from_mutmut and cfg.artifact == (tmp_path / "calc.py").resolve() and cfg.families == ("fine",)
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["corpus", "measure", "--workers", "1", "--survivors", "0"])
    assert r.exit_code == 0, r.output
    assert "read [tool.mutmut]" in r.output and "no [tool.proof-harness.corpus] table" in r.output
    s = json.loads((tmp_path / ".corpus" / "summary.json").read_text())
    assert s["families"] == ["fine"] and s["gates"][0]["all"]["destroying_judged"] > 0
    # do_not_mutate naming the module: one line, exit 2
    (tmp_path / "pyproject.toml").write_text("[tool.mutmut]\npaths_to_mutate = 'calc.py'\ndo_not_mutate = ['calc*']\n")
    r = CliRunner().invoke(cli, ["corpus", "measure"])
    assert r.exit_code == 2 and "do_not_mutate" in r.output and "Traceback" not in r.output
    # mutmut names a directory: the corpus measures one module, said in one line
    (tmp_path / "pyproject.toml").write_text("[tool.mutmut]\npaths_to_mutate = ['src/']\n")
    with pytest.raises(DeclarationError, match="one module"):
        load_config(tmp_path / "pyproject.toml")


@pytest.mark.parametrize("tests,needle", [
    ("def test_add():\n    assert False\n", "does not pass on the unmutated artifact"),
    ("def helper():\n    pass\n", "collected no test"),
])
def test_nothing_measured_exits_1_with_one_line(cli, tmp_path, tests, needle):
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(tests)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "calc-suite"\nkind = "pytest"\ntests = "tests"\n')
    r = CliRunner().invoke(cli, ["corpus", "measure", "--gate", str(tmp_path / "gate.toml"), "--artifact",
                                 str(tmp_path / "calc.py"), "--family", "fine", "--out", str(tmp_path / "o"),
                                 "--workers", "1", "--quiet", "--survivors", "0"])
    assert r.exit_code == 1, r.output
    last = r.output.strip().splitlines()[-1]
    assert last.startswith("nothing measured: ") and needle in last, r.output


def test_an_ifs_negation_is_opt_in_and_a_conditional_expressions_is_not():
    """negate_if (an if's condition negated) is off by default: condition_constant's two mutants
    subsume it (docs/mutation.md); a conditional expression's negation (add_not) stays on, since
    it swaps the arms, which forcing each arm does not (isbn's 3/1 weights)."""
    src = "def f(a, b):\n    if a:\n        return b\n    return 3 if b else 1\n"
    ops = [m.operator for m in _fine(src)]
    assert "negate_if" not in ops and ops.count("add_not") == 1 and ops.count("condition_constant") == 2
    notes = [m.note for m in _fine(src, extra_operators=["negate_if"]) if m.operator == "negate_if"]
    assert notes == ["L2: if a: return b -> if not a: return b"], notes


def test_identity_and_ordering_are_opt_in(tmp_path):
    src = "def f(a, b):\n    return a == b or a != 0\n"
    ops = {m.operator for m in _fine(src)}
    assert "identity" not in ops and "ordering" not in ops and "comparison" in ops
    ops = {m.operator for m in _fine(src, extra_operators=["identity", "ordering"])}
    assert {"identity", "ordering"} <= ops
    (tmp_path / "pyproject.toml").write_text("[tool.proof-harness.corpus]\nextra_operators = ['identity']\n")
    assert load_config(tmp_path / "pyproject.toml").extra_operators == ("identity",)
    (tmp_path / "pyproject.toml").write_text("[tool.proof-harness.corpus]\nextra_operators = ['identiti']\n")
    with pytest.raises(DeclarationError, match="unknown operator 'identiti'"):
        load_config(tmp_path / "pyproject.toml")
