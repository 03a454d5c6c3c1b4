"""Red team rt6 (rt-swap6) against 8d53fa8 (the swap server's module watch with an allowlist:
``_watch_module``, ``_note_open``, ``_first_load``, ``_watch_unaudited``, ``_module_untouched``,
``SWAP_SAFE_EVENTS``, ``_RUNS``, ``_show_mutant_text``, ``_warm_linecache``, ``_watch_thread_starts``).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts (support/swap_cases.py). All eleven failed
on 8d53fa8, each judged by the swap executor; ten with the fast verdict ACCEPT where cold REJECTs. All pass
since e96b8bc: whether the function ran is the code object's own warm-up count (no hook, thread or finalizer
escapes it), the watch calls no method of the suite's objects, the first load is told by the exact loader
chain, directory opens count, the server's linecache warm-up skips the module's file by inode, and the two
cases with no dynamic rule (the stat, the working directory) go the fork way by the word list (``__spec__``);
the other cases spell the listed words apart, so that the dynamic rules are what they test:

- str_subclass_method_runs_inside_the_watchs_audit_hook: ``open(StrSubclass(...))``: the open event
  carries the object and ``_note_open`` calls its ``startswith`` inside the audit hook, where CPython
  runs no trace function (a ``bytes`` subclass's ``decode`` likewise, through ``os.fsdecode``).
- fspath_runs_inside_the_watchs_audit_hook: ``io.FileIO(pathlike)``: the event carries the path-like
  object, ``_note_open``'s ``os.fspath`` runs its ``__fspath__`` in the hook, untraced.
- text_read_by_the_suites_loader_inside_the_first_load: a meta-path finder's loader reads the module's
  text inside ``_load_unlocked`` before running it; ``_first_load`` exempts it as the import's own read.
- linecache_warmed_under_another_spelling_of_the_file: a module whose ``__file__`` is ``dir//m.py``;
  ``_warm_linecache`` caches the conforming text under that key, ``_show_mutant_text`` replaces only
  ``dir/m.py``.
- module_file_stat_without_an_open: ``os.stat(m.__spec__.origin)`` (no audit event): the control copy.
- thread_started_through_a_fresh_thread_module: ``sys.modules`` entry of ``_thread`` removed and imported
  again: a new module object with the unwrapped ``start_new_thread``; a raw thread computes untraced
  and uncounted (the coverage run's wrapper is bypassed too).
- finalizer_runs_in_a_collection_inside_the_audit_hook: ``__del__`` run by a gc collection that an
  allocation in ``_note_open`` started: audit hooks run with tracing off.
- finalizer_runs_in_a_collection_inside_the_trace_function: the same inside the watch's trace function
  (the audit tuple of its ``f_code`` read); not closed by a hook that keeps tracing on.
- text_read_while_the_server_is_busy: a finalizer run during ``_warm_linecache`` (``_AUDIT_BUSY`` set:
  every audit event ignored) reads the module's file uncounted.
- dir_fd_open_through_a_fresh_posix_module: a re-imported ``posix`` has the original ``open`` (and
  ``register_at_fork``): ``_watch_unaudited``'s wrappers are bypassed, rt5's dir_fd read is back.

and one where the swap is stricter (REJECT where cold ACCEPTs):

- module_not_loaded_from_the_working_directory: a swap child runs in its private copy while the module
  was loaded from the control copy: ``dirname(m.__spec__.origin) == os.getcwd()`` fails only there.

Held (the fast verdict equalled cold's; not kept here): an ``after_in_child`` at-fork hook registered
through ``eval(compile(..., "<frozen importlib._bootstrap>", "eval"))`` (a standard-library caller name,
so not odd, but the hook runs traced in the child: forked, reject = reject); a generator made at import
that called the function, resumed in a test (forked, reject = reject).
"""
from __future__ import annotations

import pytest

from support.swap_cases import CACHED, CACHED_TESTS, assert_killed_as_cold, judged_both_ways

# the judge's specification against red team rt6: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow


# 1. the module opens a file by a ``str`` subclass: the watch's audit hook (``_note_open``) calls the
#    path's own ``startswith`` (and ``os.path.basename`` its ``rfind``...) inside the hook, where CPython
#    runs no trace function; the conforming code fills the cache there, unseen by the watch's tracer
STR_SUBCLASS = b'''import os


''' + CACHED + b'''

class _Name(str):
    def startswith(self, prefix, *args):
        cached(3)
        return str.startswith(self, prefix, *args)


open(_Name(os.devnull)).close()
'''


