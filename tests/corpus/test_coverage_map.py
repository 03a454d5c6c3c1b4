"""Red team of issue 26's changed lines (``coverage_map.changed_lines``): a line number there must be
Python's (the tokenizer's: \\n, \\r\\n, \\r), or the coverage map looks up another line's tests.

Formerly ``tests/corpus/test_changed_lines_r26.py``, named after its origin."""
from __future__ import annotations

from pathlib import Path

from corpus.catalogue import Loop
from corpus.coverage_map import changed_lines, changed_lines_difflib
from corpus.measure import measure

# U+2028, U+0085, a form feed, U+2029 and \\x1c end a line for str.splitlines, not for Python
SEPS = "\u2028\x85\x0c\u2029\x1c"


def test_changed_lines_count_lines_as_python_does():
    src = f'S = "{SEPS}"\r\ndef add(a, b):\r\n    return a + b\n'
    mut = src.replace("a + b", "a - b")
    assert changed_lines(src, mut) == {3}
    assert changed_lines_difflib(src, mut) == {3}


def test_a_mutant_below_a_line_separator_in_a_string_is_killed(tmp_path: Path):
    """The mutant of ``add`` was looked up five lines down, in ``neg``'s body: only test_neg ran
    and the mutant survived, though test_add kills it."""
    d = tmp_path
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(f'S = "{SEPS}"\n\n\ndef add(a, b):\n    c = a + b\n    return c\n\n\n'
                                       "def neg(x):\n    return -x\n", encoding="utf-8")
    (d / "tests").mkdir()
    (d / "tests" / "test_add.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    (d / "tests" / "test_neg.py").write_text("from calc import neg\n\n\ndef test_neg():\n    assert neg(0) == 0\n")
    (d / "gate.toml").write_text('[gate]\nname = "calc"\nkind = "pytest"\ntests = "tests"\n')
    loop = Loop(id="calc", dir=d, title="calc", domains=["software"], requirement="(test)", kind="python",
                target="calc.py", artifact_dir=d / "art", hints={"role": "code"}, not_applicable=(),
                gate_paths=[d / "gate.toml"])
    m = measure([loop], families=("fine",), tier2=False, workers=1)
    rows = {m.mutants[r.mutant].note: r for r in m.rows if not r.is_control}
    row = next(r for k, r in rows.items() if "a + b -> a - b" in k)
    assert row.verdict == "reject", row


def _timed_map(durations: dict[str, float], wide_s: float = 0.0, session_s: float = 0.0):
    from corpus.coverage_map import CoverageMap
    return CoverageMap(target="m.py", source="def f():\n    return 1\n", order=list(durations), contexts={},
                       statements=set(), durations=durations, wide_s=wide_s, session_s=session_s)


def test_a_childs_limit_is_its_tests_control_time_times_the_factor_plus_the_slack():
    """The judging child's limit: RUN_FACTOR x (the seconds its tests took in the coverage run,
    plus every wider fixture's; a fork also pays the run's start-up and collection, the session's
    seconds outside any test) + RUN_SLACK_S, never above the gate's limit."""
    from corpus.coverage_map import RUN_FACTOR, RUN_SLACK_S, run_timeout
    cmap = _timed_map({"t.py::a": 0.1, "t.py::b": 0.2, "t.py::c": 3.0}, wide_s=0.05, session_s=4.0)
    assert run_timeout(cmap, ["t.py::a", "t.py::b"], False, 100.0) == round(RUN_FACTOR * 0.35 + RUN_SLACK_S, 2)
    # forked: the 0.7 s of the session outside the tests is paid too; the whole suite is every test
    assert run_timeout(cmap, ["t.py::a"], True, 100.0) == round(RUN_FACTOR * (0.1 + 0.05 + 0.7) + RUN_SLACK_S, 2)
    assert run_timeout(cmap, None, True, 100.0) == round(RUN_FACTOR * 4.05 + RUN_SLACK_S, 2)
    # never above the gate's limit; a slow test raises only the limit of the runs that hold it
    assert run_timeout(cmap, None, True, 20.0) == 20.0
    assert run_timeout(cmap, ["t.py::c"], False, 100.0) > run_timeout(cmap, ["t.py::a"], False, 100.0)


def test_a_test_without_a_control_time_keeps_the_gates_limit():
    from corpus.coverage_map import run_timeout
    cmap = _timed_map({"t.py::a": 0.1})
    assert run_timeout(cmap, ["t.py::a", "t.py::new"], False, 30.0) == 30.0
    assert run_timeout(_timed_map({}), None, True, 30.0) == 30.0


def test_the_coverage_run_times_every_test(tmp_path: Path):
    """measure_coverage's map holds each test's seconds (a slow one above its sleep), the wider
    fixtures' seconds and the whole run's."""
    from corpus.coverage_map import measure_coverage
    from corpus.gates import load_gate
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "import time\n\nimport pytest\n\nimport calc\n\n\n@pytest.fixture(scope='module')\ndef slow_setup():\n"
        "    time.sleep(0.2)\n\n\ndef test_fast():\n    assert calc.add(1, 1) == 2\n\n\n"
        "def test_slow(slow_setup):\n    time.sleep(0.3)\n    assert calc.add(2, 3) == 5\n")
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    home = tmp_path / "home"
    home.mkdir()
    cmap, why = measure_coverage(load_gate(tmp_path / "gate.toml"), tmp_path / "art", "calc.py", str(home))
    assert cmap is not None, why
    slow = next(t for t in cmap.durations if t.endswith("::test_slow"))
    fast = next(t for t in cmap.durations if t.endswith("::test_fast"))
    assert set(cmap.durations) == set(cmap.order)
    assert cmap.durations[slow] >= 0.5 and cmap.wide_s >= 0.2
    assert cmap.session_s >= cmap.durations[slow] + cmap.durations[fast]


