"""Red team rt5 (rt-swap5) against 2d964ea (the swap server watching its own process: ``_watch_module``,
``_own_settrace``, ``_module_untouched``, ``_show_mutant_text``, ``_MEMORY_EVENTS``, ``_RUNS``, the checks in
``_swap_child`` / ``_swap_run`` / ``_nothing_else_made_from``).

Each test judges one fine mutant with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts (support/swap_cases.py). All eleven failed on
2d964ea: cold pytest rejects, the swap executor accepts. All pass since 8d53fa8: the watch lists what it
accounts for (``SWAP_SAFE_EVENTS``: an audit hook added, a profile function set or ctypes are outside it),
knows the module's file by its inode from the server's start, counts every thread start and notes at-fork
hooks from outside the standard library and ``os.open`` with ``dir_fd``, and lasts through the swap lookup.

- audit_hook_runs_in_the_child_before_the_swap: an audit hook of the module's fires on the swap child's own
  ``os.chdir`` after ``_own_settrace(None)`` and before the swap; the conforming code fills a cache unwatched.
- call_at_import_inside_a_profile_callback: no trace function runs while a ``sys.setprofile`` callback
  does, so a call made there is seen by neither the coverage run nor the watch; ``setprofile`` is not
  counted as tampering.
- code_copied_from_the_exec_audit_event: an audit hook in the test file gets the module's code object from
  the import's ``exec`` event; the function's code taken from its ``co_consts`` (no audited read) and copied.
- text_read_at_collection_before_the_import: the test file reads the module's text before ``import m``;
  opens are counted only once the module's code began (``armed``).
- text_read_through_a_dir_fd: ``os.open("m.py", dir_fd=...)``: the event's relative path is resolved
  against the child's working directory, not the directory descriptor.
- text_read_through_a_hard_link: another name and real path for the same inode.
- at_fork_hook_computes_in_a_thread: ``os.register_at_fork(before=...)`` in the swap server starts a thread
  that computes untraced (the tracer is per thread) and uncounted (threads are counted until collection ends).
- code_read_through_proc_self_mem: ``func_code`` read from ``/proc/self/mem`` and made an object by
  ``_ctypes.PyObj_FromPtr`` (its ``ctypes.PyObj_FromPtr`` event is not in ``_MEMORY_EVENTS``).
- namespace_key_eq_runs_in_the_swap_lookup: a namespace key hashing as "compute" whose ``__eq__`` runs the
  function: the swap's own ``vars(mod).get(name)`` runs it in the child, untraced, before the swap.
- module_imported_inside_a_profile_callback: the module's code starts untraced, so the watch never binds
  its namespace (``_RUNS["space"]``; ``pending`` stays set) and sees none of its calls: rt4's
  ``after_in_child`` hook is unseen again. (Without the test file's ``linecache`` read before the import,
  the swap is declined instead: with ``pending`` stuck the watch's tracer sets ``_AUDIT_BUSY[0] = False`` on
  every call, clearing the flag ``_warm_linecache`` set, so the server's own read of the module counts.)
- text_read_through_a_symlink_of_another_name: the base-name filter runs before ``realpath``.

Held (the fast verdict equalled cold's; not kept here): a test opening the module through
``/proc/self/fd/N`` of an ``O_PATH`` descriptor (the ``O_PATH`` open is counted: forked, reject = reject);
a test asserting ``sys.gettrace() is None`` (stricter-than-cold attempt: the suite fails under the coverage
run, so every mutant goes cold).
"""
from __future__ import annotations

import pytest

from support.swap_cases import CACHED, assert_killed_as_cold

# the judge's specification against red team rt5: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow

# 1. an audit hook set at import computes on ``os.chdir``: the swap child's own ``os.chdir(req["cwd"])``
#    runs it after ``_swap_child`` turned the watch's tracer off and before the swap, so the conforming
#    code fills the cache untraced; cold never chdirs, the test fills it with the mutant
AUDIT_CHDIR = b'''import sys


''' + CACHED + b'''

def _on_event(event, args):
    if event == "os.chdir":
        cached(3)


sys.addaudithook(_on_event)
'''
CACHED_TESTS = '''import m


def test_cached():
    assert m.cached(3) == 6
'''


def test_rt_swap5_audit_hook_runs_in_the_child_before_the_swap(tmp_path):
    """An audit hook of the module's, fired by the swap child's own ``os.chdir`` between
    ``_own_settrace(None)`` and the swap: the conforming code runs there, unwatched."""
    assert_killed_as_cold(tmp_path, AUDIT_CHDIR, CACHED_TESTS, "L5: x * 2 -> x / 2")


