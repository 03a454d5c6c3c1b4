"""The fast pytest path: coverage-selected tests forked from a pre-imported pytest give the cold
path's verdicts; the selection is conservative where it cannot be trusted."""
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from corpus.coverage_map import CoverageMap, changed_lines, measure_coverage
from corpus.fast_pytest import PytestSession
from corpus.forkserver import ForkServer, ForkServerError
from corpus.gates import Verdict, judge, load_gate, scrubbed_env
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize
from support.swap_cases import one_module_gate

TINY = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "tiny"
SRC = (TINY / "artifact" / "mod.py").read_text()


@pytest.fixture(scope="module")
def gate():
    return load_gate(TINY / "gate" / "gate.toml")


@pytest.fixture(scope="module")
def cov(gate, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cov")
    work = materialize(TINY / "artifact", None, tmp / "artifact")
    (tmp / "home").mkdir()
    m, why = measure_coverage(gate, work, "mod.py", str(tmp / "home"))
    assert m is not None, why
    return m


def mutate(old, new):
    assert old in SRC
    return SRC.replace(old, new, 1).encode()


def names(sel):
    return None if sel is None else [s.rsplit("::", 1)[1] for s in sel]


def test_changed_lines():
    assert changed_lines("a\nb\nc\n", "a\nB\nc\n") == {2}
    assert changed_lines("a\nb\nc\n", "a\nc\n") == {2}
    assert changed_lines("a\nb\n", "a\nx\nb\n") == {1, 2}


def test_selection_follows_coverage(cov):
    assert cov.order and all("::" in t for t in cov.order)
    assert names(cov.select(mutate("a + b", "a - b"))) == ["test_add"]
    assert names(cov.select(mutate("    return x\n", "    return None\n"))) == ["test_scaled_small"]
    assert cov.select(mutate("x * RATE", "x / RATE")) == []          # no test ran line 10
    assert cov.select(mutate("RATE = 10", "RATE = 11")) is None      # module level: every test
    assert cov.select(None) is None                                   # deleted target
    assert cov.select(mutate("def add(a, b):", "def add(a, b=1):")) is None   # a def header


def test_selection_is_the_functions_tests_when_a_function_changes_scope(cov):
    # removing the only assignment of a local makes the name global in the whole function: every
    # test that ran any line of f is selected (issue 26: not the whole suite), t::c (only g) is not
    src = "def f():\n    y = 1\n    x = 2\n    return x\n\n\ndef g():\n    return 3\n"
    m = CoverageMap(target="m.py", source=src, order=["t::a", "t::b", "t::c"],
                    contexts={1: {""}, 2: {"t::a"}, 3: {"t::a"}, 4: {"t::a", "t::b"}, 7: {""}, 8: {"t::c"}},
                    statements={1, 2, 3, 4, 7, 8})
    assert m.select(src.replace("y = 1", "y = 2").encode()) == ["t::a"]
    assert m.select(src.replace("    x = 2\n", "    pass\n").encode()) == ["t::a", "t::b"]
    # a scope change in two functions at once (or at module level) is still the whole suite
    both = src.replace("    x = 2\n", "    pass\n").replace("return 3", "return x")
    assert m.select(both.encode()) is None


def test_selection_off_when_the_suite_imports_the_artifact_inside_a_test():
    m = CoverageMap(target="m.py", source="K = 1\n\n\ndef f():\n    return K\n", order=["t::a", "t::b"],
                    contexts={1: {"t::a"}, 4: {"t::a"}, 5: {"t::b"}}, statements={1, 4, 5})
    assert not m.import_lines_have_contexts
    assert m.select(b"K = 1\n\n\ndef f():\n    return K + 1\n") is None


def _cold(gate, mutant):
    with tempfile.TemporaryDirectory() as tmp:
        return judge(gate, materialize(TINY / "artifact", mutant, Path(tmp) / "a"), "mod.py").verdict


def test_fast_path_gives_the_cold_verdicts(gate):
    spec = ArtifactSpec("tiny", "python", "mod.py", SRC.encode(), {"role": "code"})
    muts = generate(spec, "fine") + [m for m in generate(spec, "v1") if m.operator == "delete"]
    with PytestSession(gate, TINY / "artifact", "mod.py", workers=2) as s:
        fast = s.judge_all(muts)
    with ThreadPoolExecutor(2) as ex:
        cold = list(ex.map(lambda m: _cold(gate, m), muts))
    assert [f.judgement.verdict for f in fast] == cold, [
        (m.id, f.judgement.verdict, c) for m, f, c in zip(muts, fast, cold) if f.judgement.verdict != c]
    executors = {f.executor for f in fast}
    assert {"fork", "coverage"} <= executors
    uncovered = [f for m, f in zip(muts, fast) if m.note.startswith("L10:")]
    assert uncovered and all(f.executor == "coverage" and f.judgement.verdict is Verdict.ACCEPT for f in uncovered)
    survivors = {m.note for m, f in zip(muts, fast) if f.judgement.verdict is Verdict.ACCEPT and m.label == "destroying"}
    assert "L9: x > 100 -> x >= 100" in survivors and "L1: 10 -> 11" in survivors


def test_suite_failing_on_the_control_goes_cold(gate, tmp_path):
    art = tmp_path / "art"
    shutil.copytree(TINY / "artifact", art)
    (art / "mod.py").write_text(SRC.replace("a + b", "a * b"))
    with PytestSession(gate, art, "mod.py", workers=1) as s:
        assert not s.suite_passes
        r = s.judge(None)
    assert r.executor == "cold" and r.judgement.verdict is Verdict.REJECT


def test_non_python_artifact_forks_the_whole_suite():
    from corpus.catalogue import load_catalogue
    lp = load_catalogue(only="ledger-reconciles")[0]
    g = lp.gates()[0]
    m = generate(lp.artifact_spec(), "v1")[:2]
    with PytestSession(g, lp.artifact_dir, lp.target, workers=1) as s:
        assert s.suite_passes and s.map is None
        out = [s.judge(x) for x in m]
    assert all(r.executor == "fork" and r.tests is None for r in out)
    assert [r.judgement.verdict for r in out] == [_judge_cold(g, lp, x) for x in m]


def _judge_cold(g, lp, mutant):
    with tempfile.TemporaryDirectory() as tmp:
        return judge(g, materialize(lp.artifact_dir, mutant, Path(tmp) / "a"), lp.target).verdict


# ----------------------------------------------------------------------------- the fork-server

@pytest.fixture
def server():
    s = ForkServer(scrubbed_env(home="/tmp"))
    yield s
    s.close()


def _suite(tmp_path, body):
    (tmp_path / "test_x.py").write_text(body)
    return ["-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", "/dev/null", str(tmp_path / "test_x.py")]


def test_fork_server_exit_codes_and_output(server, tmp_path):
    env = scrubbed_env(home=str(tmp_path))
    code, out, _, _ = server.run(_suite(tmp_path, "def test_a():\n    assert 1\n"), str(tmp_path), env, [], 30)
    assert code == 0 and "1 passed" in out
    code, out, _, _ = server.run(_suite(tmp_path, "def test_a():\n    assert 0\n"), str(tmp_path), env, [], 30)
    assert code == 1 and "1 failed" in out
    code, _, _, _ = server.run(_suite(tmp_path, "import nosuchmodule_xyz\n"), str(tmp_path), env, [], 30)
    assert code == 2


def test_fork_server_child_sees_only_the_run_environment(server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    env = scrubbed_env({"CORPUS_X": "1"}, home=str(tmp_path))
    body = ("import os\n\ndef test_env():\n    assert 'OPENAI_API_KEY' not in os.environ\n"
            "    assert os.environ['CORPUS_X'] == '1'\n    assert os.getcwd() == %r\n"
            "    assert os.read(0, 1) == b''\n    assert os.getsid(0) == os.getpid()\n" % str(tmp_path))
    code, out, err, _ = server.run(_suite(tmp_path, body), str(tmp_path), env, [], 30)
    assert code == 0, out + err


def test_fork_server_timeout_kills_the_run(server, tmp_path):
    body = "import time\n\ndef test_slow():\n    time.sleep(30)\n"
    code, _, _, secs = server.run(_suite(tmp_path, body), str(tmp_path), scrubbed_env(home=str(tmp_path)), [], 1.0)
    assert code is None and secs < 15
    code, _, _, _ = server.run(_suite(tmp_path, "def test_a():\n    pass\n"), str(tmp_path),
                               scrubbed_env(home=str(tmp_path)), [], 30)
    assert code == 0        # the server survives a killed run


def test_fork_server_runs_the_named_tests_first_and_every_other_test_after(server, tmp_path):
    """``first`` (kill_history.node_key pairs) moves those tests to the front of a whole-suite
    run, in that order; the rest keep their order and none is dropped (-x: the first failure
    ends the run, so the killer named first is the one test run)."""
    body = "".join(f"def test_{n}():\n    print('ran {n}')\n\n\n" for n in "abcd")
    args = [*_suite(tmp_path, body), "-s"]
    env = scrubbed_env(home=str(tmp_path))
    code, out, _, _ = server.run(args, str(tmp_path), env, [], 30,
                                 extra={"first": [["test_x.py", "test_c"], ["test_x.py", "test_a"]]})
    assert code == 0 and [ln for ln in out.split() if ln in "abcd"] == ["c", "a", "b", "d"], out
    body = "def test_a():\n    pass\n\n\ndef test_b():\n    assert 0\n"
    code, out, _, _ = server.run([*_suite(tmp_path, body), "-x"], str(tmp_path), env, [], 30,
                                 extra={"first": [["test_x.py", "test_b"]]})
    assert code == 1 and "1 failed" in out and "passed" not in out, out


def test_dead_server_is_an_error_not_a_verdict(tmp_path):
    s = ForkServer(scrubbed_env(home="/tmp"))
    s.proc.kill()
    s.proc.wait()
    with pytest.raises(ForkServerError):
        s.run(_suite(tmp_path, "def test_a():\n    pass\n"), str(tmp_path), scrubbed_env(home=str(tmp_path)), [], 5)
    s.close()


# ----------------------------------------------------------------------------- false survivors
# Coverage of the conforming artifact misses two common ways a test reaches a line: a subprocess
# the test starts (coverage.py does not follow it) and a fixture of wider scope (its setup runs
# inside the first test that asks for it, so only that test's context records the lines). The
# fast path must not accept a mutant the cold whole-suite run rejects in either case.

SHARED_SRC = ("def double(x):\n    return x * 2\n\n\ndef square(x):\n    return x * x\n\n\n"
              "def half(x):\n    return x / 2\n")
SHARED_TESTS = '''import os
import subprocess
import sys

import pytest

import shared


def test_cli_doubles():
    here = os.path.dirname(shared.__file__)
    out = subprocess.run([sys.executable, "-c", "import shared; print(shared.double(3))"],
                         cwd=here, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": here})
    assert out.stdout.strip() == "6"


@pytest.fixture(scope="module")
def nine():
    return shared.square(3)


@pytest.fixture(scope="module")
def printed(request):
    request.getfixturevalue("other")    # a wider fixture set up inside another one's setup
    here = os.path.dirname(shared.__file__)
    return subprocess.run([sys.executable, "-c", "import shared; print(shared.half(8))"],
                          cwd=here, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": here}).stdout


@pytest.fixture(scope="module")
def other():
    return 1


def test_half_is_printed(printed):
    assert printed


def test_half_value(printed):
    assert printed.strip() == "4.0"


def test_square_is_computed(nine):
    assert nine is not None


def test_square_value(nine):
    assert nine == 9
'''


@pytest.fixture(scope="module")
def shared_loop(tmp_path_factory):
    root = tmp_path_factory.mktemp("shared")
    (root / "artifact").mkdir()
    (root / "artifact" / "shared.py").write_text(SHARED_SRC)
    (root / "gate" / "tests").mkdir(parents=True)
    (root / "gate" / "tests" / "test_shared.py").write_text(SHARED_TESTS)
    (root / "gate" / "gate.toml").write_text('[gate]\nname = "shared"\nkind = "pytest"\ntests = "tests"\n')
    return root, load_gate(root / "gate" / "gate.toml")


@pytest.fixture(scope="module")
def shared_session(shared_loop):
    root, gate = shared_loop
    with PytestSession(gate, root / "artifact", "shared.py", workers=1) as s:
        assert s.suite_passes and s.map is not None, s.why_not_selective    # the fast path, not cold
        yield s


@pytest.mark.parametrize("old,new", [("x * 2", "x + 2"),      # reached only through a subprocess
                                      ("x * x", "x + x"),     # reached only in a module-scoped fixture
                                      ("x / 2", "x / 4")])    # a subprocess a module fixture starts
def test_fast_path_never_accepts_what_the_whole_suite_rejects(shared_loop, shared_session, old, new):
    root, gate = shared_loop
    from corpus.model import Mutant
    mutant = Mutant(id="shared/t/0", loop="shared", family="t", tier=1, operator="t", label="destroying",
                    parent_digest="", target="shared.py", content=SHARED_SRC.replace(old, new).encode())
    with tempfile.TemporaryDirectory() as tmp:
        cold = judge(gate, materialize(root / "artifact", mutant, Path(tmp) / "a"), "shared.py").verdict
    assert cold is Verdict.REJECT
    fast = shared_session.judge(mutant)
    assert fast.judgement.verdict is Verdict.REJECT, (fast.executor, fast.tests, fast.judgement.reason)


def test_coverage_run_gets_the_variables_every_gate_run_gets(tmp_path):
    # a suite may locate the artifact through CORPUS_ARTIFACT / CORPUS_ARTIFACT_DIR, as on the
    # cold path; the coverage run must set them too, or such a suite silently loses the fast path
    (tmp_path / "artifact").mkdir()
    (tmp_path / "artifact" / "m.py").write_text("def f():\n    return 1\n")
    (tmp_path / "gate" / "tests").mkdir(parents=True)
    (tmp_path / "gate" / "tests" / "test_m.py").write_text(
        "import os\n\nimport m\n\n\ndef test_f():\n"
        "    assert os.path.samefile(os.environ['CORPUS_ARTIFACT'], m.__file__)\n"
        "    assert os.path.isdir(os.environ['CORPUS_ARTIFACT_DIR'])\n"
        "    assert os.path.isdir(os.environ['CORPUS_GATE_DIR'])\n    assert m.f() == 1\n")
    (tmp_path / "gate" / "gate.toml").write_text('[gate]\nname = "env"\nkind = "pytest"\ntests = "tests"\n')
    gate = load_gate(tmp_path / "gate" / "gate.toml")
    work = materialize(tmp_path / "artifact", None, tmp_path / "work" / "artifact")
    (tmp_path / "home").mkdir()
    m, why = measure_coverage(gate, work, "m.py", str(tmp_path / "home"))
    assert m is not None, why


def test_fork_server_timeout_kills_a_child_that_has_no_session_yet(server, tmp_path, monkeypatch):
    # the client learns the child's pid only once the server has forked it; when that is already
    # past the deadline (a server still importing pytest, a loaded machine), the child may not
    # have called setsid yet, killpg finds no such group, and the child must still be killed
    # rather than waited for (a mutant that loops forever would hang the measurement)
    import os as _os

    def no_group_yet(pgid, sig):
        raise ProcessLookupError
    monkeypatch.setattr(_os, "killpg", no_group_yet)
    body = "import time\n\ndef test_slow():\n    time.sleep(30)\n"
    code, _, _, secs = server.run(_suite(tmp_path, body), str(tmp_path), scrubbed_env(home=str(tmp_path)), [], 1.0)
    assert code is None and secs < 15


RELOAD_MOD = ("import os\n\nFAST = os.environ.get('FAST_IMPL') == '1'\n\n\n"
              "def double(x):\n    return x * 2\n\n\n"
              "def half(x):\n    if FAST:\n        return x >> 1\n    return x // 2\n")
RELOAD_TESTS = ("import importlib\n\nimport rmod\n\n\n"
                "def test_double():\n    assert rmod.double(3) == 6\n\n\n"
                "def test_half_both_ways(monkeypatch):\n"
                "    monkeypatch.setenv('FAST_IMPL', '1')\n    fast = importlib.reload(rmod)\n"
                "    assert fast.half(9) == 4\n    monkeypatch.delenv('FAST_IMPL')\n"
                "    slow = importlib.reload(rmod)\n    assert slow.half(9) == 4\n")


def test_a_suite_that_reloads_the_module_keeps_per_test_selection_and_the_cold_verdicts(tmp_path):
    # issue 35: a test that reloads the module had put its name on every top-level line, so every
    # mutant ran the whole suite (and the word "reload" turned the swap path off). Now the module's
    # top level runs under the import context whoever executes it, and the swap child points the
    # import paths at its own copy, so the reload reads the mutant
    art, gdir = tmp_path / "art", tmp_path / "gate"
    art.mkdir()
    (gdir / "tests").mkdir(parents=True)
    (art / "rmod.py").write_text(RELOAD_MOD)
    (gdir / "tests" / "test_rmod.py").write_text(RELOAD_TESTS)
    (gdir / "gate.toml").write_text('[gate]\nname = "r"\nkind = "pytest"\ntests = "tests"\ntimeout_s = 60\n')
    g = load_gate(gdir / "gate.toml")
    spec = ArtifactSpec("r", "python", "rmod.py", RELOAD_MOD.encode(), {"role": "code"})
    muts = [m for m in generate(spec, "fine") if m.label == "destroying"]
    with PytestSession(g, art, "rmod.py", workers=2) as s:
        assert s.map is not None and s.map.import_lines_have_contexts and s.swapping
        assert names(s.map.select(RELOAD_MOD.replace("x * 2", "x / 2").encode())) == ["test_double"]
        assert names(s.map.select(RELOAD_MOD.replace("x >> 1", "x << 1").encode())) == ["test_half_both_ways"]
        fast = s.judge_all(muts)
    with ThreadPoolExecutor(2) as ex:
        cold = list(ex.map(lambda m: _cold_in(g, art, m, "rmod.py"), muts))
    assert [f.judgement.verdict for f in fast] == cold, [
        (m.note, f.executor, f.judgement.verdict, c) for m, f, c in zip(muts, fast, cold) if f.judgement.verdict != c]
    by_note = {m.note: f for m, f in zip(muts, fast)}
    # the mutant only the reloaded (FAST) branch runs: judged by swap, killed through the reload
    fast_branch = by_note["L12: x >> 1 -> x << 1"]
    assert fast_branch.executor == "swap" and fast_branch.judgement.verdict is Verdict.REJECT
    assert sum(f.executor == "swap" for f in fast) > len(fast) // 2


def _cold_in(gate, art, mutant, target):
    with tempfile.TemporaryDirectory() as tmp:
        return judge(gate, materialize(art, mutant, Path(tmp) / "a"), target).verdict


def _every_mutant_fast_and_cold(tmp_path, stem: str, module: str, tests: str) -> dict:
    """Every destroying fine mutant of ``module`` (``art/<stem>.py``) judged by a swapping session and cold:
    the verdicts equal, returned by note."""
    g, art = one_module_gate(tmp_path, stem, module.encode(), tests)
    spec = ArtifactSpec(stem, "python", f"{stem}.py", module.encode(), {"role": "code"})
    muts = [m for m in generate(spec, "fine") if m.label == "destroying"]
    with PytestSession(g, art, f"{stem}.py", workers=2) as s:
        assert s.swapping
        fast = s.judge_all(muts)
    with ThreadPoolExecutor(2) as ex:
        cold = list(ex.map(lambda m: _cold_in(g, art, m, f"{stem}.py"), muts))
    assert [f.judgement.verdict for f in fast] == cold, [
        (m.note, f.executor, f.judgement.verdict, c) for m, f, c in zip(muts, fast, cold) if f.judgement.verdict != c]
    return {m.note: f for m, f in zip(muts, fast)}


STATIC_MOD = ("import os\n\nSHIFT = os.environ.get('SHIFT') == '1'\n\n\n"
              "class Codec:\n"
              "    @staticmethod\n    def mask(key, data):\n        if SHIFT:\n            return [b << 1 for b in data]\n"
              "        return [b ^ key for b in data]\n\n"
              "    @classmethod\n    def make(cls, n):\n        return [n] * 2\n")
STATIC_TESTS = ("import importlib\n\nimport smod\nfrom smod import Codec\n\n\n"
                "def test_mask():\n    assert Codec.mask(1, [2, 3]) == [3, 2]\n\n\n"
                "def test_make():\n    assert Codec.make(4) == [4, 4]\n\n\n"
                "def test_mask_after_reload(monkeypatch):\n"
                "    monkeypatch.setenv('SHIFT', '1')\n    mod = importlib.reload(smod)\n"
                "    assert mod.Codec.mask(0, [1, 2]) == [2, 4]\n    monkeypatch.delenv('SHIFT')\n"
                "    mod = importlib.reload(smod)\n    assert mod.Codec.mask(1, [2]) == [3]\n")


def test_a_static_or_class_methods_mutant_is_swapped_and_judged_as_cold(tmp_path):
    # issue 35: websocket's ABNF.mask, create_frame and _is_valid_close_status are static methods;
    # the swap child looked for a plain function in the class, exited 75, and each such mutant
    # paid a failed swap and then a fork. The reloading test reads the mutant from the bytecode
    # file the fast path writes beside it (cache_bytecode) and kills what only its branch runs
    by_note = _every_mutant_fast_and_cold(tmp_path, "smod", STATIC_MOD, STATIC_TESTS)
    assert by_note["L10: b << 1 -> b >> 1"].executor == "swap"            # in the static method
    assert by_note["L10: b << 1 -> b >> 1"].judgement.verdict is Verdict.REJECT   # through the reload
    assert by_note["L15: [n] * 2 -> [n] / 2"].executor == "swap"          # in the class method


PROP_MOD = ("import functools\n\n\nclass Box:\n"
            "    def __init__(self, n):\n        self._n = n\n\n"
            "    @property\n    def n(self):\n        return self._n + 0\n\n"
            "    @n.setter\n    def n(self, v):\n        self._n = v * 1\n\n"
            "    @functools.cached_property\n    def twice(self):\n        return self._n * 2\n")
PROP_TESTS = ("from pmod import Box\n\n\n"
              "def test_get():\n    assert Box(3).n == 3\n\n\n"
              "def test_set():\n    b = Box(1)\n    b.n = 5\n    assert b._n == 5 and type(b._n) is int\n\n\n"
              "def test_twice():\n    assert Box(4).twice == 8 and type(Box(4).twice) is int\n")


def test_a_propertys_functions_are_swapped_and_judged_as_cold(tmp_path):
    """issue 35: semver's five ``@property`` getters (``return self._major`` -> ``return``) were judged by a
    whole-suite fork each: the class attribute is a property, not a function, and the swap child exited 75.
    A property's getter, setter (the same qualified name, told apart by its line and by which code the mutant
    changed) and a cached_property's function are swapped now, with the cold verdicts."""
    by_note = _every_mutant_fast_and_cold(tmp_path, "pmod", PROP_MOD, PROP_TESTS)
    for note in ("L10: self._n + 0 -> self._n - 0", "L14: v * 1 -> v / 1", "L18: self._n * 2 -> self._n / 2"):
        assert by_note[note].executor == "swap", (note, by_note[note])
    assert by_note["L10: self._n + 0 -> self._n - 0"].judgement.verdict is Verdict.ACCEPT    # equal, as cold
    assert by_note["L14: v * 1 -> v / 1"].judgement.verdict is Verdict.REJECT               # 5.0 is no int
    assert by_note["L18: self._n * 2 -> self._n / 2"].judgement.verdict is Verdict.REJECT


def test_the_mutants_bytecode_file_is_the_one_the_import_system_uses(tmp_path):
    import subprocess
    import sys

    from corpus.fast_pytest import cache_bytecode
    mod = tmp_path / "m.py"
    mod.write_text("def f(x):\n    return x + 1\n")
    assert cache_bytecode(mod, mod.read_bytes())
    run = [sys.executable, "-v", "-c", "import m, importlib; importlib.reload(m); print(m.f(1), m.f.__code__.co_filename)"]
    r = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=scrubbed_env(home=str(tmp_path)))
    assert r.stdout.split() == ["2", str(mod)]
    assert f"{tmp_path}/__pycache__/m.cpython-311.pyc matches {mod}" in r.stderr
    # checked against the file's bytes: a changed file is compiled, never the stale code
    mod.write_text("def f(x):\n    return x + 2\n")
    r = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=scrubbed_env(home=str(tmp_path)))
    assert r.stdout.split() == ["3", str(mod)]