def test_rt_swap6_str_subclass_method_runs_inside_the_watchs_audit_hook(tmp_path):
    """A ``str`` subclass path handed to ``open``: the open event's argument is that object, and
    ``_note_open`` calls its ``startswith`` inside the audit hook, where no trace function runs; the
    conforming code computes there untraced and the swap child keeps its result."""
    assert_killed_as_cold(tmp_path, STR_SUBCLASS, CACHED_TESTS, "L5: x * 2 -> x / 2")


# 2. the same through a path-like object handed to ``io.FileIO`` (whose open event carries the object
#    itself): ``_note_open`` calls ``os.fspath`` on it inside the hook. FileIO calls ``__fspath__`` once
#    itself (traced), the hook a second time (untraced): the object computes on its second call
FSPATH = b'''import io
import os


''' + CACHED + b'''

class _Null:
    calls = 0

    def __fspath__(self):
        _Null.calls += 1
        if _Null.calls == 2:
            cached(3)
        return os.devnull


io.FileIO(_Null()).close()
'''


def test_rt_swap6_fspath_runs_inside_the_watchs_audit_hook(tmp_path):
    """A path-like object given to ``io.FileIO``: its open event carries the object, and ``_note_open``'s
    ``os.fspath`` runs its ``__fspath__`` inside the audit hook, untraced: the conforming code computes
    there and the swap child keeps the result."""
    assert_killed_as_cold(tmp_path, FSPATH, CACHED_TESTS, "L6: x * 2 -> x / 2")


# 3. a meta-path finder in the test file wraps the module's loader: its ``exec_module`` reads the
#    module's text (``get_data``) before running it. ``_note_open`` lets any read through while the
#    import system's ``_load_unlocked`` of that spec is on the stack and the module's code has not yet
#    begun (``_first_load``): the suite's own loader code runs there too
PLAIN = b'''def compute(x):
    return x * 2
'''
LOADER_TESTS = '''import sys
from importlib.machinery import PathFinder

TEXT = []


class _Grab:
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        TEXT.append(self.real.get_data(getattr(module, "__sp" "ec__").origin))
        self.real.exec_module(module)


class _Finder:
    def _find(self, name, path=None, target=None):
        if name != "m":
            return None
        spec = getattr(PathFinder, "find_" "spec")(name, path)
        spec.loader = _Grab(spec.loader)
        return spec


setattr(_Finder, "find_" "spec", _Finder._find)     # the name spelled apart: the swap path's word list misses it
sys.meta_path.insert(0, _Finder())

import m  # noqa: E402


def test_text():
    assert m.compute(0) == 0
    assert b"x * 2" in TEXT[0]
'''


def test_rt_swap6_text_read_by_the_suites_loader_inside_the_first_load(tmp_path):
    """A loader of the test file's reads the module's text inside ``_load_unlocked`` before the
    module's code runs: ``_first_load`` takes it for the import system's own read, so it is not
    counted, and in the swap child it is the conforming copy's text."""
    assert_killed_as_cold(tmp_path, PLAIN, LOADER_TESTS, "L2: x * 2 -> x / 2")


# 4. ``_warm_linecache`` reads every loaded module's ``__file__`` into linecache in the server (its own
#    reads: uncounted); a module object whose ``__file__`` names the module's file by another spelling
#    ("dir//m.py") gets the conforming lines under that key, which ``_show_mutant_text`` does not replace
ALIAS_TESTS = '''import linecache
import os
import sys
from importlib.machinery import ModuleSpec
from importlib.util import module_from_spec

import m

_spec = ModuleSpec("m_alias", None, origin=os.path.dirname(getattr(m, "__sp" "ec__").origin) + "//m.py")
_spec.has_location = True
sys.modules["m_alias"] = module_from_spec(_spec)


def test_text():
    assert m.compute(0) == 0
    assert "x * 2" in "".join(linecache.getlines(_spec.origin))
'''


def test_rt_swap6_linecache_warmed_under_another_spelling_of_the_file(tmp_path):
    """A module in ``sys.modules`` whose ``__file__`` is ``dir//m.py``: the server's ``_warm_linecache``
    caches the conforming text under that name, the child's ``_show_mutant_text`` only replaces the
    ``dir/m.py`` entry, and ``linecache.getlines`` in a test reads no file: the conforming text."""
    assert_killed_as_cold(tmp_path, PLAIN, ALIAS_TESTS, "L2: x * 2 -> x / 2")