def _map_of(tmp_path: Path, module: str, tests: str, name: str = "calc"):
    from corpus.coverage_map import measure_coverage
    from corpus.gates import load_gate
    (tmp_path / "art").mkdir()
    (tmp_path / "art" / f"{name}.py").write_text(module)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(tests)
    (tmp_path / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    home = tmp_path / "home"
    home.mkdir()
    cmap, why = measure_coverage(load_gate(tmp_path / "gate.toml"), tmp_path / "art", f"{name}.py", str(home))
    assert cmap is not None, why
    return cmap


def test_an_artifact_named_as_a_corpus_module_is_the_one_measured(tmp_path: Path):
    """The coverage run's path starts as the cold run's (``python -m pytest``: the working directory),
    not with the runner's own directory, whose screen.py had been imported instead of the artifact (the
    run then failed, and every mutant went the cold way)."""
    cmap = _map_of(tmp_path, "def f():\n    return 1\n", "from screen import f\n\n\ndef test_f():\n    assert f() == 1\n",
                   name="screen")
    assert cmap.contexts[2] == set(cmap.order)


THREADED = ("import _thread\nimport threading\n\n\ndef double(x):\n    return x * 2\n\n\ndef other(x):\n"
            "    return x + 1\n\n\ndef run(start, x):\n    out = []\n    done = threading.Event()\n\n"
            "    def work():\n        out.append(double(x))\n        done.set()\n    start(work)\n"
            "    done.wait()\n    return out[0]\n")
THREAD_TESTS = ("import _thread\nimport threading\n\nimport calc\n\n\ndef test_raw():\n"
                "    assert calc.run(lambda f: _thread.start_new_thread(f, ()), 2) == 4\n\n\n"
                "def test_saved_reference():\n"
                "    assert calc.run(lambda f: threading._start_new_thread(f, ()), 2) == 4\n\n\n"
                "def test_thread():\n    assert calc.run(lambda f: threading.Thread(target=f).start(), 3) == 6\n\n\n"
                "def test_other():\n    assert calc.other(1) == 2\n")


def test_a_test_starting_a_thread_coverage_does_not_trace_is_selected_for_every_mutant(tmp_path: Path):
    """coverage.py follows a ``threading.Thread`` (its tracer is installed by threading's bootstrap),
    never a function handed to ``_thread.start_new_thread`` or to threading's saved reference to it: what
    such a thread ran is unknown, so its test runs for every mutant, as a test that starts a process does
    (red team helper-137: the mutant of a function run only there was accepted unrun)."""
    cmap = _map_of(tmp_path, THREADED, THREAD_TESTS)
    raw, saved, threaded, other = (next(t for t in cmap.order if t.endswith(f"::{n}"))
                                   for n in ("test_raw", "test_saved_reference", "test_thread", "test_other"))
    assert cmap.threaders == {raw, saved} and not cmap.spawners
    assert cmap.select(THREADED.replace("x + 1", "x - 1").encode()) == [raw, saved, other]
    # the traced thread's lines are its test's: it is selected where it ran them, not elsewhere
    assert cmap.select(THREADED.replace("x * 2", "x / 2").encode()) == [raw, saved, threaded]


def test_a_thread_coverage_does_not_trace_started_at_import_runs_the_whole_suite(tmp_path: Path):
    module = THREADED + "\n\nimport _thread as _t\n_t.start_new_thread(print, ('',))\n"
    cmap = _map_of(tmp_path, module, "import calc\n\n\ndef test_other():\n    assert calc.other(1) == 2\n")
    assert cmap.threaders == {""}
    assert cmap.select(module.replace("x + 1", "x - 1").encode()) is None
