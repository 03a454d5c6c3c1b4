"""Warm test execution: a pre-imported pytest worker (the "zygote") that forks per test run.

The cold path (harness/sandbox.run_confined) pays interpreter + pytest start-up on every test
run (~2/3 of a run, benchmarks/bench_cells.py). Here each harness process starts ONE zygote:
``python -I harness.sandbox.warm`` with the scrubbed environment (no secret ever exists in it), which
imports pytest and its default plugins (only modules a cold ``python -I -m pytest`` has imported
before it reads the test tree), then waits on a socketpair. Per test run it forks C1, which
applies the cold path's confinement in the same order as ``sandbox._preexec``: it joins the run's
cgroups (harness.sandbox.cgroup: their cgroup.procs descriptors come with the request), setsid, rlimits
(AS, CPU, FSIZE, CORE), unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC), / made rprivate,
hidden dirs covered by mode-000 tmpfs, the scratch dirs bind-mounted, every other mount remounted
read-only. C1 forks C2, pid 1 of the new PID namespace (like ``unshare --pid --fork
--kill-child``: C2 dies with C1), which mounts its own /proc, drops every capability (bounding
set, ambient, then capset to zero; or setuid nobody at level 'namespaces+nobody') and sets
no_new_privs (like ``setpriv``), installs the run's environment and cwd, points fd 0 at
/dev/null and fds 1/2 at the harness's pipes, closes EVERY other fd (the zygote socket
included), forgets the zygote's own modules, sets sys.argv as ``-m pytest`` would, and runs
``runpy.run_module("pytest", run_name="__main__")`` - what ``python -I -m pytest ARGS`` runs, with
the same sys.path and flags. C1 exits as C2 did (re-raising its signal, as unshare does).

The harness reads the pipes to EOF under the wall timeout; on timeout it SIGKILLs C1 through a
pidfd (race-free) and its process group, and C1's death takes the whole PID namespace with it.

Known difference (not a confinement one): ``-I`` ignores PYTHONHASHSEED, so every cold run gets
a fresh random string-hash seed, while runs forked from one zygote share its seed. Hash-order
dependent tests are nondeterministic either way; the zygote is recycled every ``RECYCLE`` runs
so the verdict cache's spot-check still sees seed variation.

This file is both the harness-side client (``run``) and, run as a script, the zygote. The zygote
part imports only the standard library and pytest.
"""
from __future__ import annotations

import os
import re
import sys
import threading

RECYCLE = 64  # runs per zygote before a fresh one (fresh hash seed, bounded state)
_FAIL_SETUP = 197  # C1's exit code when confinement could not be applied (the run goes cold)

# ----------------------------------------------------------------------------------------------
# zygote side (stdlib + pytest only)

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC = 0x00020000, 0x40000000, 0x20000000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 0x4000, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 1, 24, 38, 47, 4
NOBODY = 65534


def _preload() -> None:
    import _pytest.config as cfg
    import pytest  # noqa: F401
    for name in cfg.default_plugins:
        if name in ("cacheprovider", "stepwise"):  # -p no:cacheprovider: a cold run never imports them
            continue
        try:
            __import__(f"_pytest.{name}")
        except Exception:  # pragma: no cover - a plugin that fails here fails the cold way later
            pass


_CONFINE = None  # the zygote's copy of harness.sandbox.confine, loaded once at its start


