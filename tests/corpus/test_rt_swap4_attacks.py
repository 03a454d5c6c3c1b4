"""Red team rt4 (rt-swap4) against 623bc5e (the swap's soundness rules: ``_nothing_else_made_from``,
``_watch_code_reads``, ``_watch_thread_starts``, ``_end_collection_watch``, SWAP_BLOCKERS).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts (support/swap_cases.py). All eight failed on
623bc5e, each judged by the swap executor; seven with the fast verdict ACCEPT where cold REJECTs. All pass
since the swap server watches its own process (forkserver ``_watch_module``: what of the module ran there,
its file read again, a tracer set by the suite; a ctypes memory read; the mutant's text in the child's
linecache) and the coverage run notes threads it cannot trace (the first case):

- thread_started_by_the_start_new_alias: ``_thread.start_new`` (a second builtin, not wrapped by
  ``_watch_thread_starts``) computes at import, untraced by coverage.py, and ends before collection does.
- signal_handler_computes_in_the_server: an ``ITIMER_REAL`` handler runs the function in the swap server
  after collection (no thread, no read, nothing the watch sees); the child inherits its result.
- call_at_import_with_the_tracer_suspended: ``sys.settrace(None)`` around an import-time call: the map
  has no "" context on the line, so the swap child keeps the conforming code's table.
- function_made_from_the_loaders_code: ``__loader__.get_code(__name__)`` compiles the module again with
  no exec event and no audited read, under no blocked word; a function made from its constants.
- test_reads_the_module_text_through_spec_origin: ``m.__spec__.origin`` is ``__file__`` under a name
  SWAP_BLOCKERS lacks; in a swap child it is the control copy.
- code_read_through_ctypes: ``ctypes.py_object.from_address`` reads ``func_code`` (no
  ``object.__getattr__`` event); a ``.replace()`` copy leaves the reference count at 3.
- cache_warmed_by_an_at_fork_hook: ``os.register_at_fork(after_in_child=...)`` runs the function in
  the swap child when the server forks it, before the swap.

and one where the swap is stricter (REJECT where cold ACCEPTs):

- module_frames_name_two_files_in_a_swap_child: since the swapped code names the child's private copy,
  one module's frames name two files; a stack walk skipping the module's own frames by file (numpy's,
  pandas' ``find_stack_level``) stops at the swapped function, and the warning names the wrong caller.

Held (the fast verdict equalled cold's; not kept here): a bound method cached at import, a dispatch
dict / ``functools.partial`` / a default argument holding the function, ``copy.copy`` and a pickle
round trip of it, a class decorator copying methods to another class, a module aliased in
``sys.modules``, a generator method made in a test (all swapped, reject = reject); an ``lru_cache``
wrapper, an idle ``ThreadPoolExecutor`` made at import, a traceback's ``tb_frame.f_code`` read at
import (all forked, reject = reject); a ``sys.setprofile`` hook at import reading ``frame.f_code`` of
other calls (swapped, reject = reject).
"""
from __future__ import annotations

import pytest

from support.swap_cases import assert_killed_as_cold, judged_both_ways

# the judge's specification against red team rt4: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow

# 1. a thread started through ``_thread.start_new`` (the old alias of ``start_new_thread``: another
#    builtin object, which _watch_thread_starts does not wrap) computes at import and ends before
#    collection does: no thread is counted, none is alive at the end, and coverage.py does not
#    trace a raw thread (so the import context "" never ran the line)
START_NEW = b'''import _thread


def compute(x):
    return x * 2


RESULT = []
_done = _thread.allocate_lock()
_done.acquire()


def _work():
    RESULT.append(compute(3))
    _done.release()


_thread.start_new(_work, ())
_done.acquire()
'''
START_NEW_TESTS = '''import m


def test_result():
    assert m.compute(0) == 0
    assert m.RESULT == [6]
'''


def test_rt_swap4_thread_started_by_the_start_new_alias(tmp_path):
    """``_thread.start_new`` is not the wrapped ``start_new_thread``: the swap server's result of
    the conforming code, made in that thread at import, is kept by the swap child."""
    assert_killed_as_cold(tmp_path, START_NEW, START_NEW_TESTS, "L5: x * 2 -> x / 2")


# 2. a signal handler set at import (an interval timer) computes with the function later, in the
#    swap server after collection: no thread, no code read, the module run once; coverage.py
#    traces the handler in the main thread, under the test that was waiting for it
SIGNAL = b'''import signal


def compute(x):
    return x * 2


RESULT = []


def _refresh(signum, frame):
    RESULT.append(compute(3))


signal.signal(signal.SIGALRM, _refresh)
signal.setitimer(signal.ITIMER_REAL, 1.0)
'''
SIGNAL_TESTS = '''import time

import m


def test_result():
    deadline = time.monotonic() + 10
    while not m.RESULT and time.monotonic() < deadline:
        time.sleep(0.01)
    assert m.RESULT == [6]
'''


def test_rt_swap4_signal_handler_computes_in_the_server(tmp_path):
    """An ``ITIMER_REAL`` alarm's handler runs the function in the swap server once collection is
    over (the server idles as a real run's does between mutants); the child inherits the result."""
    assert_killed_as_cold(tmp_path, SIGNAL, SIGNAL_TESTS, "L5: x * 2 -> x / 2", wait_s=2.5)


# 3. the function called at import with the tracer suspended (``sys.settrace(None)``): the coverage
#    map has no import context ("") on its line, so the swap trusts a table made at import
UNTRACED = b'''import sys


def compute(x):
    return x * 2


_tracer = sys.gettrace()
sys.settrace(None)
TABLE = [compute(i) for i in range(3)]
sys.settrace(_tracer)
'''
UNTRACED_TESTS = '''import m


def test_table():
    assert m.compute(0) == 0
    assert m.TABLE == [0, 2, 4]
'''


