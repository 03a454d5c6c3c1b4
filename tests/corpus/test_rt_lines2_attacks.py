"""Red team helper-136 (rt-lines2) against the branch ``lines`` (a1af5e9, b0398ab, fbfb5d0, 4b7ddd5).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant) and asserts equal verdicts; each failed on 4b7ddd5 with the fast verdict ACCEPT
(executor "swap") where cold REJECTs, and passes since: a swap child declines (exit 75, the fork way)
unless the swapped function is the one thing holding its code and each nested code object is held by
its parent's constants alone (forkserver ``_nothing_else_made_from``), and SWAP_BLOCKERS are looked for
in the artifact's own Python files too.

The common cause: a swap replaces the ``__code__`` of the one live function object the qualified
name reaches, but something made from that function's code before the fork (at import, in the swap
server) keeps the conforming code: a closure a decorator or a factory returned (its code a constant
of the swapped function's code), a generator object, another function object made by the same def.
The changed lines themselves ran only inside tests (a closure's or a generator's body runs when
called, not when made), so coverage selects those tests and no import context ("") sends the mutant
to the whole-suite fork. The lambda swap guards each of these (docs/mutation.md, "The lambda swap");
the function swap guards none.

- test_rt_lines2_decorator_wrapper_made_at_import: PRE-EXISTING (fails on ddf7396 too). A
  decorator's wrapper body mutated: changed_function names the decorator, whose code is swapped,
  while the decorated function is the wrapper made at import from the old code.
- test_rt_lines2_generator_made_at_import: PRE-EXISTING. ``FIRST = count_up(3)`` at import.
- test_rt_lines2_loop_defined_function_first_object: PRE-EXISTING. ``for k in ...: def handler``
  makes two function objects of one def (one line: 4b7ddd5's pairing by line cannot tell them apart);
  only the live one is swapped.
- test_rt_lines2_shortened_decorator_wrapper: NEW with a1af5e9/fbfb5d0. The wrapper's
  ``return max(\\n y, 0)`` -> ``return``: on ddf7396 the later ``def f`` moved a line, so
  changed_function gave None and the fork judged it (equal verdicts); padded, it is swapped as above.
- test_rt_lines2_property_generator_made_at_import: NEW with b0398ab. A property whose getter is a
  generator function, read at import (``NUMS = Seq().numbers``: the body does not run then); on
  ddf7396 a property was never swapped (forked, equal verdicts).
- test_rt_lines2_cached_property_closure_made_at_import: NEW with b0398ab. A cached_property
  returning a nested function, read at import; the nested function's body mutated.
- test_rt_lines2_artifact_reads_its_own_source: PRE-EXISTING. SWAP_BLOCKERS looks for ``inspect``
  and ``getsource`` in the test files and conftest.py only; the artifact itself calls
  ``inspect.getsource``, which in a swap child reads the conforming control copy (``__file__``).
"""
from __future__ import annotations

from support.swap_cases import assert_killed_as_cold

DECO = b'''def logged(fn):
    def wrapper(x):
        return fn(x) + 1
    return wrapper


@logged
def f(x):
    return x
'''
DECO_TESTS = '''import m


def test_f():
    assert m.f(3) == 4
'''


def test_rt_lines2_decorator_wrapper_made_at_import(tmp_path):
    assert_killed_as_cold(tmp_path, DECO, DECO_TESTS, "L3: fn(x) + 1 -> fn(x) - 1")


GEN = b'''def count_up(n):
    i = 0
    while i < n:
        yield i
        i += 1


FIRST = count_up(3)
'''
GEN_TESTS = '''import m


def test_first():
    assert list(m.FIRST) == [0, 1, 2]
'''


def test_rt_lines2_generator_made_at_import(tmp_path):
    assert_killed_as_cold(tmp_path, GEN, GEN_TESTS, "L3: i < n -> i <= n")


LOOP = b'''HANDLERS = []
for k in (1, 2):
    def handler(x, k=k):
        return x + k
    HANDLERS.append(handler)
'''
LOOP_TESTS = '''import m


def test_first():
    assert m.HANDLERS[0](1) == 2
'''


def test_rt_lines2_loop_defined_function_first_object(tmp_path):
    assert_killed_as_cold(tmp_path, LOOP, LOOP_TESTS, "L4: x + k -> x - k")


SHORT = b'''def logged(fn):
    def wrapper(x):
        y = fn(x)
        return max(
            y, 0)
    return wrapper


@logged
def f(x):
    return x
'''
SHORT_TESTS = '''import m


def test_f():
    assert m.f(3) == 3
'''


def test_rt_lines2_shortened_decorator_wrapper(tmp_path):
    assert_killed_as_cold(tmp_path, SHORT, SHORT_TESTS, "L4: return max( y, 0) -> return")


PROPGEN = b'''class Seq:
    @property
    def numbers(self):
        i = 0
        while i < 3:
            yield i
            i += 1


NUMS = Seq().numbers
'''
PROPGEN_TESTS = '''import m


def test_nums():
    assert list(m.NUMS) == [0, 1, 2]
'''


def test_rt_lines2_property_generator_made_at_import(tmp_path):
    assert_killed_as_cold(tmp_path, PROPGEN, PROPGEN_TESTS, "L5: i < 3 -> i <= 3")


CACHED = b'''import functools


class Config:
    def __init__(self, step):
        self.step = step

    @functools.cached_property
    def handler(self):
        def handle(x):
            return x + self.step
        return handle


HANDLE = Config(1).handler
'''
CACHED_TESTS = '''import m


def test_handle():
    assert m.HANDLE(3) == 4
'''


def test_rt_lines2_cached_property_closure_made_at_import(tmp_path):
    assert_killed_as_cold(tmp_path, CACHED, CACHED_TESTS, "L11: x + self.step -> x - self.step")


SOURCE = b'''import inspect


def area(w, h):
    return w * h


def formula():
    return inspect.getsource(area)
'''
SOURCE_TESTS = '''import m


def test_formula():
    m.area(1, 1)
    assert "w * h" in m.formula()
'''


def test_rt_lines2_artifact_reads_its_own_source(tmp_path):
    # the module names inspect: no mutant of it is swapped (SWAP_BLOCKERS over the artifact's files too)
    assert_killed_as_cold(tmp_path, SOURCE, SOURCE_TESTS, "L5: w * h -> w / h", swapping=False)


COPY = b'''import types


def inc(x):
    return x + 1


_COPY = types.FunctionType(inc.__code__.replace(co_name="copied"), globals(), "copied")


def via_copy(x):
    return _COPY(x)
'''
COPY_TESTS = '''import m


def test_via_copy():
    assert m.via_copy(3) == 4
'''


def test_a_copy_of_the_code_made_at_import_declines_the_swap(tmp_path):
    """(Added after the red team's report.) A copy of the function's code made at import
    (``code.replace``) is a new code object, which the reference counts do not see; reading
    ``inc.__code__`` to make it is an audited event the swap server records until collection ends."""
    assert_killed_as_cold(tmp_path, COPY, COPY_TESTS, "L5: x + 1 -> x - 1")
