"""Red team helper-137 (rt-swap3) against 85d480e (``_nothing_else_made_from``, ``_watch_code_reads``, SWAP_BLOCKERS in
the artifact's files, ``lines_kept``).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant) and asserts equal verdicts (the harness of test_rt_lines2_attacks.py).
All seven fail on 85d480e with the fast verdict ACCEPT where cold REJECTs, and all seven fail on
ddf7396 too (PRE-EXISTING; none is new with the branch):

- code_copied_through_gc_get_referents: ``gc.get_referents(fn)`` reaches the code with no
  ``object.__getattr__ '__code__'`` event; a ``.replace()`` copy leaves the refcount at 3. (swap)
- code_copied_through_gi_code: a generator's ``gi_code`` (audited as "gi_code"; likewise
  ``f_code``, ``cr_code``) copied. (swap)
- decorator_renames_its_wrappers_code: ``wrapper.__code__.replace(co_name=...)`` - the audited
  read is of the temporary closure, not of the swapped decorator (``_CODE_READ`` is checked for
  ``id(fn)`` only), and the nested code's copy adds no reference to the nested code. (swap)
- thread_started_at_import_calls_after_collection: the swap server's thread computes with the
  conforming code after the audit/refcount window; the map put the lines on the waiting test. (swap)
- module_imported_twice_at_collection: ``del sys.modules["m"]`` then re-import at collection; the
  test holds the first module's function, ``_MODULE_BY_FILE`` finds the second. (swap)
- traceback_text_shows_the_conforming_line: the swapped code's ``co_filename`` is the conforming
  copy, so ``traceback.format_exc()`` shows the conforming line text. (swap)
- function_run_in_a_raw_thread_is_never_run: ``_thread.start_new_thread`` is not traced by
  coverage; the map says no test ran the line and the mutant is ACCEPTed unrun. (coverage)

The six swap cases pass since: a swap server holds every code object read through an attribute
(``__code__``, ``gi_code``, ``cr_code``, ``ag_code``, ``f_code``) until collection ends, so its
reference count says so; any ``gc.get_referents``/``get_referrers``/``get_objects`` call then, a
thread alive at its end, or the module executed twice, turns the function swap off; and a traceback's
text of the swapped code is the mutant's (the child's ``linecache`` holds the mutant's lines for the module's
file: forkserver ``_show_mutant_text``). The raw-thread case passes since the
coverage run notes every thread started that coverage does not trace (corpus/coverage_runner.py
``traced_thread_start``): its test is selected for every mutant.
"""
from __future__ import annotations

from support.swap_cases import assert_killed_as_cold

# 1. a copy of the code reached without the audited ``__code__``: gc.get_referents(fn)
GC = b'''import gc
import types


def double(x):
    return x * 2


twice = types.FunctionType(
    [o for o in gc.get_referents(double) if type(o) is types.CodeType][0].replace(),
    globals(), "twice")
'''
GC_TESTS = '''import m


def test_twice():
    assert m.twice(3) == 6
'''


def test_rt_swap3_code_copied_through_gc_get_referents(tmp_path):
    assert_killed_as_cold(tmp_path, GC, GC_TESTS, "L6: x * 2 -> x / 2")


# 2. ... through a generator's gi_code (audited as "gi_code", not "__code__")
GEN = b'''import types


def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1


count_from_zero = types.FunctionType(count_up(0).gi_code.replace(), globals(), "count_from_zero")
'''
GEN_TESTS = '''import m


def test_count():
    assert list(m.count_from_zero(3)) == [0, 1, 2]
'''


def test_rt_swap3_code_copied_through_gi_code(tmp_path):
    assert_killed_as_cold(tmp_path, GEN, GEN_TESTS, "L6: i < n -> i <= n")


# 3. a decorator renaming its wrapper's code: the __code__ read is the wrapper's (a function object
#    freed at once), not the swapped decorator's; the nested code's copy holds no reference to it
DECO = b'''def named_like(fn):
    def wrapper(x):
        return fn(x) + 1
    # tracebacks name the decorated function: the wrapper's code renamed
    return type(wrapper)(wrapper.__code__.replace(co_name=fn.__name__), wrapper.__globals__,
                         fn.__name__, None, wrapper.__closure__)


@named_like
def f(x):
    return x
'''
DECO_TESTS = '''import m


def test_f():
    assert m.f(3) == 4
'''


def test_rt_swap3_decorator_renames_its_wrappers_code(tmp_path):
    assert_killed_as_cold(tmp_path, DECO, DECO_TESTS, "L3: fn(x) + 1 -> fn(x) - 1")


# 4. a thread started at import calls the function after collection, in the swap server too
THREAD = b'''import threading
import time


def compute(x):
    return x * 2


RESULT = []


def _warm():
    time.sleep(0.4)
    RESULT.append(compute(3))


threading.Thread(target=_warm, daemon=True).start()
'''
THREAD_TESTS = '''import time

import m


def test_result():
    deadline = time.monotonic() + 10
    while not m.RESULT and time.monotonic() < deadline:
        time.sleep(0.01)
    assert m.RESULT == [6]
'''


def test_rt_swap3_thread_started_at_import_calls_after_collection(tmp_path):
    assert_killed_as_cold(tmp_path, THREAD, THREAD_TESTS, "L6: x * 2 -> x / 2", wait_s=1.5)


# 5. the module imported again at collection (del sys.modules): the test holds the first module's
#    function, the swap child swaps the second's
TWO = b'''def f(x):
    return x + 1
'''
TWO_TESTS = '''import importlib
import sys

from m import f

del sys.modules["m"]
importlib.import_module("m")


def test_f():
    assert f(3) == 4
'''


def test_rt_swap3_module_imported_twice_at_collection(tmp_path):
    assert_killed_as_cold(tmp_path, TWO, TWO_TESTS, "L2: x + 1 -> x - 1")


# 6. a traceback's text: the swapped code's file is the conforming copy, so linecache (warmed in
#    the server, or read in the child) gives the conforming line
TB = b'''import traceback


def parse(s):
    try:
        return int(s, 10)
    except ValueError:
        return traceback.format_exc()
'''
TB_TESTS = '''import m


def test_parse_reports_the_line():
    assert "return int(s, 10)" in m.parse("x")
'''


def test_rt_swap3_traceback_text_shows_the_conforming_line(tmp_path):
    assert_killed_as_cold(tmp_path, TB, TB_TESTS, "L6: 10 -> 11")


# 7. the function run only in a ``_thread`` thread (no threading.settrace hook: coverage never
#    traces it): the map says no test ran the changed line, so the mutant is accepted unrun
RAW = b'''import _thread


def compute(x):
    return x * 2


def in_thread(x):
    out = []
    done = _thread.allocate_lock()
    done.acquire()

    def work():
        out.append(compute(x))
        done.release()
    _thread.start_new_thread(work, ())
    done.acquire()
    return out[0]
'''
RAW_TESTS = '''import m


def test_in_thread():
    assert m.in_thread(3) == 6
'''


def test_rt_swap3_function_run_in_a_raw_thread_is_never_run(tmp_path):
    """coverage.py does not trace a raw ``_thread`` thread, so the map had said no test ran the line and the
    mutant was accepted unrun; a test that starts such a thread is now selected for every mutant."""
    assert_killed_as_cold(tmp_path, RAW, RAW_TESTS, "L5: x * 2 -> x / 2")