@pytest.mark.parametrize("content", [
    "def f(x):\n    return x is 1\n",              # a SyntaxWarning at each compile from source
    "def f():\n    return '\\d'\n",                  # a DeprecationWarning (invalid escape)
    "\ufeffdef f():\n    return 1\n",               # a BOM: not the text compiled
    "# -*- coding: latin-1 -*-\nX = 1\n",           # another coding
    "def f(:\n",                                     # does not compile
])
def test_no_bytecode_file_when_the_source_would_warn_or_is_not_plain_utf8(tmp_path, content):
    from corpus.fast_pytest import cache_bytecode
    mod = tmp_path / "m.py"
    mod.write_bytes(content.encode("utf-8"))
    assert not cache_bytecode(mod, mod.read_bytes())
    assert not (tmp_path / "__pycache__").exists()


def test_a_recording_says_unknown_after_what_its_tracer_cannot_see():
    """corpus/forkserver._watch_blind_spots (in a fresh interpreter: an audit hook stays for the
    process's life): a subprocess, an os.system, a tracer or profiler set by anyone but coverage's
    collector, the module's file read inside a test turn the record unknown; the collector's own
    calls, and a read outside a test, do not."""
    import subprocess
    import sys
    code = ("import sys, types\nfrom corpus.forkserver import _watch_blind_spots\n"
            "def fresh():\n    rec = types.SimpleNamespace(ok=True, coll=object(), on=False)\n"
            "    _watch_blind_spots(rec, '/m.py')\n    return rec\n"
            "out = []\n"
            "rec = fresh(); sys.settrace(None); out.append(rec.ok)\n"
            "rec = fresh(); sys.setprofile(None); out.append(rec.ok)\n"
            "import subprocess; rec = fresh(); subprocess.run(['true']); out.append(rec.ok)\n"
            "import os; rec = fresh(); os.system('true'); out.append(rec.ok)\n"
            "rec = fresh(); len('nothing'); out.append(rec.ok)\n"
            "rec = fresh(); rec.on = True; open(sys.argv[1]).close(); out.append(rec.ok)\n"
            "rec = fresh(); rec.on = False; open(sys.argv[1]).close(); out.append(rec.ok)\n"
            "print(out)\n")
    module = Path(tempfile.mkdtemp()) / "m.py"
    module.write_text("X = 1\n")
    r = subprocess.run([sys.executable, "-c", code, str(module)], capture_output=True, text=True, timeout=60,
                       cwd=Path(__file__).resolve().parents[2])
    # ... and the module's own file opened while a test runs (not by the import system)
    assert r.stdout.strip() == "[False, False, False, False, True, False, True]", r.stdout + r.stderr