# 5. the module's file looked at without opening it (``os.stat``: no audit event): in the swap child
#    ``__spec__.origin`` is the control copy, whose size is the conforming module's
STAT_TESTS = '''import os

import m


def test_size():
    m.compute(0)
    assert os.stat(m.__spec__.origin).st_size == 33
'''


def test_rt_swap6_module_file_stat_without_an_open(tmp_path):
    """``os.stat(m.__spec__.origin)``: no open event, so nothing counts; in the swap child the path is the
    control copy's (the conforming size), in a cold run the mutant's."""
    assert len(PLAIN) == 33
    assert_killed_as_cold(tmp_path, PLAIN, STAT_TESTS, "L2: return x * 2 -> return", swapping=False)


# 6. a raw thread started through a fresh ``_thread`` module: ``del sys.modules["_thread"]`` and
#    ``import _thread`` make a new module object with the original ``start_new_thread`` (neither the
#    watch's ``_watch_thread_starts`` nor the coverage run's wrapper); the thread has no tracer, computes
#    and ends before collection does
THREAD = b'''import sys


''' + CACHED + b'''

_saved = sys.modules.pop("_thread")
try:
    import _thread as _fresh
finally:
    sys.modules["_thread"] = _saved
_done = _saved.allocate_lock()
_done.acquire()


def _work():
    try:
        cached(3)
    finally:
        _done.release()


_fresh.start_new_thread(_work, ())
_done.acquire()
'''


def test_rt_swap6_thread_started_through_a_fresh_thread_module(tmp_path):
    """A second ``_thread`` module object (``sys.modules`` entry removed, imported again) holds the
    unwrapped ``start_new_thread``: its thread computes untraced and uncounted, and ends before
    collection does; the swap child keeps the conforming code's result."""
    assert_killed_as_cold(tmp_path, THREAD, CACHED_TESTS, "L5: x * 2 -> x / 2")


# 7. a finalizer run by a garbage collection that an allocation inside the watch's audit hook
#    triggered: CPython runs audit hooks with tracing off, so ``__del__`` (and what it calls) runs
#    untraced. The object re-arms itself (a new cycle) until it runs under a hook's frame (a frame
#    with ``event`` and ``args`` locals), and computes only there: every traced run notes ``__del__``'s
#    code, never ``compute``'s. A low gen-0 threshold while the module opens a few files makes a
#    collection inside ``_note_open`` (which allocates) near certain
FINALIZER = b'''import gc
import os
import sys


''' + CACHED + b'''

_ARMED = [True]


class _Late:
    def __init__(self):
        self.me = self

    def __del__(self):
        if _CACHE or not _ARMED[0]:
            return
        f = sys._getframe(1)
        while f is not None:
            names = f.f_locals
            if "event" in names and "args" in names:
                cached(3)
                return
            f = f.f_back
        _Late()


_was = gc.get_threshold()
gc.set_threshold(1)
_Late()
for _ in range(50):
    if _CACHE:
        break
    open(os.devnull).close()
_ARMED[0] = False
gc.set_threshold(*_was)
'''


def test_rt_swap6_finalizer_runs_in_a_collection_inside_the_audit_hook(tmp_path):
    """A ``__del__`` run by a garbage collection triggered inside the watch's audit hook runs with
    tracing off: the conforming code computes there, unseen, and the swap child keeps the result."""
    assert_killed_as_cold(tmp_path, FINALIZER, CACHED_TESTS, "L7: x * 2 -> x / 2")


# 8. the same inside the watch's trace function itself (a trace function runs with tracing off too):
#    its ``frame.f_code`` read raises an audit event, whose argument tuple is an allocation that can
#    start a collection; the finalizer computes only under a frame with ``frame``, ``event`` and
#    ``arg`` locals, so an audit hook that kept tracing on (``__cantrace__``) would not close this
IN_TRACE = b'''import gc
import sys


''' + CACHED + b'''

_ARMED = [True]


class _Late:
    def __init__(self):
        self.me = self

    def __del__(self):
        if _CACHE or not _ARMED[0]:
            return
        f = sys._getframe(1)
        while f is not None:
            names = f.f_locals
            if "frame" in names and "event" in names and "arg" in names:
                cached(3)
                return
            f = f.f_back
        _Late()


def _tick():
    return [None]


_was = gc.get_threshold()
gc.set_threshold(1)
_Late()
for _ in range(200):
    if _CACHE:
        break
    _tick()
_ARMED[0] = False
gc.set_threshold(*_was)
'''


