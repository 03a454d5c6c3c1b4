"""Red team of the subject's audit hook as rebuilt from factories (l22,
``harness.judge.subject_main._install_audit``): code in the subject's process (the agent's tree)
attacks the hook it shares the interpreter with. Each case drives the installed hook in a fresh
``python -I`` as ``tests/harness/judge/test_subject_main.py`` does, and asserts what the driver would
see: an evidence line, or the subject ended with ``AUDIT_REDIRECTED`` (reported as tampering).
The cases marked xfail are breaks found and not fixed here (the report names them); strict, so
a fix that closes one makes it fail until the mark is removed.

Formerly ``tests/harness/test_redteam_l22_audit.py``, named after its origin."""
from __future__ import annotations

import pytest

from harness.judge import subject_main
from tests.harness.judge.test_subject_main import _run


def test_an_evidence_line_the_pipe_refuses_ends_the_subject(tmp_path):
    """The tree sets O_NONBLOCK on the audit descriptor (fcntl raises no evidence) and fills the
    pipe with well-formed lines the driver ignores: the hook's write of an evidence line fails
    with EAGAIN. Before, the hook swallowed the OSError (and had marked the event seen, so it was
    never written): gc traversal went unreported while the heartbeat still answered."""
    rc, lines = _run(tmp_path, """
        import fcntl, gc
        fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
        try:
            while True:
                os.write(w, b"{}\\n")
        except BlockingIOError:
            pass
        gc.get_objects()
        sys.stderr.write("not reached")
    """)
    assert rc == subject_main.AUDIT_REDIRECTED
    assert lines == []


def test_a_thread_blocked_inside_the_hook_does_not_silence_the_others(tmp_path):
    """One thread enters the hook and blocks in its write (the tree filled the pipe; a blocking
    write waits for the driver to read, with the GIL released). Before, the hook's guard against
    its own events was one flag for the whole process, so every event of every other thread in
    that window was dropped as the hook's own; the guard is per thread."""
    rc, lines = _run(tmp_path, """
        import fcntl, gc, threading, time
        fl = fcntl.fcntl(w, fcntl.F_GETFL)
        fcntl.fcntl(w, fcntl.F_SETFL, fl | os.O_NONBLOCK)
        try:
            while True:
                os.write(w, b"{}\\n")
        except BlockingIOError:
            pass
        fcntl.fcntl(w, fcntl.F_SETFL, fl)              # blocking again: the next write waits
        got = []
        def drain():                                   # the driver, reading until the held heartbeat
            time.sleep(1.0)
            buf = b""
            while b'{"sync":1}' not in buf:
                buf += os.read(r, 1 << 16)
            got.extend(x for x in buf.decode().splitlines() if x != "{}")
        held = threading.Thread(target=sys.audit, args=("hx.sync", 1))
        held.start()
        time.sleep(0.3)                                # held now waits inside the hook's write
        reader = threading.Thread(target=drain)
        reader.start()
        gc.get_objects()
        held.join(); reader.join()
        sys.audit("hx.sync", 2)
        print("\\n".join(got))
    """)
    assert rc == 0
    assert {"ev": "gc.get_objects"} in lines


@pytest.mark.xfail(strict=True, reason="open: a Python signal handler runs between the hook's bytecodes and is "
                                       "handed the hook's frame (no audit event); its locals hold the hook's state")
def test_a_signal_handler_that_lands_inside_the_hook_cannot_silence_it(tmp_path):
    """The tree arms an interval timer and raises harmless events in a loop; its SIGALRM handler
    receives the interrupted frame as an argument. When that frame is the hook's (or one of its
    callees', reached by ``f_back``, which raises no event on 3.11), ``f_locals["_state"]["seen"]``
    is the hook's dedup set: the tree adds the events it is about to raise and the hook never
    writes them, while heartbeats still answer. Same on main (the state was a default there too)."""
    rc, lines = _run(tmp_path, """
        import signal, gc
        got = []
        def handler(sig, frame):
            f = frame
            while f is not None and not got:
                if f.f_code.co_name == "hook" and "_state" in f.f_locals:
                    got.append(f.f_locals["_state"])
                f = f.f_back
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, 0.0005, 0.0005)
        n = 0
        while not got and n < 2_000_000:
            sys.audit("harmless.event"); n += 1
        signal.setitimer(signal.ITIMER_REAL, 0)
        if got:
            got[0]["seen"].update({"gc.get_objects"})
        gc.get_objects()
        sys.audit("hx.sync", 3)
    """)
    assert rc == 0
    assert {"ev": "gc.get_objects"} in lines and {"sync": 3} in lines


@pytest.mark.xfail(strict=True, reason="open: the caller test reads the innermost Python frame; a C callable "
                                       "started by threading.Thread has threading.py (the stdlib) as that frame")
def test_a_call_laundered_through_a_stdlib_thread_is_reported(tmp_path):
    """``threading.Thread(target=setattr, args=(f, "__defaults__", ...))`` and a ctypes foreign
    function as a thread's target: the audit events' innermost Python frame is ``Thread.run`` in
    the stdlib, so neither is evidence (ctypes.CDLL's dlopen/dlsym are raised from ctypes' own
    stdlib code too). ctypes reaches any memory of the process. Same on main."""
    rc, lines = _run(tmp_path, """
        import threading, ctypes
        def f(a=1): pass
        t = threading.Thread(target=setattr, args=(f, "__defaults__", (2,))); t.start(); t.join()
        t = threading.Thread(target=ctypes.CDLL(None).getpid); t.start(); t.join()
        assert f.__defaults__ == (2,)
    """)
    assert rc == 0
    assert {"ev": "object.__setattr__ __defaults__"} in lines
    assert any(x.get("ev", "").startswith("ctypes.") for x in lines), lines
