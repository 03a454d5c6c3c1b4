"""Red team rt8 (rt-swap8) against e8bcab7 (the swap's soundness rules: ``_module_untouched``,
``_never_run``, the module watch, ``_nothing_else_made_from``, per-child ``req["home"]``, SWAP_BLOCKERS).

Each test judges fine mutants with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts for the mutant under attack. Each failed on
e8bcab7 with cold's verdict checked (REJECT): A, B, C fast ACCEPT (swap); D fast INCAPACITY (fork).
"""
from __future__ import annotations

import pytest

from corpus.fast_pytest import PytestSession
from corpus.gates import judge
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize
from support.swap_cases import assert_killed_as_cold, one_module_gate

# the judge's specification against red team rt8: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow

PLAIN = b'''def compute(x):
    return x * 2
'''


def _judged_in_one_session(tmp_path, module: bytes, tests: str, notes: list[str]):
    """The fine mutants noted ``notes`` judged one after another by one PytestSession (one worker: one
    swap server, as a real run's later mutants), then the last one cold: (fast judgements, cold)."""
    g, art = one_module_gate(tmp_path, "m", module, tests)
    every = list(generate(ArtifactSpec("p", "python", "m.py", module, {"role": "code"}), "fine"))
    mutants = [next(m for m in every if m.note == n) for n in notes]
    with PytestSession(g, art, "m.py", workers=1) as s:
        assert s.swapping is True
        fast = [s.judge(m) for m in mutants]
    cold = judge(g, materialize(art, mutants[-1], tmp_path / "cold"), "m.py")
    return fast, cold


# A. a cache path under ``~`` bound at import: the swap server imported the module with its own HOME
#    (home-swap), and every swap child's ``req["home"]`` (os.environ) does not reach the path the module
#    already built from it. The first mutant's child (a mutant of another function) writes the conforming
#    function's result there; the next mutant's child reads it instead of running its mutated code.
HOME_BOUND_MODULE = b'''import json
import os

CACHE = os.path.join(os.path.expanduser("~"), "m-cache.json")


def compute(x):
    return x * 2


def scale():
    return 10


def cached(x):
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            known = json.load(f)
        if str(x) in known:
            return known[str(x)]
    value = compute(x)
    with open(CACHE, "w") as f:
        json.dump({str(x): value}, f)
    return value
'''

HOME_BOUND_TESTS = '''import m


def test_cached():
    assert m.cached(2) == 4
    assert m.scale() == 10
'''


@pytest.mark.xfail(strict=True, reason="open: a path the module binds at import (under the swap server's HOME, or "
                   "its working directory, the control copy) is shared by every swap child of the server, and by the "
                   "coverage run for the control copy; what one run leaves there another reads. Needs each child's own "
                   "view of those directories, or the swap off once a child writes there")
def test_rt_swap8_cache_path_bound_to_the_servers_home_at_import(tmp_path):
    """``CACHE = os.path.join(os.path.expanduser("~"), ...)`` at import: bound in the swap server to its
    HOME (home-swap), shared by all its children (each child's own HOME is set in ``os.environ`` only).
    Mutant 1 (``scale``'s ``10 -> 11``, killed) runs ``cached(2)`` with the conforming ``compute`` and leaves
    4 in the shared file; mutant 2 (``compute``'s ``2 -> 3``) then reads 4 in its swap child: fast ACCEPT
    (swap), cold (a fresh HOME, the cache empty: 6) REJECT."""
    fast, cold = _judged_in_one_session(tmp_path, HOME_BOUND_MODULE, HOME_BOUND_TESTS,
                                        ["L12: 10 -> 11", "L8: 2 -> 3"])
    assert fast[0].judgement.verdict.value == "reject", fast[0]
    assert cold.verdict.value == "reject", cold
    assert fast[-1].judgement.verdict == cold.verdict, (fast[-1].executor, fast[-1].judgement)


# B. a cache path bound at import to the working directory: the swap server imported the module in the
#    conforming control copy (its cwd), where the coverage run (its cwd the same copy) left the conforming
#    function's result; a swap child's chdir to its private copy does not reach the bound path.
CWD_BOUND_MODULE = b'''import json
import os

CACHE = os.path.abspath("m-cache.json")


def compute(x):
    return x * 2


def cached(x):
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            known = json.load(f)
        if str(x) in known:
            return known[str(x)]
    value = compute(x)
    with open(CACHE, "w") as f:
        json.dump({str(x): value}, f)
    return value
'''

CWD_BOUND_TESTS = '''import m


def test_cached():
    assert m.cached(2) == 4
'''


@pytest.mark.xfail(strict=True, reason="open: a path the module binds at import (under the swap server's HOME, or "
                   "its working directory, the control copy) is shared by every swap child of the server, and by the "
                   "coverage run for the control copy; what one run leaves there another reads. Needs each child's own "
                   "view of those directories, or the swap off once a child writes there")
