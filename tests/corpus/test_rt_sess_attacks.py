"""A swap never more lenient than the cold run, whatever the suite does at the end of its session.

Red team helper-133 against 76c0d39 (forkserver._only_pytests_session_hooks: a suite implementing
``pytest_runtestloop``, ``pytest_sessionfinish``, ``pytest_terminal_summary`` or ``pytest_unconfigure``
is not served by swapping): suites for which a function-body mutant (``c < 0`` -> ``c <= 0``) judged
by a swap child got a verdict more lenient than the cold run's. All eight were older than 76c0d39.
The two that named themselves pytest's are closed: pytest's own hooks are now known by identity (each
function of pytest's modules and its code object, noted before any other module is imported), which also
closes reviewer helper-134's two (a hook compiled with a pytest file name; a pytest hook's code replaced by
a test). The other six are open, strict xfails: a swap child runs pytest's run loop and
exits, so nothing of the session's end runs there (a ``pytest_cmdline_main`` wrapper, a
``config.add_cleanup`` callback, pytest's own unconfigure collecting garbage under warnings-as-errors,
an atexit handler, a patched ``_pytest.main._main``); and coverage-based selection runs only the tests
that ran the changed lines, so a test reading state another left is not run (as in mutmut). The
structural fix is a swap child that returns into the server's own session (its sessionfinish,
unconfigure, cleanups and exit code are then pytest's): not done (docs/mutation.md)."""
import pytest

from corpus.fast_pytest import PytestSession
from corpus.gates import judge, load_gate
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize

CALC = "def lt(c):\n    return c < 0\n"
# the test passes on both; it leaves behind whether lt(0) held (the mutant: True)
TESTS = "import builtins\nimport calc\n\n\ndef test_other():\n    assert calc.lt(-5)\n    builtins.LT0 = calc.lt(0)\n"


def _judge_both(d, conftest, tests=TESTS, extra=None):
    (d / "art").mkdir()
    (d / "art" / "calc.py").write_text(CALC)
    (d / "tests").mkdir()
    (d / "tests" / "test_calc.py").write_text(tests)
    (d / "tests" / "conftest.py").write_text(conftest)
    for name, text in (extra or {}).items():
        (d / "tests" / name).write_text(text)
    (d / "gate.toml").write_text('[gate]\nname = "s"\nkind = "pytest"\ntests = "tests"\n')
    g = load_gate(d / "gate.toml")
    mutant = next(m for m in generate(ArtifactSpec("l", "python", "calc.py", CALC.encode(), {"role": "code"}),
                                      "fine") if m.content and b"c <= 0" in m.content)
    with PytestSession(g, d / "art", "calc.py", workers=1) as s:
        got = s.judge(mutant)
    cold = judge(g, materialize(d / "art", mutant, d / "cold"), "calc.py")
    return got, cold


