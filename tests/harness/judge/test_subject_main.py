"""The judged subject's audit hook (``harness.judge.subject_main._install_audit``), installed in a
fresh ``python -I`` process as the subject installs it, and driven by a small script: what it
reports, what it leaves alone (the interpreter's own code), the heartbeat, and the end of the
process when its descriptor is redirected, even after the script rewrites the module's globals
(every piece the hook calls is bound when it is installed)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from harness.judge import subject_main

SUBJECT = subject_main.__file__

PRELUDE = textwrap.dedent("""
    import os, sys, importlib.util
    spec = importlib.util.spec_from_file_location("subject", sys.argv[1])
    sm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sm)
    r, w = os.pipe()
    sm._install_audit(w)
""")


def _run(tmp_path, body: str) -> tuple[int, list[dict]]:
    script = tmp_path / "drive.py"  # outside the interpreter's library: an untrusted caller
    script.write_text(PRELUDE + textwrap.dedent(body) + "\nos.close(w)\nsys.stdout.write(os.read(r, 1 << 20).decode())\n")
    p = subprocess.run([sys.executable, "-I", str(script), SUBJECT], capture_output=True, text=True, timeout=60)
    return p.returncode, [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def test_untrusted_frame_and_code_access_is_reported_and_the_interpreters_own_is_not(tmp_path):
    rc, lines = _run(tmp_path, """
        import collections, gc, inspect
        inspect.currentframe()                             # the stdlib asks for a frame: not evidence
        collections.namedtuple("P", "a b", defaults=(1,))  # the stdlib writes __defaults__: not evidence
        sys.settrace(None)                                 # "no tracer" from the tree: still a tracer call
        sys._getframe()
        def f(): pass
        f.__defaults__ = (1,)
        f.__code__ = f.__code__
        gc.get_objects()
        gc.get_objects()                                   # each distinct event once
        try:
            open("/proc/self/status").close()
        except OSError:
            pass
        open("/proc/cpuinfo").close()                      # allowed reads under /proc
        sys.audit("hx.sync", 7)
        sys.audit("hx.sync", "7")                          # a heartbeat carries an int only
    """)
    assert rc == 0
    assert lines == [{"ev": "sys.settrace"}, {"ev": "sys._getframe"}, {"ev": "object.__setattr__ __defaults__"},
                     {"ev": "object.__setattr__ __code__"}, {"ev": "gc.get_objects"},
                     {"ev": "open /proc/self/status"}, {"sync": 7}]


def test_a_str_subclass_runs_no_code_inside_the_hook(tmp_path):
    rc, lines = _run(tmp_path, """
        class Sly(str):
            def startswith(self, *a):
                raise SystemExit(3)
            def __str__(self):
                raise SystemExit(4)
        try:
            open(Sly("/proc/self/environ")).close()
        except OSError:
            pass
    """)
    assert rc == 0
    assert lines == [{"ev": "open /proc/self/environ"}]


def test_a_redirected_descriptor_ends_the_subject_even_after_its_globals_are_rewritten(tmp_path):
    rc, lines = _run(tmp_path, """
        sm.AUDIT_REDIRECTED = 0           # the tree reaches the module (as __main__) and rewrites it
        sm._install_audit = None
        r2, w2 = os.pipe()
        os.dup2(w2, w)                    # keeps the pipe elsewhere, puts its own behind the number
        sys._getframe()
        print("not reached")
    """)
    assert rc == subject_main.AUDIT_REDIRECTED
    assert lines == []


def test_the_protocols_own_ctypes_calls_are_not_evidence_and_an_equal_code_object_is_not_exempt(tmp_path):
    """The subject's GIL-holding reads and writes are ctypes calls (harness.judge.subject_rpc ``_HeldIO``), which
    read ``ctypes.get_errno`` (an audit event) when a call fails: the hook exempts the events raised from the
    protocol's own functions, by the identity of their code objects; the same from any other frame is reported,
    even from a code object equal to an exempt one."""
    script = tmp_path / "drive.py"
    script.write_text(textwrap.dedent("""
        import ctypes, os, sys, importlib.util
        spec = importlib.util.spec_from_file_location("subject", sys.argv[1])
        sm = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sm)
        held = sm._held_libc()
        r, w = os.pipe()
        exempt = {}
        sm._install_audit(w, exempt)
        src = "def call(libc):\\n    return libc['errno']()\\n"
        mine, theirs = {}, {}
        exec(compile(src, "proto.py", "exec"), mine)
        exec(compile(src, "proto.py", "exec"), theirs)
        assert mine["call"].__code__ == theirs["call"].__code__
        exempt[id(mine["call"].__code__)] = mine["call"].__code__
        mine["call"](held)
        os.write(w, b'{"mark":1}\\n')
        theirs["call"](held)
        os.close(w)
        sys.stdout.write(os.read(r, 1 << 20).decode())
    """))
    p = subprocess.run([sys.executable, "-I", str(script), SUBJECT], capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    assert p.returncode == 0, p.stderr
    assert lines == [{"mark": 1}, {"ev": "ctypes.get_errno"}]


def test_held_libc_checks_the_stat_layout_it_reads():
    """``_held_libc``'s fstat reads ``st_size`` where this machine's ``struct stat`` has it, or not at all."""
    import os
    held = subject_main._held_libc()
    assert held is not None
    if held["size_at"] is not None:
        with open(os.devnull, "rb"):
            assert held["fstat"](1, held["st"]) == 0
            at = held["size_at"]
            assert int.from_bytes(held["st"].raw[at:at + 8], sys.byteorder) == os.fstat(1).st_size


@pytest.mark.parametrize("read", ["get_referents([1])", "get_objects(2)"])
def test_the_protocols_own_traversal_is_not_evidence_and_any_other_gc_get_referents_is(tmp_path, read):
    """The protocol's walk of what a drop frees (harness.judge.subject_rpc ``_finalizes``) calls ``gc.get_referents``,
    the subject's share of the test's ``gc.get_objects`` (``_tree_objects``) ``gc.get_objects``: the hook exempts
    those events only from the exempt code objects (by identity, ``_exempt_check``); the same call from an equal code
    object, or from the standard library's code, is reported."""
    script = tmp_path / "drive.py"
    script.write_text(textwrap.dedent("""
        import gc, os, sys, importlib.util
        spec = importlib.util.spec_from_file_location("subject", sys.argv[1])
        sm = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sm)
        r, w = os.pipe()
        exempt = {}
        sm._install_audit(w, exempt)
        src = "def walk():\\n    return gc.READ\\n"
        mine, theirs = {"gc": gc}, {"gc": gc}
        exec(compile(src, "proto.py", "exec"), mine)
        exec(compile(src, "proto.py", "exec"), theirs)
        exempt[id(mine["walk"].__code__)] = mine["walk"].__code__
        mine["walk"]()
        os.write(w, b'{"mark":1}\\n')
        theirs["walk"]()
        os.close(w)
        sys.stdout.write(os.read(r, 1 << 20).decode())
    """).replace("READ", read))
    p = subprocess.run([sys.executable, "-I", str(script), SUBJECT], capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    assert p.returncode == 0, p.stderr
    assert lines == [{"mark": 1}, {"ev": "gc." + read.partition("(")[0]}]


def test_a_truncation_of_the_relayed_descriptors_is_reported_by_any_way_that_reaches_them(tmp_path):
    """harness.judge.testrun OUTPUT_RELAY_RULE: ``os.ftruncate`` of descriptor 1 or 2, ``os.truncate`` or an ``open``
    with O_TRUNC of a path that is the same file (known by device and inode) call the cell; other files, and an open
    without O_TRUNC, do not."""
    import os
    calls: list = []
    cell: list = [None]
    watch = subject_main._truncation_watch(cell)
    watch("os.truncate", (1, 0))  # (the cell still empty: nothing to call)
    cell[0] = lambda: calls.append(1)
    other = tmp_path / "other"
    other.write_text("x")
    watch("os.truncate", (str(other), 0))
    watch("open", (str(other), "w", os.O_WRONLY | os.O_TRUNC))
    watch("open", ("/proc/self/fd/1", "r", os.O_RDONLY))
    watch("os.truncate", (99999, 0))  # (no such descriptor)
    assert calls == []
    watch("os.truncate", (1, 0))
    watch("os.truncate", (2, 0))
    watch("open", ("/proc/self/fd/2", "w", os.O_WRONLY | os.O_TRUNC))
    assert calls == [1, 1, 1]