def _load_confine():
    """harness.sandbox.confine, loaded by path under a private name (the zygote has no harness package
    on sys.path, and the module is forgotten with the zygote's others before pytest runs). Loaded once,
    when the zygote starts (``_zygote_main``), before any run: each run's fork inherits it, so no run's
    setup reads a file a concurrent run could be writing (a warm run under load once fell back to cold
    with a half-read module: AttributeError set_limits)."""
    global _CONFINE
    if _CONFINE is not None:
        return _CONFINE
    import importlib.util
    spec = importlib.util.spec_from_file_location("_harness_confine",
                                                  os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _CONFINE = mod
    return mod


def _child_setup(req: dict, out_fd: int, err_fd: int, ctl_fd: int, cgroup_fds: tuple[int, ...] = ()) -> None:
    """In C1: join the run's cgroups (``cgroup_fds``: their cgroup.procs, opened by the harness), confine,
    fork C2 (pid 1 of a new PID namespace); C1 never returns, C2 returns."""
    import ctypes
    import signal
    libc = ctypes.CDLL(None, use_errno=True)

    def check(rc, what):
        if rc != 0:
            raise OSError(ctypes.get_errno(), what)

    try:
        os.close(ctl_fd)
        confine = _load_confine()  # harness.sandbox.confine: the very steps the cold path takes
        confine.join_cgroups(cgroup_fds)  # first, as the cold path's child: C2 and all it starts are in the groups
        for fd in cgroup_fds:
            os.close(fd)
        lim = req["limits"]
        confine.set_limits(lim["memory_mb"], lim["cpu_s"], lim["file_mb"])
        confine.deny_keyrings(libc)
        if req["level"] == "bwrap":  # the zygote lives in the allow-list view; this run sees its scratch only
            confine.isolate_run(libc, scratch=req["writable"], base=req["base"], hide=req["hide"],
                                flags=CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC, binds=req["binds"],
                                home=req.get("home"))
        else:
            confine.isolate(libc, hide=req["hide"], writable=req["writable"], readonly=req["readonly"],
                            flags=CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC, fresh_tmp=True,
                            binds=req["binds"], home=req.get("home"))
        pid = os.fork()
    except BaseException as exc:
        os.write(err_fd, f"warm: confinement setup failed: {exc!r}\n".encode())
        os._exit(_FAIL_SETUP)
    if pid:  # C1: wait for pid 1 of the namespace and exit as it did
        os.close(out_fd)
        os.close(err_fd)
        _, status = os.waitpid(pid, 0)  # retried on EINTR by Python itself (PEP 475)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            signal.signal(sig, signal.SIG_DFL)
            os.kill(os.getpid(), sig)
            os._exit(128 + sig)
        os._exit(os.waitstatus_to_exitcode(status))
    # C2: pid 1 in the new PID namespace
    try:
        _become_run(libc, check, req, out_fd, err_fd)
    except BaseException as exc:
        try:
            os.write(err_fd, f"warm: confinement setup failed: {exc!r}\n".encode())
        finally:
            os._exit(_FAIL_SETUP)


def _become_run(libc, check, req: dict, out_fd: int, err_fd: int) -> None:
    """In C2, pid 1 of the run's PID namespace, in the cold path's order: die with C1, mount its
    own /proc, drop every capability (bounding set, ambient, capset to zero; setuid nobody at
    'namespaces+nobody'), no_new_privs, then the run's cwd and environment, fd 0 from /dev/null,
    fds 1/2 to the harness's capture files, and every other fd closed. Raises on a failed step."""
    import ctypes
    import signal
    check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    libc.mount(b"none", b"/proc", None, MS_REC | MS_PRIVATE, None)
    check(libc.mount(b"proc", b"/proc", b"proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, None),
          "mount proc")  # read-only: confine.PROC_RULE
    for cap in range(req["cap_last"] + 1):
        check(libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"capbset drop {cap}")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if req["level"] == "namespaces+nobody":
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    class Hdr(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    check(libc.capset(ctypes.byref(Hdr(0x20080522, 0)), data), "capset")
    check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _load_confine().deny_namespaces(libc)  # the last confinement step: no namespace or mount of the run's own
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    stdin, spare = os.pipe()  # an empty pipe, as a cold run's (sandbox._spawn): no device node's link in reach
    os.close(spare)
    os.dup2(stdin, 0)
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    os.closerange(3, 1 << 20)  # every inherited fd: the zygote socket, the pipes' spares, pidfds


def _zygote_main():
    """Serve requests on fd 3 until EOF. Returns (in C2 only) the pytest arguments to run."""
    import json
    import socket
    import struct  # noqa: F401  (used by socket fd passing)
    _preload()
    preloaded = set(sys.modules)
    _load_confine()  # after the snapshot: its imports (ctypes, resource) are forgotten before pytest, as before
    cap_last = int(open("/proc/sys/kernel/cap_last_cap").read())
    ctl = socket.socket(fileno=int(sys.argv[1]))
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(ctl, 1 << 22, 8)
        except OSError:
            sys.exit(0)
        if not msg:
            sys.exit(0)
        req = json.loads(msg)
        req["cap_last"] = cap_last
        out_fd, err_fd, *cgroup_fds = fds
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child_setup(req, out_fd, err_fd, ctl.fileno(), tuple(cgroup_fds))
            return req, preloaded  # C2
        for fd in (out_fd, err_fd, *cgroup_fds):
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        socket.send_fds(ctl, [json.dumps({"pid": pid}).encode()], [pidfd])
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)  # retried on EINTR by Python itself (PEP 475)
        ctl.send(json.dumps({"status": status}).encode())


def _run_pytest_as_main(req: dict, preloaded: set) -> None:
    """In C2: what ``python -I -m pytest ARGS`` (or, for a judged run, ``python -I DRIVER ARGS``:
    harness.judge.testrun's driver script) does, with the zygote's own modules forgotten."""
    for name in list(sys.modules):
        if name not in preloaded and name != "__main__":
            del sys.modules[name]
    import runpy
    import tempfile
    tempfile.tempdir = None
    script = req.get("script")
    if script:
        sys.argv = [script, *req["args"]]
        sys.orig_argv[:] = [sys.executable, "-I", script, *req["args"]]
        sys.path[0] = os.path.dirname(script)
        runpy.run_path(script, run_name="__main__")
        return
    sys.argv = ["-m", *req["args"]]
    sys.orig_argv[:] = [sys.executable, "-I", "-m", "pytest", *req["args"]]
    runpy.run_module("pytest", run_name="__main__", alter_sys=True)


# ----------------------------------------------------------------------------------------------
# harness side

_state: dict = {"broken": None, "base": None}
STATS = {"warm": 0, "fallback": 0}
# One zygote per harness thread: a zygote serves one run at a time over one socket, so two threads
# sharing it would read each other's replies (a thread pool judging mutants, or two runs in parallel).
_zygotes: dict[int, dict] = {}
_zlock = threading.Lock()


def _mine() -> dict:
    """This thread's zygote slot: pid (the owning process), proc, sock and runs since start."""
    with _zlock:
        return _zygotes.setdefault(threading.get_ident(), {"pid": None, "proc": None, "sock": None, "runs": 0})


def scratch_base() -> str | None:
    """Where a test run's scratch copy goes: at level bwrap with warm execution on, this process's
    zygote scratch base (the only host directory the zygote's view can write); else None (the
    system's temporary directory)."""
    from harness.sandbox.sandbox import confinement_level
    if not enabled() or confinement_level() != "bwrap":
        return None
    with _zlock:
        if _state.get("base_pid") != os.getpid() or not _state.get("base") or not os.path.isdir(_state["base"]):
            _state.update(base=_new_base(), base_pid=os.getpid())
            os.chmod(_state["base"], 0o755)
        return _state["base"]


BASE_RULE = """A scratch base is named for the process that made it (``hx-warm-PID-START-``, START its start time in
/proc/PID/stat), and is removed at that process's exit (atexit). A process that ends without it (SIGKILL, SIGTERM, a
fork's os._exit) leaves its base behind (a test-all run left about 20): the next harness process to make a base
removes every base whose maker is gone (no process with that pid and start time), if it is a directory of this user.
The name is the harness's, made in the host's temporary directory, which no confined run can write; a base made by
another pid namespace (or time namespace: /proc's start times are shifted by its boot-time offset) that shares this
/tmp would read as gone (not a set-up the harness makes; reviewer helper-130 confirmed both). A directory that cannot be
listed reclaims nothing: the new base is made either way."""
_BASE_NAME = re.compile(r"hx-warm-(\d+)-(\d+)-[A-Za-z0-9_]+")


def _new_base() -> str:
    """A new scratch base named for this process (``BASE_RULE``), after removing the bases of processes that are gone."""
    import tempfile
    me = os.getpid()
    base = tempfile.mkdtemp(prefix=f"hx-warm-{me}-{_started(me)}-")
    reclaim_bases(os.path.dirname(base), keep=base)
    return base


def _started(pid: int) -> str:
    """Process ``pid``'s start time (clock ticks since boot, /proc/PID/stat's 22nd field), "" when there is none."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


def reclaim_bases(tmp: str, keep: str = "") -> list[str]:
    """Remove the scratch bases in ``tmp`` whose maker is gone (``BASE_RULE``); returns their paths."""
    import shutil
    import stat
    gone: list[str] = []
    try:
        names = os.listdir(tmp)
    except OSError:
        return gone
    for name in names:
        m = _BASE_NAME.fullmatch(name)
        path = os.path.join(tmp, name)
        if m is None or path == keep or _started(int(m.group(1))) == m.group(2):
            continue
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path)
    return gone


def enabled() -> bool:
    """Warm execution asked for (``harness.sandbox.sandbox.warm_requested``: the cell's setting, else
    HARNESS_WARM, default on) and a confinement level the zygote reproduces (root: the zygote needs
    the privilege to give each run its own namespaces)."""
    from harness.sandbox.sandbox import confinement_level, warm_requested
    if not warm_requested():
        return False
    return confinement_level() != "basic" and os.geteuid() == 0


def _close_inherited() -> None:  # a forked harness process starts its own zygotes and scratch base
    global _zlock
    _zlock = threading.Lock()  # another thread may have held it at the fork
    for z in _zygotes.values():
        if z["sock"] is not None:
            try:
                z["sock"].close()
            except OSError:
                pass
    _zygotes.clear()
    _state.update(base=None, base_pid=None)


os.register_at_fork(after_in_child=_close_inherited)


def _remove_base() -> None:
    if _state.get("base_pid") == os.getpid() and _state.get("base"):
        import shutil
        shutil.rmtree(_state["base"], ignore_errors=True)


import atexit  # noqa: E402

atexit.register(_remove_base)


def stop() -> None:
    """Stop this thread's zygote (it exits at the end of its socket)."""
    z = _mine()
    proc, sock = z["proc"], z["sock"]
    if sock is not None:
        sock.close()
    if proc is not None:
        try:
            proc.wait(timeout=5)
        except Exception:
            proc.kill()
            proc.wait()
    z.update(pid=None, proc=None, sock=None, runs=0)


ZYGOTE_CAPS = ("CAP_SYS_ADMIN", "CAP_SETPCAP", "CAP_SETUID", "CAP_SETGID", "CAP_SYS_RESOURCE")


def _zygote_argv(level: str) -> list[str]:
    """The zygote's command: at level bwrap, inside the allow-list view (the interpreter, the
    system, this file and confine.py read-only, the scratch base writable, no network), keeping
    the privileges it needs to give each run its own namespaces."""
    here = os.path.dirname(os.path.abspath(__file__))
    if level != "bwrap":
        return [sys.executable, "-I", os.path.join(here, "warm.py")]
    import shutil

    from harness.sandbox.sandbox import bwrap_view, required_bwrap
    base = scratch_base()
    if base is None:
        raise RuntimeError("the bwrap zygote needs warm execution on (enabled()) for its scratch base")
    code = os.path.join(base, ".zygote")  # its code lives in the scratch base, which every run sees covered
    os.makedirs(code, exist_ok=True)
    for name in ("warm.py", "confine.py"):
        shutil.copyfile(os.path.join(here, name), os.path.join(code, name))
    args = [required_bwrap(), "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", *[a for c in ZYGOTE_CAPS for a in ("--cap-add", c)],
            *bwrap_view(writable=(base,), hide=(), dev_shm=False, home=True), "--remount-ro", "/", "--chdir", "/"]
    return [*args, "--", sys.executable, "-I", os.path.join(code, "warm.py")]


def _zygote():
    """The live zygote of this process, started (with the scrubbed environment) if needed."""
    import socket
    import subprocess
    from pathlib import Path

    from harness.sandbox.sandbox import PYTEST_ENV, confinement_level, scrubbed_env
    z = _mine()
    level = confinement_level()  # a zygote serves the level it was started at (its view is that level's): a process
    # whose level changed (HARNESS_CONFINEMENT, as the test suite sets it) starts another, never runs cold silently
    if (z["pid"] == os.getpid() and z["proc"] is not None and z["proc"].poll() is None and z["runs"] < RECYCLE
            and z.get("level") == level):
        return z["sock"]
    if z["pid"] == os.getpid():
        stop()
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        proc = subprocess.Popen([*_zygote_argv(level), str(child.fileno())], cwd="/",
                                env=scrubbed_env(Path("/"), dict(PYTEST_ENV)), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(child.fileno(),),
                                start_new_session=True)  # a Ctrl-C to the harness's group must not kill it mid-run
    finally:
        child.close()
    z.update(pid=os.getpid(), proc=proc, sock=parent, runs=0, level=level)
    return parent


def run(argv: list[str], cwd, *, hide=(), limits=None, env_extra=None, writable=(), binds=()):
    """Run ``argv`` (a harness pytest command: python -I -m pytest ARGS) warm, confined exactly as
    ``sandbox.run_confined`` would. Returns an ExecResult, or None when the run must go cold
    (zygote unavailable or confinement could not be applied; the caller then runs it cold; and
    every run the act recorder must trace, harness.sandbox.syscalls: strace wraps a launcher it
    starts, and a zygote's fork is not one).
    ``binds`` as ``sandbox.run_confined``'s; at level bwrap a destination outside /tmp goes cold
    (the zygote's view has no directory to mount it on but the run's fresh /tmp).
    Output goes to capture files the harness opened (read back capped, like the cold path)."""
    import tempfile
    from pathlib import Path

    from harness.sandbox import cgroup, syscalls
    if syscalls.active() is not None:
        return None
    from harness.sandbox.sandbox import ExecResult, Limits, confinement_level, read_capped
    limits = limits or Limits()
    level = confinement_level()
    script = _driver_script(argv)
    if level == "basic" or argv[0] != sys.executable or (list(argv[1:4]) != ["-I", "-m", "pytest"] and not script):
        return None
    rest = list(argv[3:]) if script else list(argv[4:])
    hidden = [str(Path(h).resolve()) for h in hide if Path(h).exists()]
    writable = [str(Path(w).resolve()) for w in writable]
    bound = [[str(Path(src).resolve()), str(Path(dst).absolute())] for src, dst in binds]
    if level == "bwrap":
        base = scratch_base()
        if base is None:
            return None  # warm execution off (enabled()): run it cold
        if not all(w == base or w.startswith(base + "/") for w in writable):
            return None  # scratch outside the zygote's view: run it cold
        if not all(dst.startswith("/tmp/") for _, dst in bound):
            return None  # nowhere in the zygote's view to show it: run it cold
    with tempfile.TemporaryDirectory(prefix="hx-cap-") as cap, tempfile.TemporaryDirectory(prefix="hx-tmp-") as tmp:
        req = _request(level, rest, cwd, hidden, writable, tmp, env_extra, script, limits)
        req["binds"] = bound
        out_path, err_path = Path(cap) / "stdout", Path(cap) / "stderr"
        group = cgroup.create(limits.memory_mb)  # the run's own cgroups, as a cold run's; None: rlimits alone
        try:
            ran = _run_in_zygote(req, out_path, err_path, limits, group)
        finally:
            if group is not None:
                group.end()  # whatever is left of the run is killed (its PID namespace is gone already)
        if ran is None:
            return None
        status, wall, timed_out = ran
        rc = os.waitstatus_to_exitcode(status)
        err_text = read_capped(err_path, limits.output_chars)
        if rc == _FAIL_SETUP and "warm: confinement setup failed" in err_text:
            _broken(err_text.strip())
            return None
        STATS["warm"] += 1
        return ExecResult(list(argv), rc, read_capped(out_path, limits.output_chars), err_text, wall, timed_out, level,
                          {"executor": "warm", "memory_limit": group.memory_limit if group else "address-space"})


def _request(level: str, rest: list[str], cwd, hidden: list[str], writable: list[str], tmp: str, env_extra,
             script: str | None, limits) -> dict:
    """The zygote's request for one run: its pytest arguments, cwd and scrubbed environment, the
    confinement level and what it hides, makes writable (``tmp`` too, below bwrap) and read-only,
    and the run's resource limits."""
    from pathlib import Path

    from harness.sandbox.sandbox import RUN_HOME, _mountpoints, run_home_dir, scrubbed_env
    if level == "bwrap":
        env = scrubbed_env(Path(RUN_HOME), {"TMPDIR": "/tmp", "PWD": str(cwd), **(env_extra or {})})
        req = {"args": rest, "cwd": str(cwd), "env": env, "level": level, "hide": hidden,
               "writable": writable, "base": scratch_base(), "readonly": [], "script": script, "home": RUN_HOME}
    else:
        os.chmod(tmp, 0o1777)
        home = run_home_dir(tmp, level)
        env = scrubbed_env(Path(RUN_HOME if home else tmp), {"TMPDIR": tmp, **(env_extra or {})})
        req = {"args": rest, "cwd": str(cwd), "env": env, "level": level, "hide": hidden,
               "writable": [*writable, str(Path(tmp).resolve())], "script": script,
               "readonly": [m for m in _mountpoints() if m not in hidden],
               "home": [home, RUN_HOME] if home else None}
    req["limits"] = {"memory_mb": limits.memory_mb, "cpu_s": limits.cpu_s, "file_mb": limits.file_mb}
    return req


def _run_in_zygote(req: dict, out_path, err_path, limits, group=None) -> tuple[int, float, bool] | None:
    """Send ``req`` to this thread's zygote with the capture files as the run's stdout and stderr,
    and wait for its wait status under the wall timeout (SIGKILL through the run's pidfd at the
    deadline, then 10 s more). Returns (wait status, wall seconds, timed out), or None when the
    zygote is unavailable (the caller runs it cold); a zygote that loses the run raises RunLost."""
    import json
    import select
    import socket
    import time
    out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    err_fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    from harness.sandbox.sandbox import capture_owned_apart
    capture_owned_apart(out_fd, err_fd)
    pidfd = None
    try:
        t0 = time.perf_counter()
        try:
            sock = _zygote()
            socket.send_fds(sock, [json.dumps(req).encode()], [out_fd, err_fd, *(group.open() if group else ())])
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 16, 1)
            json.loads(msg)["pid"]  # the reply names the run (KeyError if malformed)
            pidfd = fds[0]
        except (OSError, ValueError, KeyError, IndexError) as exc:
            _broken(f"zygote unavailable: {exc!r}")
            return None
        finally:
            os.close(out_fd)
            os.close(err_fd)
            if group is not None:
                group.close_fds()  # the zygote holds its copies
        _mine()["runs"] += 1
        deadline, timed_out = t0 + limits.timeout_s, False
        while True:
            wait = deadline - time.perf_counter()
            ready, _, _ = select.select([sock], [], [], max(wait, 0))
            if ready:
                break
            if timed_out:  # the namespace is gone after a kill; a zygote that never answers is broken
                _broken("zygote lost a run after a kill")
                raise RunLost("zygote lost a run after a kill")
            timed_out = True
            _kill(pidfd)
            deadline = time.perf_counter() + 10.0
        try:
            status = json.loads(sock.recv(1 << 16))["status"]
        except (OSError, ValueError, KeyError) as exc:
            _broken(f"zygote lost a run: {exc!r}")
            raise RunLost(f"zygote lost a run: {exc!r}") from None
        return status, time.perf_counter() - t0, timed_out
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _driver_script(argv: list[str]) -> str | None:
    """The judged run's driver script (``python -I RES/_hx_driver.py ARGS``, harness.judge.testrun), or None."""
    if len(argv) > 2 and argv[1] == "-I" and os.path.basename(argv[2]) == "_hx_driver.py" and os.path.isabs(argv[2]):
        return argv[2]
    return None


class RunLost(Exception):
    """The zygote was lost after it had started the run: the run's scratch and observation
    channel may hold the lost run's writes, so the caller redoes the run from a fresh scratch copy
    (harness.judge.testrun), never reruns it in place (the two runs' observations would be judged
    together as tampering)."""


def _kill(pidfd: int) -> None:
    """SIGKILL C1 through its pidfd (no pid-reuse race). C2, pid 1 of the run's PID namespace, has
    PDEATHSIG=SIGKILL, and when pid 1 dies the kernel kills every process in the namespace: the
    same reach as killing the cold path's process group plus ``unshare --kill-child``."""
    import signal
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass


def _broken(why: str) -> None:
    STATS["fallback"] += 1
    if _state.get("broken") != why:
        print(f"harness: warm execution unavailable ({why}); running this test cold", file=sys.stderr)
    _state["broken"] = why
    stop()


if __name__ == "__main__":
    got = _zygote_main()
    if got is not None:
        _run_pytest_as_main(*got)
