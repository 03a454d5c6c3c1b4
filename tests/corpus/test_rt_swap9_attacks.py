"""Red team rt9 (rt-swap9) against 113ee45 (rt8's fixes: a relative open that resolves nowhere counts as a
read; ``_CTYPES`` imported once per swap server; ``_code_of``; the module watch's ``_OWN``).

Each test judges a fine mutant with PytestSession (the fast path) and cold (gates.judge on the materialized
mutant, plain pytest) and asserts equal verdicts. Each failed on 113ee45 with cold's verdict checked (REJECT)
and the fast path's ACCEPT (swap): A, B the rt8 directory-descriptor rule's gaps; C, D ``_OWN``'s one saved
state (a nested or concurrent ``with _OWN`` leaves the watch busy and gc off for good). The words of
SWAP_BLOCKERS are spelled apart: the dynamic rules are what these test.
"""
from __future__ import annotations

import pytest

from support.swap_cases import assert_killed_as_cold

# the judge's specification against red team rt9: in make test-all (each case starts a swap server)
pytestmark = pytest.mark.slow

PLAIN = b'''def compute(x):
    return x * 2
'''

# A. an open relative to a directory descriptor by a name that ALSO resolves from the working directory, to
#    another file: ``_note_open`` stats the event's name against the cwd, finds the decoy (not the module's
#    inode: not a read), and the rt8 rule (a relative name resolving nowhere) never applies. The descriptor's
#    directory is a fresh temporary one (no ancestor of the module) holding a symlink to the module's file.
DIRFD_DECOY_TESTS = '''import os
import tempfile

import m


def _text_of(path):
    with open(os.path.join(os.getcwd(), "zz_decoy"), "w") as f:
        f.write("decoy")
    d = tempfile.mkdtemp()
    os.symlink(path, os.path.join(d, "zz_decoy"))
    dfd = os.open(d, os.O_RDONLY)
    fd = os.open("zz_decoy", os.O_RDONLY, dir_fd=dfd)
    os.close(dfd)
    with os.fdopen(fd) as f:
        return f.read()


def test_text():
    m.compute(1)
    assert "x * 2" in _text_of(vars(m)["__fi" "le__"])
'''


def test_rt_swap9_dir_fd_open_by_a_name_that_resolves_from_the_cwd_to_a_decoy(tmp_path):
    """``os.open("zz_decoy", dir_fd=d)``, ``d`` a new temporary directory whose ``zz_decoy`` links to the
    module's file, after the test wrote a file ``zz_decoy`` in the cwd: the event's name stats (from the
    cwd) to the decoy, so nothing counts. The swap child reads the control copy's ``x * 2``: fast ACCEPT
    (swap); cold reads the mutant's ``x * 3``: REJECT."""
    assert_killed_as_cold(tmp_path, PLAIN, DIRFD_DECOY_TESTS, "L2: 2 -> 3")


# B. the same with a name that resolves nowhere from the cwd, opened with ``O_CREAT``: the rt8 rule exempts
#    an open that may create a file, but ``O_CREAT`` without ``O_EXCL`` opens an existing file (the link's
#    target) read-only all the same.
DIRFD_CREAT_TESTS = '''import os
import tempfile

import m


def _text_of(path):
    d = tempfile.mkdtemp()
    os.symlink(os.path.dirname(path), os.path.join(d, "x"))
    dfd = os.open(d, os.O_RDONLY)
    fd = os.open(os.path.join("x", os.path.basename(path)), os.O_RDONLY | os.O_CREAT, dir_fd=dfd)
    os.close(dfd)
    with os.fdopen(fd) as f:
        return f.read()


def test_text():
    m.compute(1)
    assert "x * 2" in _text_of(vars(m)["__fi" "le__"])
'''