def _lines(out: str) -> list[str]:
    """A run's output without its timing ("in 0.12s")."""
    import re
    return [re.sub(r"0x[0-9a-f]+", "0x", re.sub(r" in [0-9.]+s\b.*", "", ln)) for ln in out.splitlines()]


@pytest.mark.parametrize("case", ["failing test", "collection error", "collection error, full trace"])
def test_a_forked_childs_reports_are_the_cold_runs_where_a_verdict_reads_them(server, tmp_path, case):
    """A forked pytest child's output is the cold run's (but for times and addresses): the exit code,
    every report's frames, the short summary, the interrupted line, and a collection error's
    traceback, which gates.pytest_verdict reads to decide who owns the error. (Formatting less, as
    a swap child does, was tried for issue 35 and reverted: test_fork_reports_attacks.py.)"""
    import subprocess
    import sys
    (tmp_path / "home").mkdir()
    env = scrubbed_env(home=str(tmp_path / "home"))
    (tmp_path / "mod.py").write_text("X = 1\n" + ("Y = undefined_name\n" if "collection" in case else ""))
    body = "from mod import X\n\n\ndef helper(v):\n    assert v == 2\n\n\ndef test_x():\n    helper(X)\n"
    args = [*_suite(tmp_path, body), "-x", *(["--full-trace"] if "full" in case else [])]
    code, out, _, _ = server.run(args, str(tmp_path), env, [str(tmp_path)], 60)
    cold = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=tmp_path, capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(tmp_path)}, timeout=120)
    assert code == cold.returncode == (1 if case == "failing test" else 2), out + cold.stdout
    fork, want = _lines(out), _lines(cold.stdout)
    summary = [ln for ln in want if ln.startswith(("FAILED", "ERROR", "!!!", "="))]
    assert summary and fork == want     # every report, as pytest formats it cold
    assert ("mod.py:2: " if "collection" in case else "test_x.py:9: ") in out, out    # the frames, not the crash alone


