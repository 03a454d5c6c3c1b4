"""Red team of the subject's audit hook as rebuilt from factories (l22,
``harness.judge.subject_main._install_audit``): code in the subject's process (the agent's tree)
attacks the hook it shares the interpreter with. Each case drives the installed hook in a fresh
``python -I`` as ``tests/harness/test_subject_audit.py`` does, and asserts what the driver would
see: an evidence line, or the subject ended with ``AUDIT_REDIRECTED`` (reported as tampering).
The cases marked xfail are breaks found and not fixed here (the report names them); strict, so
a fix that closes one makes it fail until the mark is removed."""
from __future__ import annotations

import pytest

from harness.judge import subject_main
from tests.harness.test_subject_audit import _run


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
