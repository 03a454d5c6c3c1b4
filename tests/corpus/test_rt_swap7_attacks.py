"""Red team rt7 (rt-swap7) against e96b8bc (the swap's "never began to run" rule read from 3.11's
``co_warmup``: ``_never_run``, ``_module_untouched``; the module watch ``_watch_module``/``_note_open``/
``_first_load``/``SWAP_SAFE_EVENTS``; ``_nothing_else_made_from``, ``_watch_code_reads``; SWAP_BLOCKERS).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts (support/swap_cases.py). All failed on
e96b8bc. Since: a child's tests reaching memory (ctypes) or the heap's object lists make it decline after
its run; the first load is exempt only with a loader of the standard class and the import machinery as it
was (builtins, marshal, importlib's bootstrap modules, the loader classes); the code-read watch lasts
until the child's swap decision (the swap's own reads go around it); the swap servers get a HOME of their
own and each child one of its own; the watch's ctypes leaves no module in ``sys.modules``; its audit hook
never raises (what it cannot read counts); ``co_filename`` is a word of SWAP_BLOCKERS. The frozen-heap
case is a strict xfail (open). Fast ACCEPT (executor swap) where cold REJECTs:

- text_read_through_libc: a test reads the module's file through ctypes' libc ``open``/``read`` (no
  ``open`` audit event) at ``m.compute.__code__.co_filename``: the conforming control copy in a swap child.
- text_kept_by_source_to_code_in_the_first_load: ``SourceFileLoader.source_to_code`` replaced before
  ``import m``: the read is the exact loader chain ``_first_load`` exempts; the replacement keeps the text.
- code_copied_in_the_server_after_collection: a timer armed at import fires in the idle swap server;
  the code-read watch ended with collection, so ``compute.__code__.replace()`` is unrecorded; the copy
  (its own co_warmup) caches the conforming result; the original never ran and nothing holds it.
- code_copied_by_the_servers_module_walk: the same, deterministic: a ``ModuleType`` subclass in
  ``sys.modules`` whose ``__getattribute__`` the server's own post-collection walk (``_warm_linecache``:
  ``hasattr(mod, "__dict__")``) runs.
- cache_left_in_the_sessions_home: a disk cache under ``~`` written by the coverage run on the conforming
  module is read by the swap child (the session's HOME; a fork and a cold run get a fresh one).

Stricter (fast REJECT where cold ACCEPTs):

- ctypes_imported_by_the_swap_check: ``_never_run`` imports ctypes in the swap child before the tests.
- code_filename_outside_the_working_directory: rt6's case without a blocked word (``co_filename``).
- gc_frozen_by_the_server[swap|fork]: ``gc.get_freeze_count()`` nonzero in every fork-server child.
- watch_hook_raises_in_the_child: the module watch's audit hook, alive in the child, raises from a test's
  ``open`` when ``sys.implementation.cache_tag`` is None (``importlib.util.cache_from_source``).

Considered and reasoned to hold, not run: a generator made at import and never started (its frame holds
the code: refcount), defaults or ``super()`` calls running the function at import (co_warmup), the class
body's code reached through ``__build_class__`` (the read is held: the method's code counts one more),
``signal.setitimer``/``signal.signal`` (unaudited, but a handler calling the function moves co_warmup;
only a copy evades it: case 3), user site ``usercustomize`` planted in the shared HOME (PYTHONNOUSERSITE
and the venv turn it off), ``sys.pycache_prefix`` (writing the pyc is an ``os.rename`` event: odd).
"""
from __future__ import annotations

import pytest

from support.swap_cases import CACHED, CACHED_TESTS, assert_killed_as_cold, judged_both_ways

# the judge's specification against red team rt7: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow

PLAIN = b'''def compute(x):
    return x * 2
'''

# A. the test reads the module's file through libc (ctypes): no ``open`` audit event, so the child's
#    read count stays 0; the path is the function's own co_filename, the control copy in a swap child
CTYPES_READ_TESTS = '''import ctypes

import m


def _read(path):
    libc = ctypes.CDLL(None)
    libc.open.restype = ctypes.c_int
    libc.open.argtypes = [ctypes.c_char_p, ctypes.c_int]
    fd = libc.open(path.encode(), 0)
    buf = ctypes.create_string_buffer(4096)
    n = libc.read(fd, buf, 4096)
    libc.close(fd)
    return buf.raw[:n].decode()


def test_text():
    m.compute(1)
    assert "x * 2" in _read(getattr(m.compute.__code__, "co_" "filename"))
'''