CASES = {
    # a session hook whose class claims to be pytest's: the first check read
    # type(plugin).__module__ and takes it for pytest's own
    "spoofed class module": (
        "import builtins\n\n\nclass Finish:\n    __module__ = '_pytest.finish'\n\n"
        "    def pytest_sessionfinish(self, session, exitstatus):\n"
        "        if getattr(builtins, 'LT0', False):\n            session.exitstatus = 1\n\n\n"
        "def pytest_configure(config):\n    config.pluginmanager.register(Finish(), 'finish')\n"),
    # the conftest module renames itself: plugin.__name__ is read, not where it was loaded from
    "spoofed conftest name": (
        "import builtins\n__name__ = '_pytest.conftest'\n\n\ndef pytest_sessionfinish(session, exitstatus):\n"
        "    if getattr(builtins, 'LT0', False):\n        session.exitstatus = 1\n"),
    # reviewer helper-134: a hook whose code claims a file of pytest's package (the second check read co_filename)
    "spoofed code file name": (
        "import builtins\nimport os\nimport types\nimport _pytest\n\n\ndef _f(session, exitstatus):\n"
        "    if getattr(builtins, 'LT0', False):\n        session.exitstatus = 1\n\n\n"
        "pytest_sessionfinish = types.FunctionType(_f.__code__.replace(\n"
        "    co_filename=os.path.join(_pytest.__path__[0], 'main.py')), globals())\n"),
    # reviewer helper-134: a test replaces the code of one of pytest's own session hooks (a cache by function missed it)
    "spoofed pytest hook code": (
        "import pytest\nimport _pytest.tmpdir as T\n\n\ndef _evil(session, exitstatus):\n    import builtins\n"
        "    if getattr(builtins, 'LT0', False):\n        session.exitstatus = 1\n\n\n"
        "@pytest.fixture(autouse=True)\ndef swap_code():\n    yield\n    T.pytest_sessionfinish.__code__ = _evil.__code__\n"),
    # a wrapper of pytest_cmdline_main (not one of the four hooks): cold, it wraps the whole run
    # and decides the exit code; the swap child never returns through it
    "cmdline_main wrapper": (
        "import builtins\nimport pytest\n\n\n@pytest.hookimpl(wrapper=True)\ndef pytest_cmdline_main(config):\n"
        "    ret = yield\n    return 1 if getattr(builtins, 'LT0', False) else ret\n"),
    # a cleanup registered with config.add_cleanup (no hook implementation): cold, it runs at
    # unconfigure and its exception ends pytest with exit 1
    "config.add_cleanup": (
        "import builtins\n\n\ndef pytest_configure(config):\n    def check():\n"
        "        assert not getattr(builtins, 'LT0', False)\n    config.add_cleanup(check)\n"),
    # an object with a failing __del__ left in a reference cycle; pytest's own unraisableexception
    # plugin collects it at pytest_unconfigure (gc.collect), and with warnings as errors (set in
    # pytest_configure: a filter set at conftest import is undone) the run ends with exit 1; the swap child never reaches that unconfigure
    "unraisable at unconfigure": (
        "import builtins\nimport gc\nimport warnings\nimport pytest\n\n\n"
        "def pytest_configure(config):\n    warnings.simplefilter('error')\n\n\nclass Leaky:\n    def __del__(self):\n"
        "        raise RuntimeError('not closed')\n\n\n@pytest.fixture(autouse=True)\ndef leak():\n"
        "    gc.disable()\n    yield\n    if getattr(builtins, 'LT0', False):\n"
        "        a = Leaky()\n        a.me = a\n"),
    # an atexit handler registered by a fixture: cold, the interpreter runs it at exit
    "atexit os._exit": (
        "import atexit\nimport builtins\nimport os\nimport pytest\n\n\n@pytest.fixture(autouse=True)\n"
        "def at_exit():\n    yield\n    if getattr(builtins, 'LT0', False):\n"
        "        atexit.register(os._exit, 1)\n"),
    # pytest's _main replaced by the conftest (no hook implementation at all)
    "patched _pytest.main._main": (
        "import builtins\nimport _pytest.main\n\n_real = _pytest.main._main\n\n\ndef _main(config, session):\n"
        "    ret = _real(config, session)\n    return 1 if getattr(builtins, 'LT0', False) else ret\n\n\n"
        "_pytest.main._main = _main\n"),
}


OPEN = "a swap child runs pytest's run loop and exits: the session's end never runs there (open, helper-133)"


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=OPEN)) if not c.startswith("spoofed") else c
    for c in CASES])
def test_a_swap_is_never_more_lenient_than_cold(tmp_path, case):
    got, cold = _judge_both(tmp_path, CASES[case])
    assert got.judgement.verdict is cold.verdict, (got.executor, got.judgement.reason, cold.reason)


@pytest.mark.xfail(strict=True, reason="selection runs the tests that ran the changed lines; a test reading state "
                                        "another left is not among them (open, helper-133; mutmut selects so too)")
def test_an_unselected_test_reading_what_the_selected_one_left(tmp_path):
    """A test the coverage map does not select (it never runs calc) reads what the selected one left."""
    tests = TESTS + "\n\ndef test_zz_after():\n    import builtins\n    assert not getattr(builtins, 'LT0', False)\n"
    got, cold = _judge_both(tmp_path, "", tests=tests)
    assert got.judgement.verdict is cold.verdict, (got.executor, got.judgement.reason, cold.reason)