SESSION_CALC = "def lt(c):\n    return c < 0\n"
SESSION_TESTS = "import builtins\nimport calc\n\n\ndef test_other():\n    assert calc.lt(-5)\n    builtins.LT0 = calc.lt(0)\n"


@pytest.mark.parametrize("conftest, swaps", [
    # the exit status decided after the run loop from what the test left behind (cold: exit 1)
    ("import builtins\n\n\ndef pytest_sessionfinish(session, exitstatus):\n"
     "    if getattr(builtins, 'LT0', False):\n        session.exitstatus = 1\n", False),
    # a run loop wrapped by the suite, failing the session after its tests
    ("import builtins\nimport pytest\n\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_runtestloop(session):\n"
     "    out = yield\n    if getattr(builtins, 'LT0', False):\n        raise session.Failed('lt(0)')\n    return out\n",
     False),
    # a teardown of the whole configuration that exits the process with its own code
    ("import builtins\nimport os\n\n\ndef pytest_unconfigure(config):\n"
     "    if getattr(builtins, 'LT0', False):\n        os._exit(1)\n", False),
    # per-test hooks only: the swap child runs each test's protocol, so the session still swaps
    ("import builtins\n\n\ndef pytest_runtest_teardown(item, nextitem):\n"
     "    assert not getattr(builtins, 'LT0', False)\n", True),
    # registered by a fixture while the tests run, after the server looked: the child declines (exit 75)
    ("import builtins\nimport pytest\n\n\nclass Late:\n    def pytest_sessionfinish(self, session, exitstatus):\n"
     "        if getattr(builtins, 'LT0', False):\n            session.exitstatus = 1\n\n\n"
     "@pytest.fixture(autouse=True)\ndef late(request):\n    pm = request.config.pluginmanager\n"
     "    if not pm.has_plugin('late'):\n        pm.register(Late(), 'late')\n", True),
], ids=["sessionfinish", "runtestloop wrapper", "unconfigure", "per-test hook", "registered during the tests"])
def test_a_suite_with_its_own_session_hooks_is_never_judged_by_a_swap(tmp_path, conftest, swaps):
    """forkserver._only_pytests_session_hooks: a swap child runs pytest's run loop over the selected
    tests and exits, so a conftest's ``pytest_sessionfinish``, ``pytest_runtestloop``,
    ``pytest_terminal_summary`` or ``pytest_unconfigure`` never ran there; one deciding the exit
    status from what the tests left made the swap accept what plain pytest rejects (``c < 0`` ->
    ``c <= 0``: the test passes, its hook fails the session). Such a session does not swap: the
    mutant is judged by a forked ``pytest.main``, with the cold run's verdict."""
    d = tmp_path
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(SESSION_CALC)
    (d / "tests").mkdir()
    (d / "tests" / "test_calc.py").write_text(SESSION_TESTS)
    (d / "tests" / "conftest.py").write_text(conftest)
    (d / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    g = load_gate(d / "gate.toml")
    mutant = next(m for m in generate(ArtifactSpec("l", "python", "calc.py", SESSION_CALC.encode(), {"role": "code"}),
                                      "fine") if m.content and b"c <= 0" in m.content)
    with PytestSession(g, d / "art", "calc.py", workers=1) as s:
        assert s.swapping is swaps
        got = s.judge(mutant)
    cold = judge(g, materialize(d / "art", mutant, d / "cold"), "calc.py")
    assert got.executor == ("swap" if swaps and "late" not in conftest else "fork")
    assert got.judgement.verdict is cold.verdict is Verdict.REJECT, (got.judgement.reason, cold.reason)


def test_a_swap_childs_failure_line_names_the_crash_place_and_message(gate):
    """A swap child reports a failure by its crash only (forkserver._crash_only_reports: the
    frames are not formatted): the summary line still names the failing test, the crash's file
    and line and the exception's message, and the verdict is the cold path's."""
    import re
    spec = ArtifactSpec("tiny", "python", "mod.py", SRC.encode(), {"role": "code"})
    muts = generate(spec, "fine")
    with PytestSession(gate, TINY / "artifact", "mod.py", workers=1) as s:
        swapped = [(m, j) for m, j in ((m, s.judge(m)) for m in muts[:40]) if j.executor == "swap"
                   and j.judgement.verdict is Verdict.REJECT]
    assert swapped
    for m, j in swapped[:3]:
        assert re.search(r"FAILED \S+::\S+ \((setup|call|teardown)\) - \S+\.py:\d+: \S", j.judgement.reason), \
            j.judgement.reason
        assert j.killer and _cold(gate, m) is Verdict.REJECT



def _is_a_run_of_the_server(pid: int) -> bool:
    try:
        return b"forkserver" in open(f"/proc/{pid}/cmdline", "rb").read()
    except OSError:
        return False


def test_a_run_whose_client_went_away_is_killed_and_its_server_exits(tmp_path):
    """The client alone kills a run past its deadline; a client killed mid-run (its pytest worker with it) left a
    mutant's endless loop, and its server, running. The server kills the run's process group when the control
    socket's other end closes (corpus.forkserver ``_wait_run``)."""
    import json
    import os
    import signal
    import socket
    s = ForkServer(scrubbed_env(home="/tmp"))
    args = _suite(tmp_path, "def test_a():\n    while True:\n        pass\n")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    socket.send_fds(s.sock, [json.dumps({"args": args, "cwd": str(tmp_path), "env": scrubbed_env(home=str(tmp_path)),
                                         "path_prefix": []}).encode()], [out_w, err_w])
    os.close(out_w)
    os.close(err_w)
    pid = json.loads(s.sock.recv(1 << 16))["pid"]
    s.sock.close()  # the client is gone: no deadline of its will kill the run
    try:
        assert s.proc.wait(timeout=30) == 0  # the server returns from its loop once the run is reaped
        assert not _is_a_run_of_the_server(pid), "the run outlived its client and its server"
    finally:
        os.close(out_r)
        os.close(err_r)
        if _is_a_run_of_the_server(pid):
            os.kill(pid, signal.SIGKILL)
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
