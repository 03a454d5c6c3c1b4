"""Bad input to the corpus commands is a one-line error naming the file, the key and what was
expected, with exit code 2 - never a traceback, never a silently excluded loop."""
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from corpus.declarations import DeclarationError, load_hints
from corpus.gates import GateError, load_gate

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "user-gate"




def write(p: Path, text, mode="t") -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text if mode == "b" else textwrap.dedent(text).encode())
    return p


def run(cli, *args):
    r = CliRunner().invoke(cli, ["corpus", *map(str, args)])
    assert "Traceback" not in r.output and (r.exception is None or isinstance(r.exception, SystemExit)), r.output
    return r


def measure(cli, tmp_path, artifact, *extra, gate=EX / "gate.toml"):
    return run(cli, "measure", "--gate", gate, "--artifact", artifact, "--out", tmp_path / "out", "--quiet", *extra)


@pytest.mark.parametrize("name,data,kind,needle", [
    ("blob.bin", b"\x00\x01\x02binary", None, "cannot tell the artifact kind"),
    ("blob.md", b"# ok\n\x00\x00", None, "binary file"),
    ("latin.md", "caf\xe9\n".encode("latin-1"), None, "not UTF-8"),
    ("conf.yaml", b"a: 1\nb: [1, 2]\n", "json", "--kind json, but not JSON"),
    ("notes.md", b"# Title\n\nSome *prose* here.\n", "python", "--kind python, but not Python"),
    ("bad.toml", b"a = \n", None, "--kind toml, but not TOML"),
    ("bad.yaml", b"a: [1, 2\n", None, "--kind yaml, but not YAML"),
])
def test_artifacts_the_corpus_cannot_mutate(cli, tmp_path, name, data, kind, needle):
    art = write(tmp_path / name, data, "b")
    r = measure(cli, tmp_path, art, *(["--kind", kind] if kind else []))
    assert r.exit_code == 2 and needle in r.output and str(art) in r.output, r.output


def test_hints_errors(cli, tmp_path):
    art = EX / "release-notes.md"
    cases = [('[artifact]\nkind = "xml"\n', "key 'kind': expected one of"),
             ('[artifact]\nrequired_sectons = ["A"]\n', "unknown key 'required_sectons'"),
             ('[artifact]\nrequired_sections = "A"\n', "key 'required_sections': expected a list of strings, got str"),
             ('[artifact]\nnot_applicable = ["no_such_op"]\n', "unknown operator 'no_such_op'"),
             ('[artefact]\nrequired_sections = ["A"]\n', "unknown table or key 'artefact'"),
             ('[artifact\n', "not valid TOML")]
    for i, (text, needle) in enumerate(cases):
        h = write(tmp_path / f"h{i}.toml", text)
        r = measure(cli, tmp_path, art, "--hints", h)
        assert r.exit_code == 2 and needle in r.output and str(h) in r.output, (text, r.output)


def test_yaml_hints_kind_is_a_kind_now_not_a_silent_exclusion(cli, tmp_path):
    art = write(tmp_path / "deploy.yaml", "replicas: 3\nimage: app:1.2\n")
    h = write(tmp_path / "h.toml", '[artifact]\nkind = "yaml"\nrequired_keys = ["replicas"]\n')
    gate = write(tmp_path / "g.toml", '[gate]\nkind = "command"\nargv = ["{python}", "-c", "import sys; sys.exit(0)"]\n')
    r = measure(cli, tmp_path, art, "--hints", h, gate=gate)
    assert r.exit_code == 0 and "user:deploy.yaml" in r.output and "no mutants" not in r.output


@pytest.mark.parametrize("body,needle", [
    ('kind = "predicate"\nmodule = "missing.py"\n', "key 'module': 'missing.py' does not exist"),
    ('kind = "pytest"\ntests = "no_tests_here"\n', "key 'tests': 'no_tests_here' does not exist"),
    ('kind = "command"\nargv = ["x"]\ntimeout_s = "sixty"\n', "key 'timeout_s': expected a positive number, got str 'sixty'"),
    ('kind = "command"\nargv = ["x"]\nargvv = ["y"]\n', "unknown key 'argvv'"),
    ('kind = "command"\nargv = "x"\n', "key 'argv': expected a list of strings"),
    ('kind = "command"\nargv = ["x"]\nstatus = "fixed"\n', "key 'status': expected one of"),
    ('kind = "command"\nargv = ["x"]\n[limit]\nx = 1\n', "unknown table or key 'limit'"),
    ('kind = "oracle"\n', "key 'kind': expected one of"),
    ('kind = "composite"\nchildren = ["g.toml"]\n', "includes itself"),
])
def test_gate_errors(cli, tmp_path, body, needle):
    g = write(tmp_path / "g.toml", "[gate]\n" + body)
    with pytest.raises(GateError) as e:
        load_gate(g)
    assert needle in str(e.value) and str(g) in str(e.value) and "\n" not in str(e.value)
    r = measure(cli, tmp_path, EX / "release-notes.md", gate=g)
    assert r.exit_code == 2 and needle in r.output


def test_missing_predicate_module_is_input_error_not_incapacity(tmp_path):
    g = write(tmp_path / "g.toml", '[gate]\nkind = "predicate"\nmodule = "check.py"\n')
    with pytest.raises(GateError, match="does not exist"):
        load_gate(g)
    write(tmp_path / "check.py", "def check(path):\n    return True\n")
    assert load_gate(g).kind == "predicate"


def test_other_commands_give_clear_errors(cli, tmp_path):
    r = run(cli, "generate", "--loop", "no-such-loop")
    assert r.exit_code == 2 and "no loop 'no-such-loop'" in r.output
    bad = write(tmp_path / "items.json", "{not json")
    r = run(cli, "reviewer", "--items", bad)
    assert r.exit_code == 2 and str(bad) in r.output
    bad = write(tmp_path / "frozen.json", "[]")
    r = run(cli, "measure", "--loop", "runbook-complete", "--frozen", bad, "--out", tmp_path / "o")
    assert r.exit_code == 2 and "not a corpus freeze file" in r.output


def test_load_hints_roundtrip(tmp_path):
    h = write(tmp_path / "h.toml", '[artifact]\nrequirement = "r"\nrequired_keys = ["a.b"]\nrole = "code"\n')
    assert load_hints(h) == {"requirement": "r", "required_keys": ["a.b"], "role": "code"}
    with pytest.raises(DeclarationError, match="key 'role'"):
        load_hints(write(tmp_path / "h2.toml", '[artifact]\nrole = "docs"\n'))
