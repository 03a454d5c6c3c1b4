"""Red team rv-speed (a helper that wrote none of it) against three changes of 2026-12-07: ``pytest_argv``'s
``--confcutdir`` (b4ae64b, reverted), fine.py ``_replaced`` (held: 42,771 statement-level replacements compared) and
forkserver.py ``_parsed_sources``; each case is now a passing spec.

``_parsed_sources``: a server pre-parses the suite's test files so a child formatting a failure does not parse them
again. A test that replaces ``ast.parse`` through the ``monkeypatch`` fixture (undone at teardown, so still in force
while the call phase's report is made) saw it called by pytest's report in the cold run and not in the fork child: a
``parse`` that raises made the cold run an INTERNALERROR (exit 3, incapacity) and the fork child an ordinary failure
(exit 1, reject); one that raises SyntaxError changed the report's text. Now a replaced parse is called. Cold (``python
-m pytest`` with the gate's arguments) is the reference.

``--confcutdir``: the cut was the common directory of the gate file and its tests; a gate declared inside the
project's tests directory (``tests/gate.toml``, ``tests = "."``) no longer loaded the project's root conftest.py, so a
suite using its fixture rejected the conforming artifact. Reverted: the case below keeps the root conftest loaded."""
import os
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from corpus.forkserver import ForkServer
from corpus.gates import Verdict, judge, load_gate, pytest_verdict, scrubbed_env

ART = {"mod.py": "def f(x):\n    return x + 2\n"}      # a mutant of ``return x + 1``: the suite's test fails


def _fork_and_cold(tmp_path, test: str):
    """(fork child's (exit, verdict, output), cold run's) of a one-file suite (``tests/test_x.py`` beside the artifact's
    copy), the server started with that test file as the suite's (what it pre-parses, as PytestSession starts it)."""
    work, gdir, home = tmp_path / "artifact", tmp_path / "gate" / "tests", tmp_path / "home"
    for d in (work, gdir, home):
        d.mkdir(parents=True)
    for name, text in ART.items():
        (work / name).write_text(text)
    (gdir / "test_x.py").write_text(textwrap.dedent(test))
    env = scrubbed_env({"PYTHONPATH": str(work)}, home=str(home))
    args = ["-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(work), "-c", os.devnull, str(gdir)]
    server = ForkServer(env, (), [str(gdir / "test_x.py")])
    try:
        code, out, err, _ = server.run(args, str(work), env, [str(work), str(work)], 60)
    finally:
        server.close()
    cold = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=work, env=env, capture_output=True,
                          text=True, timeout=120)
    gate = SimpleNamespace(timeout_s=60)
    fork_v = pytest_verdict(gate, code, out, err, work, "mod.py").verdict
    cold_v = pytest_verdict(gate, cold.returncode, cold.stdout, cold.stderr, work, "mod.py").verdict
    return (code, fork_v, out + err), (cold.returncode, cold_v, cold.stdout + cold.stderr)


def _report(text: str) -> str:
    text = re.sub(r"0x[0-9a-f]+", "0x?", text)
    return re.sub(r" in [0-9.]+s", " in ?s", text)


def test_a_test_that_monkeypatches_ast_parse_gets_the_cold_verdict(tmp_path):
    fork, cold = _fork_and_cold(tmp_path, """
        import ast
        from mod import f

        def test_x(monkeypatch):
            def no_parse(*a, **k):
                raise RuntimeError("the code under test must not parse here")
            monkeypatch.setattr(ast, "parse", no_parse)
            assert f(1) == 2
        """)
    assert cold[:2] == (3, cold[1]), cold[2]
    assert fork[:2] == cold[:2], fork[2] + "\n-- cold --\n" + cold[2]


def test_a_test_that_monkeypatches_ast_parse_gets_the_cold_report(tmp_path):
    fork, cold = _fork_and_cold(tmp_path, """
        import ast
        from mod import f

        def test_x(monkeypatch):
            def no_parse(*a, **k):
                raise SyntaxError("simulated")
            monkeypatch.setattr(ast, "parse", no_parse)
            assert f(
                1
            ) == 2
        """)
    assert fork[:2] == cold[:2] == (1, cold[1])
    assert _report(fork[2]) == _report(cold[2])


def test_a_gate_inside_the_tests_directory_keeps_the_projects_root_conftest(tmp_path):
    proj, art = tmp_path / "proj", tmp_path / "art"
    for d in (proj / "tests", art):
        d.mkdir(parents=True)
    (art / "mod.py").write_text("def f():\n    return 1\n")
    (proj / "conftest.py").write_text("import pytest\n\n\n@pytest.fixture\ndef one():\n    return 1\n")
    (proj / "tests" / "test_mod.py").write_text("import mod\n\n\ndef test_f(one):\n    assert mod.f() == one\n")
    (proj / "tests" / "gate.toml").write_text('[gate]\nname = "suite"\nkind = "pytest"\ntests = "."\n')
    g = load_gate(proj / "tests" / "gate.toml")
    assert judge(g, art, "mod.py").verdict is Verdict.ACCEPT


def test_the_fast_path_gives_the_cold_verdict_to_a_suite_that_monkeypatches_ast_parse(tmp_path):
    import tempfile
    from pathlib import Path

    from corpus.fast_pytest import PytestSession
    from corpus.model import ArtifactSpec
    from corpus.operators import generate
    from corpus.workdir import materialize
    art, gdir = tmp_path / "art", tmp_path / "gate"
    (gdir / "tests").mkdir(parents=True)
    art.mkdir()
    (art / "mod.py").write_text("K = 1\n\n\ndef f(x):\n    return x + K\n")
    (gdir / "gate.toml").write_text('[gate]\nname = "suite"\nkind = "pytest"\ntests = "tests"\n')
    (gdir / "tests" / "test_mod.py").write_text(textwrap.dedent("""
        import ast
        from mod import f

        def test_f(monkeypatch):
            def no_parse(*a, **k):
                raise RuntimeError("the code under test must not parse here")
            monkeypatch.setattr(ast, "parse", no_parse)
            assert f(1) == 2
        """))
    g = load_gate(gdir / "gate.toml")
    spec = ArtifactSpec("x", "python", "mod.py", (art / "mod.py").read_bytes(), {"role": "code"})
    m = next(x for x in generate(spec, "fine") if x.note == "L1: 1 -> 2")
    with PytestSession(g, art, "mod.py", workers=1) as s:
        assert s.suite_passes
        fast = s.judge(m)
    with tempfile.TemporaryDirectory() as tmp:
        cold = judge(g, materialize(art, m, Path(tmp) / "a"), "mod.py").verdict
    assert fast.executor == "fork" and cold is Verdict.INCAPACITY
    assert fast.judgement.verdict is cold, fast.judgement.reason