def test_rt_swap7_text_read_through_libc(tmp_path):
    """A test reads the module's file with libc's ``open``/``read`` through ctypes (no ``open`` audit
    event: ``_RUNS["reads"]`` stays 0 in the child) at the function's ``co_filename``, which a swap child
    names as the conforming control copy."""
    assert_killed_as_cold(tmp_path, PLAIN, CTYPES_READ_TESTS, "L2: x * 2 -> x / 2")


# B. the test file patches the import system's ``source_to_code`` before ``import m``: the open is the
#    exact loader chain's (get_data <- get_code <- exec_module), exempt as the first load; the text is kept
LOADER_TEXT_TESTS = '''import importlib.machinery as im

_SL = getattr(im, "Source" "FileLoader")
_orig = _SL.source_to_code
TEXT = []


def _keep(self, data, path, *, _optimize=-1):
    TEXT.append(bytes(data).decode())
    return _orig(self, data, path, _optimize=_optimize)


_SL.source_to_code = _keep
import m  # noqa: E402
_SL.source_to_code = _orig


def test_text():
    m.compute(1)
    assert "x * 2" in TEXT[0]
'''


def test_rt_swap7_text_kept_by_source_to_code_in_the_first_load(tmp_path):
    """``SourceFileLoader.source_to_code`` replaced before the first import: the file is opened by the
    exact loader chain ``_first_load`` exempts, and the replacement, called by ``get_code`` after the read,
    keeps the conforming text."""
    assert_killed_as_cold(tmp_path, PLAIN, LOADER_TEXT_TESTS, "L2: x * 2 -> x / 2")


# C. a timer armed at import fires in the swap server after collection ended (the code-read watch is off
#    then): it copies the function's code (``.replace()``: a new code object, its own co_warmup) and fills
#    the cache with the copy; the original never ran, nothing holds it, no odd event
TIMER_COPY = b'''import signal
import types


''' + CACHED + b'''

def _fill(*_):
    copy = types.FunctionType(compute.__code__.replace(), globals())
    _CACHE[3] = copy(3)


signal.signal(signal.SIGALRM, _fill)
signal.setitimer(signal.ITIMER_REAL, 2.0)
'''



def test_rt_swap7_code_copied_in_the_server_after_collection(tmp_path):
    """A timer set at import fires in the idle swap server after collection: the code-read watch
    (``_CODE_READ``, ``_CODE_HELD``) has ended, so the handler's ``compute.__code__.replace()`` copy is
    not recorded; the copy runs (its own co_warmup) and caches the conforming result; the original code's
    co_warmup is untouched and its reference count is 3 again."""
    assert_killed_as_cold(tmp_path, TIMER_COPY, CACHED_TESTS, "L6: x * 2 -> x / 2", wait_s=4.0)


# D. stricter: the swap child's own co_warmup check imports ctypes before the tests run
NO_CTYPES_TESTS = '''import sys

import m


def test_stays_light():
    m.compute(1)
    assert "ctypes" not in sys.modules
'''


def test_rt_swap7_ctypes_imported_by_the_swap_check(tmp_path):
    """Stricter: ``_never_run`` imports ctypes in the swap child before the selected tests run; a test
    asserting the module keeps ctypes unloaded passes cold (pytest and coverage.py never import it) and
    fails only in the swap child."""
    fast, cold = judged_both_ways(tmp_path, PLAIN, NO_CTYPES_TESTS, "L2: x * 2 -> x / 2")
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# E. the same copy made deterministically: a module object of the suite's own ModuleType subclass in
#    sys.modules; the swap server's own walks of sys.modules after collection (``_warm_linecache``,
#    ``_prepare_swap``: ``hasattr(mod, "__dict__")``) run its ``__getattribute__`` in the server
LAZY_COPY = b'''import sys
import types


''' + CACHED + b'''

class _Lazy(types.ModuleType):
    def __getattribute__(self, name):
        if name == "__dict__" and 3 not in _CACHE:
            _CACHE[3] = types.FunctionType(compute.__code__.replace(), globals())(3)
        return types.ModuleType.__getattribute__(self, name)


sys.modules["m_lazy_helper"] = _Lazy("m_lazy_helper")
'''


def test_rt_swap7_code_copied_by_the_servers_module_walk(tmp_path):
    """A ``types.ModuleType`` subclass in ``sys.modules``: the swap server's own walk of the loaded
    modules after collection (``_warm_linecache``'s ``_module_file_of``: ``hasattr(mod, "__dict__")``)
    runs its ``__getattribute__`` in the server, where the code-read watch has ended: the function's code
    is copied and the copy's conforming result cached; the original never ran and nothing holds it."""
    assert_killed_as_cold(tmp_path, LAZY_COPY, CACHED_TESTS, "L6: x * 2 -> x / 2")