def test_rt_swap8_cache_path_bound_to_the_control_copy_at_import(tmp_path):
    """``CACHE = os.path.abspath("m-cache.json")`` at import: in the swap server it names a file in the
    conforming control copy (the server's cwd), where the coverage run (cwd: the same copy) wrote 4 from
    the conforming ``compute``. The swap child of ``2 -> 3`` reads 4 there: fast ACCEPT (swap); cold (a
    fresh copy, no cache: 6) REJECT. One mutant, no earlier child needed."""
    assert_killed_as_cold(tmp_path, CWD_BOUND_MODULE, CWD_BOUND_TESTS, "L8: 2 -> 3")


# C. the module's text read through a directory descriptor: ``os.open(rel, dir_fd=d)`` raises an ``open``
#    event naming ``rel`` alone, which ``_note_open`` stats against the cwd (no such file: not counted);
#    ``d`` is a fresh temporary directory (not the module's directory or an ancestor) holding a link to
#    the module's directory. A swap child reads the conforming control copy's text.
DIRFD_TESTS = '''import os
import tempfile

import m


def _text_of(path):
    d = tempfile.mkdtemp()
    os.symlink(os.path.dirname(path), os.path.join(d, "x"))
    dfd = os.open(d, os.O_RDONLY)
    fd = os.open(os.path.join("x", os.path.basename(path)), os.O_RDONLY, dir_fd=dfd)
    os.close(dfd)
    with os.fdopen(fd) as f:
        return f.read()


def test_text():
    m.compute(1)
    assert "x * 2" in _text_of(vars(m)["__fi" "le__"])
'''


def test_rt_swap8_text_read_through_a_directory_descriptor(tmp_path):
    """A test reads the module's file by ``os.open("x/m.py", dir_fd=d)``, ``d`` a new temporary directory
    with ``x`` a link to the module's directory: the ``open`` event's relative path is stat'ed from the
    cwd (not found: not a read), the directory ``d`` is not an ancestor of the module. The swap child reads
    the control copy's ``x * 2``: fast ACCEPT (swap); cold reads the mutant's ``x * 3``: REJECT."""
    assert_killed_as_cold(tmp_path, PLAIN, DIRFD_TESTS, "L2: 2 -> 3")


# D. pytest's own ``pytest_unconfigure`` (9.x's unraisableexception plugin: a gc pass, then the
#    unraisable exceptions it found, as warnings): a swap child runs ``pytest_runtestloop`` alone and
#    exits, so a finalizer raising at the session's end (a reference cycle collected there) never runs;
#    with such warnings errors (a conftest's ``warnings.filterwarnings`` at configure) the cold run ends with exit 1.
UNRAISABLE_MODULE = b'''def compute(x):
    return x * 2


class Holder:
    def __init__(self, x):
        self.me = self
        self.x = x

    def __del__(self):
        if compute(self.x) != 4:
            raise ValueError("bad")
'''

UNRAISABLE_CONFTEST = '''import warnings

import pytest


def pytest_configure(config):
    warnings.filterwarnings("error", category=pytest.PytestUnraisableExceptionWarning)
'''

UNRAISABLE_TESTS = '''import m


def test_holder():
    m.Holder(2)
    assert m.compute(0) == 0
'''


def test_rt_swap8_finalizer_raising_in_pytests_unconfigure(tmp_path):
    """A cycle ``Holder(2)`` left by the test, whose ``__del__`` raises when ``compute(2) != 4``, is
    collected by pytest's own ``pytest_unconfigure`` (unraisableexception: ``gc_collect_harder``, then
    ``collect_unraisable``); a conftest's ``pytest_configure`` makes
    ``PytestUnraisableExceptionWarning`` an error, so cold pytest
    ends with exit 1 on ``2 -> 3``: REJECT. The swap child runs pytest's run loop alone, never
    ``pytest_unconfigure`` (and ``os._exit``s). On e8bcab7 the swap child declines here and the fork
    child (``forkserver._child``) catches the exception ``pytest.main`` raises as exit 70: fast INCAPACITY
    (fork), cold (``python -m pytest``: an uncaught exception, exit 1) REJECT. (Only pytest's own implementations of
    the session hooks are there, so ``_only_pytests_session_hooks`` keeps the swap on.)"""
    g, art = one_module_gate(tmp_path, "m", UNRAISABLE_MODULE, UNRAISABLE_TESTS)
    (g.dir / "tests" / "conftest.py").write_text(UNRAISABLE_CONFTEST)
    mutant = next(m for m in generate(ArtifactSpec("p", "python", "m.py", UNRAISABLE_MODULE, {"role": "code"}),
                                      "fine") if m.note == "L2: 2 -> 3")
    with PytestSession(g, art, "m.py", workers=1) as s:
        assert s.swapping is True
        fast = s.judge(mutant)
    cold = judge(g, materialize(art, mutant, tmp_path / "cold"), "m.py")
    assert cold.verdict.value == "reject", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)