# 2. the function called at import from inside a profile function: CPython runs no trace function
#    while a profile (or trace) callback runs, so neither the coverage run nor the watch's tracer sees
#    the call; ``sys.setprofile`` is not ``sys.settrace``, so nothing counts as tampering
PROFILE = b'''import sys


def compute(x):
    return x * 2


RESULT = []


def _once(frame, event, arg):
    sys.setprofile(None)
    RESULT.append(compute(3))


sys.setprofile(_once)
'''
RESULT_TESTS = '''import m


def test_result():
    assert m.compute(0) == 0
    assert m.RESULT == [6]
'''


def test_rt_swap5_call_at_import_inside_a_profile_callback(tmp_path):
    """A call made inside a ``sys.setprofile`` callback is traced by no one (tracing is off during
    the callback): the swap child keeps the result the conforming code made at import."""
    assert_killed_as_cold(tmp_path, PROFILE, RESULT_TESTS, "L5: x * 2 -> x / 2")


# 3. the module's code object handed to an audit hook by the import's ``exec`` event: its constants
#    hold the function's code, reached without any audited attribute read, and copied
PLAIN = b'''def compute(x):
    return x * 2
'''
EXEC_EVENT_TESTS = '''import os
import sys
import types

COPIES = []


def _grab(event, args):
    if event == "exec" and not COPIES and os.path.basename(getattr(args[0], "co_" "filename", "")) == "m.py":
        for c in args[0].co_consts:
            if getattr(c, "co_name", "") == "compute":
                COPIES.append(c.replace(co_name="compute_copy"))


sys.addaudithook(_grab)

import m  # noqa: E402


def test_copy():
    assert m.compute(0) == 0
    assert types.FunctionType(COPIES[0], vars(m))(3) == 6
'''


def test_rt_swap5_code_copied_from_the_exec_audit_event(tmp_path):
    """The ``exec`` audit event's argument is the module's code object: a copy of the function's code
    taken from its constants (no ``__code__`` read) is the conforming code in the swap child."""
    assert_killed_as_cold(tmp_path, PLAIN, EXEC_EVENT_TESTS, "L2: x * 2 -> x / 2")


# 4. the test file reads the module's text at collection, before importing it: the module watch counts
#    opens only once the module's code began to run (``armed``)
READ_FIRST_TESTS = '''import importlib.util

TEXT = open(getattr(importlib.util, "find_" "spec")("m").origin).read()

import m  # noqa: E402


def test_text():
    assert m.compute(0) == 0
    assert "x * 2" in TEXT
'''


def test_rt_swap5_text_read_at_collection_before_the_import(tmp_path):
    """``open(find_spec("m").origin)`` in the test file before ``import m``: the read is not yet
    watched, and in the swap server it is the conforming copy's text."""
    assert_killed_as_cold(tmp_path, PLAIN, READ_FIRST_TESTS, "L2: x * 2 -> x / 2")


# 5. a test reads the module's file by a path the watch does not resolve to it: relative to a
#    directory descriptor (the audit event's path is "m.py", resolved against the working directory)
DIR_FD_TESTS = '''import os

import m


def test_text():
    assert m.compute(0) == 0
    d = os.open(os.path.dirname(getattr(m, "__sp" "ec__").origin), os.O_RDONLY)
    fd = os.open("m.py", os.O_RDONLY, dir_fd=d)
    try:
        assert b"x * 2" in os.read(fd, 1 << 16)
    finally:
        os.close(fd)
        os.close(d)
'''


def test_rt_swap5_text_read_through_a_dir_fd(tmp_path):
    """``os.open("m.py", dir_fd=...)`` of the module's directory: the open event's path resolves
    against the child's working directory (the mutant's copy), not the control copy read."""
    assert_killed_as_cold(tmp_path, PLAIN, DIR_FD_TESTS, "L2: x * 2 -> x / 2")


# 6. ... or through a hard link made in the test (another name, another real path, the same file)
HARD_LINK_TESTS = '''import os

import m


def test_text(tmp_path):
    assert m.compute(0) == 0
    link = tmp_path / "copy.txt"
    os.link(getattr(m, "__sp" "ec__").origin, link)
    assert "x * 2" in link.read_text()
'''


def test_rt_swap5_text_read_through_a_hard_link(tmp_path):
    """A hard link to the module's file has another base name and real path: its read is not
    counted, and in the swap child it is the conforming copy's text."""
    assert_killed_as_cold(tmp_path, PLAIN, HARD_LINK_TESTS, "L2: x * 2 -> x / 2")


# 7. an at-fork hook (``before``: run in the swap server at each fork) computes in a new thread: the
#    watch's tracer is per thread, and threads are counted only until collection ends
AT_FORK_THREAD = b'''import os
import threading


''' + CACHED + b'''

def _warm():
    t = threading.Thread(target=cached, args=(3,))
    t.start()
    t.join()


os.register_at_fork(before=_warm)
'''