def test_rt_swap4_call_at_import_with_the_tracer_suspended(tmp_path):
    """``sys.settrace(None)`` around an import-time call hides it from the coverage run; the swap
    child keeps the table the conforming code made at import."""
    assert_killed_as_cold(tmp_path, UNTRACED, UNTRACED_TESTS, "L5: x * 2 -> x / 2")


# 4. the module's code compiled again through its loader (``__loader__.get_code``: no exec event,
#    no ``__code__`` read, no blocked word) and a function made from its constants
LOADER = b'''import types


def compute(x):
    return x * 2


_consts = globals()["__load" "er__"].get_code(__name__).co_consts
fast_compute = types.FunctionType(
    next(c for c in _consts if getattr(c, "co_name", "") == "compute"), globals())
'''
LOADER_TESTS = '''import m


def test_fast_compute():
    assert m.fast_compute(3) == 6
'''


def test_rt_swap4_function_made_from_the_loaders_code(tmp_path):
    """``__loader__.get_code(__name__)`` at import is a second compile of the module's text: the
    function made from it is the conforming code in the swap server, the mutant's cold."""
    assert_killed_as_cold(tmp_path, LOADER, LOADER_TESTS, "L5: x * 2 -> x / 2")


# 5. a test reads the module's text through ``m.__spec__.origin`` (the ``__file__`` of SWAP_BLOCKERS
#    under another name): in a swap child that is the conforming control copy
ORIGIN = b'''def compute(x):
    return x * 2
'''
ORIGIN_TESTS = '''import m


def test_compute_and_its_text():
    assert m.compute(0) == 0
    with open(getattr(m, "__sp" "ec__").origin) as f:
        assert "return x * 2" in f.read()
'''


def test_rt_swap4_test_reads_the_module_text_through_spec_origin(tmp_path):
    """``__spec__.origin`` names the control copy (the conforming text) in the swap child."""
    assert_killed_as_cold(tmp_path, ORIGIN, ORIGIN_TESTS, "L2: x * 2 -> x / 2")


# 6. the code object read from the function's memory with ctypes (no audited attribute read; the
#    ``ctypes.cdata`` event is not watched) and copied
CTYPES = b'''import ctypes
import types


def compute(x):
    return x * 2


# PyFunctionObject (3.11): the object header, then func_globals, func_builtins, func_name,
# func_qualname, func_code
_code = ctypes.py_object.from_address(id(compute) + 6 * ctypes.sizeof(ctypes.c_void_p)).value
assert type(_code) is types.CodeType
fast_compute = types.FunctionType(_code.replace(), globals())
del _code
'''
CTYPES_TESTS = '''import m


def test_fast_compute():
    assert m.fast_compute(3) == 6
'''


def test_rt_swap4_code_read_through_ctypes(tmp_path):
    """The code reached through the function object's memory (``ctypes.py_object.from_address``)
    is never held by the server's watch: a ``.replace()`` copy leaves the reference count at 3."""
    assert_killed_as_cold(tmp_path, CTYPES, CTYPES_TESTS, "L6: x * 2 -> x / 2")


# 7. (stricter, not more lenient) the swapped function's file is the private copy's, every other
#    function of the module still names the control copy: a stack walk that skips the module's own
#    frames by their file (numpy's and pandas' find_stack_level do so) stops at the swapped one
STACK = b'''import sys
import warnings


def _user_level():
    here = getattr(sys._getframe(0).f_code, "co_" "filename")
    level, f = 1, sys._getframe(1)
    while f is not None and getattr(f.f_code, "co_" "filename") == here:
        level += 1
        f = f.f_back
    return level


def old_double(x):
    warnings.warn("old_double is deprecated", DeprecationWarning, stacklevel=_user_level())
    return x * 2
'''
STACK_TESTS = '''import pytest

import m


def test_warning_names_the_caller():
    with pytest.warns(DeprecationWarning) as got:
        assert m.old_double(0) == 0
    assert got[0].filename.endswith("test_m.py"), got[0].filename
'''


def test_rt_swap4_module_frames_name_two_files_in_a_swap_child(tmp_path):
    """Cold pytest accepts the mutant (``old_double(0)`` is 0 either way); the swap child rejects
    it: the warning is attributed to the swapped function's own frame, whose file differs from
    ``_user_level``'s."""
    fast, cold = judged_both_ways(tmp_path, STACK, STACK_TESTS, "L16: x * 2 -> x / 2")
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# 8. a cache warmed after every fork (``os.register_at_fork(after_in_child=...)``, as a pre-forking
#    server's workers do): the swap child runs the hook when the server forks it, before the swap,
#    so the cache holds the conforming code's value; cold pytest never forks, and the test's own
#    call computes the mutant's
AT_FORK = b'''import os

_CACHE = {}


def compute(x):
    return x * 2


def cached(x):
    if x not in _CACHE:
        _CACHE[x] = compute(x)
    return _CACHE[x]


def _warm():
    cached(3)


os.register_at_fork(after_in_child=_warm)
'''
AT_FORK_TESTS = '''import m


def test_cached():
    assert m.cached(3) == 6
'''


def test_rt_swap4_cache_warmed_by_an_at_fork_hook(tmp_path):
    """An ``after_in_child`` hook runs the function in the swap child before the swap is made."""
    assert_killed_as_cold(tmp_path, AT_FORK, AT_FORK_TESTS, "L7: x * 2 -> x / 2")