# F. stricter: the swapped code names the control copy (``co_filename``), the child runs in its private copy
WHERE_TESTS = '''import os

import m


def test_where():
    m.compute(1)
    assert os.path.dirname(m.compute.__code__.co_filename) == os.getcwd()
'''


def test_rt_swap7_code_filename_outside_the_working_directory(tmp_path):
    """Stricter: rt6's case (the module loaded from outside the working directory) spelled without a
    word of SWAP_BLOCKERS: the swapped function's ``co_filename`` is the control copy's path, the swap
    child's working directory its private copy; cold, both are the artifact's directory."""
    fast, cold = judged_both_ways(tmp_path, PLAIN, WHERE_TESTS, "L2: x * 2 -> x / 2", swapping=False)
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# G. stricter: every fork-server child inherits the server's ``gc.freeze()``
UNFROZEN_TESTS = '''import gc

import m


def test_unfrozen():
    m.compute(1)
    assert gc.get_freeze_count() == 0
'''


@pytest.mark.xfail(strict=True, reason="open: a fork server freezes its heap before forking (gc.freeze: a child's "
                   "collections skip it, the fork's copy-on-write cost); a child that unfroze it would traverse the "
                   "whole heap. Only gc.get_freeze_count() shows it (the heap's object lists are watched: rt7)")
@pytest.mark.parametrize("swapping", [True, False], ids=["swap", "fork"])
def test_rt_swap7_gc_frozen_by_the_server(tmp_path, swapping):
    """Stricter: a fork server calls ``gc.freeze()`` before it forks (the swap server at its run loop, a
    plain server before serving), so ``gc.get_freeze_count()`` is nonzero in every judging child, swapped
    or forked (a blocked word in the test file turns the swap off); a cold pytest run (and the coverage
    run) never freezes."""
    tests = UNFROZEN_TESTS if swapping else UNFROZEN_TESTS + '\nWORD = "inspect"\n'
    fast, cold = judged_both_ways(tmp_path, PLAIN, tests, "L2: x * 2 -> x / 2", swapping=swapping)
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# H. stricter: the module watch's audit hook stays in the swap child and raises from a test's open
NO_CACHE_TAG_TESTS = '''import sys

import m


def test_reads_without_bytecode_caching(tmp_path):
    m.compute(1)
    (tmp_path / "data.txt").write_text("x")
    tag = sys.implementation.cache_tag
    sys.implementation.cache_tag = None
    try:
        with open(tmp_path / "data.txt") as f:
            assert f.read() == "x"
    finally:
        sys.implementation.cache_tag = tag
'''


def test_rt_swap7_watch_hook_raises_in_the_child(tmp_path):
    """Stricter: the server's module-watch audit hook (``_note_open``) is still installed in a swap
    child and calls ``importlib.util.cache_from_source`` on every open of an existing file; with
    ``sys.implementation.cache_tag`` None (bytecode caching off) that raises NotImplementedError out of
    the test's own ``open``. Cold has no such hook."""
    fast, cold = judged_both_ways(tmp_path, PLAIN, NO_CACHE_TAG_TESTS, "L2: x * 2 -> x / 2")
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# I. a disk cache under HOME: the session's HOME is shared by the coverage run (on the conforming
#    module), the swap server and every swap child; a cold run (and a forked one) gets a fresh HOME
HOME_CACHE = b'''import json
import os


def compute(x):
    return x * 2


def table():
    path = os.path.join(os.path.expanduser("~"), ".m-table.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError:
        pass
    made = {str(i): compute(i) for i in range(5)}
    with open(path, "w") as f:
        json.dump(made, f)
    return made
'''

HOME_CACHE_TESTS = '''import m


def test_table():
    assert m.compute(0) == 0
    assert m.table()["3"] == 6
'''


def test_rt_swap7_cache_left_in_the_sessions_home(tmp_path):
    """A module caching a table on disk under ``~``: the coverage run on the conforming module writes
    it to the session's HOME, which the swap server and its children keep (a forked judgment and a cold
    run each get a fresh one); the swap child reads the conforming table."""
    assert_killed_as_cold(tmp_path, HOME_CACHE, HOME_CACHE_TESTS, "L6: x * 2 -> x / 2")
