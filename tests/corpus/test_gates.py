"""Gate kinds and the verdict trichotomy: incapacity is counted apart, never as accept/reject."""
import textwrap
from pathlib import Path

import pytest

from corpus.gates import GateError, Verdict, judge, load_gate, scrubbed_env


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture
def art(tmp_path):
    d = tmp_path / "art"
    write(d / "a.json", '{"x": 1}\n')
    return d


def gate(tmp_path, body, name="g.toml"):
    return load_gate(write(tmp_path / "gates" / name, "[gate]\n" + textwrap.dedent(body)))


def test_command_accept_reject_by_exit_code(tmp_path, art):
    ok = gate(tmp_path, 'kind = "command"\nargv = ["{python}", "-c", "import sys; sys.exit(0)"]\n')
    no = gate(tmp_path, 'kind = "command"\nargv = ["{python}", "-c", "import sys; sys.exit(1)"]\n', "n.toml")
    assert judge(ok, art, "a.json").verdict is Verdict.ACCEPT
    assert judge(no, art, "a.json").verdict is Verdict.REJECT


def test_unexpected_exit_timeout_missing_tool_are_incapacity(tmp_path, art):
    crash = gate(tmp_path, 'kind = "command"\nargv = ["{python}", "-c", "import sys; sys.exit(7)"]\n', "c.toml")
    slow = gate(tmp_path, 'kind = "command"\ntimeout_s = 0.5\nargv = ["{python}", "-c", "import time; time.sleep(30)"]\n', "s.toml")
    gone = gate(tmp_path, 'kind = "command"\nargv = ["no-such-tool-xyz", "{artifact}"]\n', "m.toml")
    ext = gate(tmp_path, 'kind = "external"\nrequires = ["no-such-tool-xyz"]\nargv = ["no-such-tool-xyz"]\n', "e.toml")
    for g in (crash, slow, gone, ext):
        j = judge(g, art, "a.json")
        assert j.verdict is Verdict.INCAPACITY, (g.name, j)
    assert "timeout" in judge(slow, art, "a.json").reason


def test_gate_runs_on_a_copy_with_scrubbed_env(tmp_path, art, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("MY_SECRET", "x")
    g = gate(tmp_path, '''kind = "command"
        argv = ["{python}", "-c", "import os,sys,pathlib; p=pathlib.Path(sys.argv[1]); p.write_text('clobbered'); bad=[k for k in os.environ if 'KEY' in k or 'SECRET' in k]; sys.exit(1 if bad else 0)", "{artifact}"]
        ''')
    assert judge(g, art, "a.json").verdict is Verdict.ACCEPT
    assert (art / "a.json").read_text() == '{"x": 1}\n'      # original untouched
    env = scrubbed_env({"CORPUS_X": "1"})
    assert "OPENAI_API_KEY" not in env and "MY_SECRET" not in env and env["CORPUS_X"] == "1"


def test_jsonschema_gate(tmp_path, art):
    write(tmp_path / "gates" / "s.json", '{"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}}')
    g = gate(tmp_path, 'kind = "jsonschema"\nschema = "s.json"\n')
    assert judge(g, art, "a.json").verdict is Verdict.ACCEPT
    write(art / "a.json", '{"x": "1"}')
    assert judge(g, art, "a.json").verdict is Verdict.REJECT
    (art / "a.json").unlink()
    assert judge(g, art, "a.json").verdict is Verdict.REJECT
    write(tmp_path / "gates" / "bad.json", '{"type": 12}')
    bad = gate(tmp_path, 'kind = "jsonschema"\nschema = "bad.json"\n', "b.toml")
    assert judge(bad, art, "a.json").verdict is Verdict.INCAPACITY


def test_predicate_gate(tmp_path, art):
    write(tmp_path / "gates" / "p.py", "import json\ndef check(a):\n    return json.load(open(a))['x'] == 1\n"
          "def weird(a):\n    return 'yes'\ndef boom(a):\n    raise RuntimeError('x')\n")
    assert judge(gate(tmp_path, 'kind = "predicate"\nmodule = "p.py"\n'), art, "a.json").verdict is Verdict.ACCEPT
    assert judge(gate(tmp_path, 'kind = "predicate"\nmodule = "p.py"\nfunction = "weird"\n', "w.toml"), art, "a.json").verdict is Verdict.INCAPACITY
    assert judge(gate(tmp_path, 'kind = "predicate"\nmodule = "p.py"\nfunction = "boom"\n', "x.toml"), art, "a.json").verdict is Verdict.INCAPACITY


def test_pytest_gate_and_collection_ownership(tmp_path):
    art = tmp_path / "art"
    write(art / "mod.py", "def f():\n    return 1\n")
    write(tmp_path / "gates" / "tests" / "test_mod.py", "import mod\n\ndef test_f():\n    assert mod.f() == 1\n")
    g = gate(tmp_path, 'kind = "pytest"\ntests = "tests"\n')
    assert judge(g, art, "mod.py").verdict is Verdict.ACCEPT
    write(art / "mod.py", "def f():\n    return 2\n")
    assert judge(g, art, "mod.py").verdict is Verdict.REJECT
    # the artifact is gone / broken: the suite reached a diagnosis -> reject, not incapacity
    write(art / "mod.py", "def f(:\n")
    assert judge(g, art, "mod.py").verdict is Verdict.REJECT
    (art / "mod.py").unlink()
    assert judge(g, art, "mod.py").verdict is Verdict.REJECT
    # the gate's own suite is broken: incapacity
    write(art / "mod.py", "def f():\n    return 1\n")
    write(tmp_path / "g2" / "tests" / "test_broken.py", "import no_such_dependency_xyz\n\ndef test_x():\n    assert True\n")
    g2 = load_gate(write(tmp_path / "g2" / "g.toml", '[gate]\nkind = "pytest"\ntests = "tests"\n'))
    assert judge(g2, art, "mod.py").verdict is Verdict.INCAPACITY


def test_composite(tmp_path, art):
    write(tmp_path / "gates" / "y.toml", '[gate]\nkind = "command"\nargv = ["{python}", "-c", "pass"]\n')
    write(tmp_path / "gates" / "n.toml", '[gate]\nkind = "command"\nargv = ["{python}", "-c", "raise SystemExit(1)"]\n')
    write(tmp_path / "gates" / "i.toml", '[gate]\nkind = "command"\nargv = ["no-such-tool-xyz"]\n')
    def c(kids, n):
        return gate(tmp_path, f'kind = "composite"\nchildren = {kids!r}\n'.replace("'", '"'), n)
    assert judge(c(["y.toml", "y.toml"], "c1.toml"), art, "a.json").verdict is Verdict.ACCEPT
    assert judge(c(["y.toml", "n.toml"], "c2.toml"), art, "a.json").verdict is Verdict.REJECT
    assert judge(c(["y.toml", "i.toml"], "c3.toml"), art, "a.json").verdict is Verdict.INCAPACITY
    assert judge(c(["i.toml", "n.toml"], "c4.toml"), art, "a.json").verdict is Verdict.REJECT


def test_malformed_gate_declarations(tmp_path):
    with pytest.raises(GateError):
        gate(tmp_path, 'kind = "oracle"\n')
    with pytest.raises(GateError):
        gate(tmp_path, 'kind = "command"\n', "x.toml")
    with pytest.raises(GateError):
        gate(tmp_path, 'kind = "composite"\nchildren = []\n', "y.toml")