def test_rt_swap9_dir_fd_open_with_o_creat_of_an_existing_file(tmp_path):
    """rt8's directory-descriptor read (``x/m.py`` relative to a new directory ``d``, ``x`` a link to the
    module's directory) with ``O_RDONLY | O_CREAT``: the file exists, so nothing is created and the
    conforming control copy is read; ``_note_open`` exempts any relative open with ``O_CREAT``. Fast ACCEPT
    (swap), cold REJECT."""
    assert_killed_as_cold(tmp_path, PLAIN, DIRFD_CREAT_TESTS, "L2: 2 -> 3")


# C. ``_OWN`` is one object shared by every thread and keeps the state it restores in its attributes: two
#    threads whose opens overlap inside ``_note_open`` (``os.stat`` lets the GIL go) leave ``_AUDIT_BUSY``
#    True and garbage collection off for the rest of the process (the second ``__enter__`` saved "busy, gc
#    off"). The module watch then ignores every event but ``open``: the tests' ctypes (an after-event that
#    makes the child decline, rt7) passes unseen, and libc reads the control copy's text.
OWN_RACE_TESTS = '''import os
import threading

import m


def _hammer():
    for _ in range(400):
        with open(os.devnull) as f:
            f.read(0)


def _read(path):
    import ctypes
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
    threads = [threading.Thread(target=_hammer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert "x * 2" in _read(vars(m)["__fi" "le__"])
'''


def test_rt_swap9_threads_opening_files_leave_the_watch_busy(tmp_path):
    """Four threads open ``/dev/null`` 400 times each; their ``_note_open`` calls overlap, and ``_OWN``'s
    single saved state leaves the watch busy (and gc disabled) for good. Then libc (ctypes) reads the
    module's file: no after-event is noted, the swap child reads the control copy's ``x * 2``: fast ACCEPT
    (swap); cold reads ``x * 3``: REJECT."""
    assert_killed_as_cold(tmp_path, PLAIN, OWN_RACE_TESTS, "L2: 2 -> 3")


# D. the same ``_OWN`` nesting in the swap server's one thread, before the swap: a signal handler (an
#    interval timer set at import) that opens a file runs between two bytecodes of ``_note_open``'s ``with
#    _OWN`` block, so the inner ``__enter__`` saves "busy". Both audit hooks then return at once for the
#    process's life: the code watch holds no code read (helper-137's copy through ``__code__.replace``
#    passes), the module watch notes no odd event.
SIGNAL_NEST_MODULE = b'''import os
import signal
import types


def compute(x):
    return x * 2


def _tick(signum, frame):
    with open(os.devnull) as f:
        f.read(0)


signal.signal(signal.SIGALRM, _tick)
signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
for _ in range(3000):
    with open(os.devnull) as f:
        f.read(0)
signal.setitimer(signal.ITIMER_REAL, 0, 0)
signal.signal(signal.SIGALRM, signal.SIG_DFL)
alias = types.FunctionType(getattr(compute, "__co" "de__").replace(co_name="alias"), globals())
'''

SIGNAL_NEST_TESTS = '''import m


def test_alias():
    assert m.compute(0) == 0
    assert m.alias(2) == 4
'''


def test_rt_swap9_signal_handler_opening_a_file_inside_the_watch(tmp_path):
    """At import an interval timer's handler opens ``/dev/null`` while the module opens it 3000 times; a
    handler run inside ``_note_open`` nests ``with _OWN`` and leaves ``_AUDIT_BUSY`` True. Then
    ``alias`` is made from ``compute``'s code copied (``__code__.replace``): the read is not held, so
    ``compute``'s code has its 3 references and never ran, and the swap is taken; ``alias(2)`` runs the
    conforming copy: fast ACCEPT (swap); cold (``alias`` is the mutant's, 6): REJECT. Without the timer
    the copy is seen and the fork way rejects."""
    assert_killed_as_cold(tmp_path, SIGNAL_NEST_MODULE, SIGNAL_NEST_TESTS, "L7: 2 -> 3")