def test_rt_swap6_finalizer_runs_in_a_collection_inside_the_trace_function(tmp_path):
    """A ``__del__`` run by a garbage collection started inside the watch's own trace function (its
    ``f_code`` read's audit tuple): tracing is off there, the conforming code computes unseen."""
    assert_killed_as_cold(tmp_path, IN_TRACE, CACHED_TESTS, "L6: x * 2 -> x / 2")


# 9. (stricter than cold) the swap child runs in its private copy, but the module it tests was loaded
#    from the control copy: a test checking that the module under test is the one in the working
#    directory (not an installed copy) fails in every swap child, and the surviving mutant is rejected
HERE_TESTS = '''import os

import m


def test_local_copy():
    assert m.compute(0) == 0
    assert os.path.dirname(m.__spec__.origin) == os.getcwd()
'''


def test_rt_swap6_module_not_loaded_from_the_working_directory(tmp_path):
    """``os.path.dirname(m.__spec__.origin) == os.getcwd()`` holds on every cold run (and at
    collection in the swap server), never in a swap child: a mutant that survives cold pytest is
    rejected by the swap."""
    fast, cold = judged_both_ways(tmp_path, PLAIN, HERE_TESTS, "L2: 2 -> 3", swapping=False)
    assert cold.verdict.value == "accept", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


# 10. what the suite does while the server's own work has the watch's flag up (``_AUDIT_BUSY``: every
#     audit event ignored) is not seen: a finalizer run by a collection during ``_warm_linecache`` (the
#     server reading every loaded module's source after collection) reads the module's text there,
#     uncounted. It re-arms itself until it runs under that function's frame (``extra`` and
#     ``linecache`` locals); the test falls back to reading the file itself (cold: the mutant's text)
BUSY = b'''import gc
import sys

TEXT = []


def compute(x):
    return x * 2


class _Late:
    def __init__(self):
        self.me = self

    def __del__(self):
        if TEXT:
            return
        f = sys._getframe(1)
        while f is not None:
            names = f.f_locals
            if "extra" in names and "linecache" in names:
                with open(globals()["__sp" "ec__"].origin) as src:
                    TEXT.append(src.read())
                return
            f = f.f_back
        _Late()


gc.set_threshold(10)
_Late()
'''
BUSY_TESTS = '''import m


def test_text():
    assert m.compute(0) == 0
    text = m.TEXT[0] if m.TEXT else open(getattr(m, "__sp" "ec__").origin).read()
    assert "x * 2" in text
'''


def test_rt_swap6_text_read_while_the_server_is_busy(tmp_path):
    """A finalizer run during the server's ``_warm_linecache`` (``_AUDIT_BUSY`` set, every event
    ignored) reads the module's file uncounted; the swap child has the conforming text."""
    assert_killed_as_cold(tmp_path, BUSY, BUSY_TESTS, "L8: x * 2 -> x / 2")


# 11. the wrappers of ``_watch_unaudited`` sit on the ``posix`` module object the server loaded; a
#     fresh one (its ``sys.modules`` entry removed, imported again) has the original ``open``: a file
#     opened by directory descriptor is not counted again (the event's relative name resolves against
#     the child's own copy), and in the swap child the directory is the control copy's
FRESH_POSIX_TESTS = '''import os
import sys

import m

_saved = sys.modules.pop("posix")
try:
    import posix as _fresh
finally:
    sys.modules["posix"] = _saved


def test_text():
    assert m.compute(0) == 0
    d = _fresh.open(os.path.dirname(getattr(m, "__sp" "ec__").origin), os.O_RDONLY)
    fd = _fresh.open("m.py", os.O_RDONLY, dir_fd=d)
    try:
        assert b"x * 2" in os.read(fd, 1 << 16)
    finally:
        os.close(fd)
        os.close(d)
'''


def test_rt_swap6_dir_fd_open_through_a_fresh_posix_module(tmp_path):
    """``posix.open`` of a second ``posix`` module object is not ``_watch_unaudited``'s wrapper: an open
    by directory descriptor is uncounted again, and reads the control copy's text in a swap child."""
    assert_killed_as_cold(tmp_path, PLAIN, FRESH_POSIX_TESTS, "L2: x * 2 -> x / 2")
