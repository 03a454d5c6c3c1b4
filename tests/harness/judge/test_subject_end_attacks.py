"""Red team a29b: attacks on the subject's end (``_end_subject``, shared by the early subject
discarded and the subject stopped at exit) and on the early subject replaced when it ended before
first use (``_subject``).

Attacks tried (all failed; kept as cheap regressions):
- a tree whose subject ignores the closed connection at exit (a non-daemon thread that never ends,
  so the interpreter never finishes ``sys.exit``) and whose test fails: the driver waits 5 s, kills
  and reaps the subject (SIGKILL cannot be ignored; ``Popen.wait`` waits for the subject only, not
  for any descendant holding its descriptors), and the verdict stays a failure;
- the same with a forked grandchild holding the subject's connection and audit pipe (the fork is not
  reported as tamper): the driver's wait is for its own child only, the run ends with the failure;
- making the subject die to be replaced: replacement happens only before first use, i.e. before
  any code of the tree ran in it, so the tree cannot trigger it (after first use ``_DRIVER["peer"]``
  is set and ``_subject`` returns it unchanged).

Formerly ``tests/harness/test_redteam_a29b.py``, named after its origin.
"""
from __future__ import annotations

from pathlib import Path

from tests.harness.judge.test_process_boundary_attacks import tiny

HANG = ("import threading, time\n\n"
        "threading.Thread(target=time.sleep, args=(10 ** 6,), daemon=False).start()\n\n\n"
        "def answer():\n    return 41\n")
HANG_FORK = ("import os, threading, time\n\n"
             "if os.fork() == 0:\n    time.sleep(10 ** 6)\n    os._exit(0)\n"
             "threading.Thread(target=time.sleep, args=(10 ** 6,), daemon=False).start()\n\n\n"
             "def answer():\n    return 41\n")
FAILING_TEST = "from pkg import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"


def test_a_subject_that_never_ends_at_exit_is_killed_and_the_failure_stands(tmp_path: Path, executor):
    v = tiny(tmp_path, HANG, FAILING_TEST)
    assert not v.passed, v.output


def test_a_grandchild_holding_the_subjects_descriptors_neither_hangs_nor_passes(tmp_path: Path, executor):
    v = tiny(tmp_path, HANG_FORK, FAILING_TEST)
    assert not v.passed, v.output


def test_a_subject_already_used_is_never_replaced(monkeypatch, tmp_path):
    """After first use the peer is returned as is, even if its process ended (the tree's doing)."""
    from harness.judge import probe_runtime as rt

    class Ended:
        def poll(self):
            return 1

    peer = object()
    monkeypatch.setattr(rt, "_DRIVER", {**rt._DRIVER, "peer": peer, "spawned": peer, "proc": Ended()})
    monkeypatch.setattr(rt, "_spawn_subject", lambda: (_ for _ in ()).throw(AssertionError("respawned")))
    monkeypatch.setattr(rt, "_discard_spawned", lambda: (_ for _ in ()).throw(AssertionError("discarded")))
    assert rt._subject() is peer


REDIRECT_AND_HANG = '''import os, stat, threading, time
null = os.open("/dev/null", os.O_WRONLY)
for name in os.listdir("/proc/self/fd"):
    fd = int(name)
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    if stat.S_ISFIFO(st.st_mode) and fd > 2:
        os.dup2(null, fd)
threading.Thread(target=time.sleep, args=(10 ** 6,), daemon=False).start()


def answer():
    return 42
'''
PASSING_TEST = "from pkg import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"


def test_an_audit_redirect_hidden_behind_a_subject_killed_at_exit_is_still_tampering(tmp_path: Path, executor):
    """The subject killed at exit ends with -9, not ``AUDIT_REDIRECTED``, so the "redirected" line
    itself is not emitted; the cut audit stream (and the scan of /proc/self/fd) still is."""
    v = tiny(tmp_path, REDIRECT_AND_HANG, PASSING_TEST)
    assert v.subverted and not v.passed, v.output