def test_rt_swap5_at_fork_hook_computes_in_a_thread(tmp_path):
    """``os.register_at_fork(before=...)`` runs in the swap server as it forks the child; the thread it
    starts computes with the conforming code, untraced and uncounted (collection is over)."""
    assert_killed_as_cold(tmp_path, AT_FORK_THREAD, CACHED_TESTS, "L6: x * 2 -> x / 2")


# 8. the function's code read through ``/proc/self/mem`` (an ordinary open) and made an object by
#    ``_ctypes.PyObj_FromPtr`` (its audit event, ``ctypes.PyObj_FromPtr``, is not in _MEMORY_EVENTS)
PROC_MEM_TESTS = '''import _ctypes
import struct
import types

import m

with open("/proc/self/mem", "rb", buffering=0) as _mem:
    _mem.seek(id(m.compute) + 48)         # PyFunctionObject.func_code (3.11, 64-bit)
    _code = _ctypes.PyObj_FromPtr(struct.unpack("P", _mem.read(8))[0])
COPY = types.FunctionType(_code.replace(co_name="compute_copy"), vars(m))
del _code


def test_copy():
    assert m.compute(0) == 0
    assert COPY(3) == 6
'''


def test_rt_swap5_code_read_through_proc_self_mem(tmp_path):
    """``/proc/self/mem`` read at the function's ``func_code`` slot and ``_ctypes.PyObj_FromPtr``: a
    copy of the conforming code, with no watched event."""
    assert_killed_as_cold(tmp_path, PLAIN, PROC_MEM_TESTS, "L2: x * 2 -> x / 2")


# 9. a key in the module's namespace with the hash of "compute" and an ``__eq__`` of its own: the swap
#    child's own lookup (``_swap_target``: ``vars(owner).get(name)``) compares it, so the module's code
#    runs in the child, after the watch's tracer was turned off and before the swap
HASH_KEY = b'''class _Key:
    def __hash__(self):
        return hash("compute")

    def __eq__(self, other):
        if not _CACHE and _FN:
            _CACHE[3] = _FN[0](3)
        return False


_CACHE = {}
_FN = []
globals()[_Key()] = None


def compute(x):
    return x * 2


_FN.append(compute)


def cached(x):
    if x not in _CACHE:
        _CACHE[x] = compute(x)
    return _CACHE[x]
'''


def test_rt_swap5_namespace_key_eq_runs_in_the_swap_lookup(tmp_path):
    """A dict key colliding with the function's name: the swap's own ``vars(mod).get("compute")`` calls
    its ``__eq__``, which runs the conforming code in the child, unwatched, before the swap; cold
    pytest runs it at the test's first look-up of ``compute``, on the mutant."""
    assert_killed_as_cold(tmp_path, HASH_KEY, CACHED_TESTS, "L17: x * 2 -> x / 2")


# 10. the module imported from inside a profile callback: no trace event for its code, so the watch
#     never binds the module's namespace (``_RUNS["space"]``) and sees none of its calls afterwards;
#     rt4's at-fork hook (``after_in_child``, closed by the watch) is then unseen again
AT_FORK = b'''import os


''' + CACHED + b'''

os.register_at_fork(after_in_child=lambda: cached(3))
'''
IMPORT_IN_PROFILE_TESTS = '''import importlib
import importlib.util
import linecache
import sys

linecache.getlines(getattr(importlib.util, "find_" "spec")("m").origin)     # before the module's code runs: not counted


def _load(frame, event, arg):
    sys.setprofile(None)
    importlib.import_module("m")


sys.setprofile(_load)
sys.setprofile(None) if "m" in sys.modules else None

import m  # noqa: E402


def test_cached():
    assert m.cached(3) == 6
'''


def test_rt_swap5_module_imported_inside_a_profile_callback(tmp_path):
    """Imported inside a ``sys.setprofile`` callback, the module's code starts untraced: the watch's
    tracer never learns its namespace, and an ``after_in_child`` hook computes in the swap child unseen."""
    assert_killed_as_cold(tmp_path, AT_FORK, IMPORT_IN_PROFILE_TESTS, "L5: x * 2 -> x / 2")



# 11. ... or through a symbolic link of another name: the watch resolves a path (``realpath``) only when
#     its base name is the module's, so a link named otherwise is never resolved
SYMLINK_TESTS = '''import os

import m


def test_text(tmp_path):
    assert m.compute(0) == 0
    link = tmp_path / "copy.txt"
    os.symlink(getattr(m, "__sp" "ec__").origin, link)
    assert "x * 2" in link.read_text()
'''


def test_rt_swap5_text_read_through_a_symlink_of_another_name(tmp_path):
    """A symlink named ``copy.txt`` to the module's file: the base-name filter before ``realpath``
    lets its read through uncounted; in the swap child it is the conforming copy's text."""
    assert_killed_as_cold(tmp_path, PLAIN, SYMLINK_TESTS, "L2: x * 2 -> x / 2")
