"""Confined execution of model-influenced code (test runs import the agent's files).

Every command runs as a subprocess with: a wall-clock timeout (the process group is killed),
CPU, address-space and file-size limits, a scrubbed environment (no API keys, no secrets:
only PATH, HOME, LANG and Python's switches), and, when the harness runs as root, a private
mount and network namespace in which every hidden directory (the task corpus with its oracles
and references, the run directory) is covered by an empty unreadable tmpfs, then a drop to the
``nobody`` user (when the interpreter is reachable by nobody) or, failing that, a drop of every
capability (root without CAP_SYS_ADMIN cannot unmount the covers). A private PID namespace
with its own /proc keeps the harness's processes (and their environments) out of sight.
Every mount is remounted read-only except the run's scratch directories, so a test run cannot
write the live workspace, the harness or site-packages. ``confinement_level()`` says which of
these are in force; records carry it. Known gap at level 'namespaces+nocaps': files owned by
root and readable by their owner stay readable (everything not covered by ``hide``).
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
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from harness import confine

NOBODY = 65534
_KEEP_WRITABLE_FS = ("/proc", "/sys", "/dev/pts")  # /dev too is read-only: device nodes stay usable
SAFE_ENV_KEYS = ("PATH", "LANG", "LC_ALL", "TZ")


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


def scrubbed_env(home: Path, extra: dict | None = None) -> dict[str, str]:
    """A minimal environment: nothing from the harness's environment but PATH/LANG/TZ."""
    env = {k: os.environ[k] for k in SAFE_ENV_KEYS if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=str(home), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONNOUSERSITE="1")
    env.update(extra or {})
    return env


@lru_cache(maxsize=1)
def _libc():
    return ctypes.CDLL(None, use_errno=True)


def _can_isolate() -> bool:
    return os.geteuid() == 0 and sys.platform.startswith("linux")


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


@lru_cache(maxsize=1)
def confinement_level() -> str:
    """'namespaces+nobody' (full), 'namespaces+nocaps' (root, interpreter not reachable by
    nobody), or 'basic' (not root, or util-linux's unshare/setpriv missing)."""
    if not _can_isolate() or not (shutil.which("unshare") and shutil.which("setpriv")):
        return "basic"
    return "namespaces+nobody" if _nobody_can_run_python() else "namespaces+nocaps"


def _wrap(argv: list[str], level: str) -> list[str]:
    """Prefix argv with a fresh PID namespace (own /proc) and a privilege drop."""
    if level == "basic":
        return list(argv)
    drop = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    if level == "namespaces+nobody":
        drop += [f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", *drop, "--", *argv]


def _mountpoints() -> list[str]:
    """Every mount point visible now (read before fork; the child inherits the same table)."""
    out = []
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            mp = line.split()[4].replace("\\040", " ")
            if mp not in _KEEP_WRITABLE_FS and not mp.startswith(("/proc/", "/sys/")):
                out.append(mp)
    except OSError:
        out = ["/"]
    return sorted(set(out), key=len)


def _preexec(limits: Limits, hide: tuple[str, ...], level: str, writable: tuple[str, ...] = ()):
    readonly = [m for m in _mountpoints() if m not in hide] if level != "basic" else []

    def setup() -> None:
        confine.set_limits(limits.memory_mb, limits.cpu_s, limits.file_mb)
        if level != "basic":
            confine.isolate(_libc(), hide=hide, writable=writable, readonly=readonly)

    return setup


def open_up(path: Path) -> None:
    """Make a tree readable (not writable) by the nobody user that runs confined commands."""
    for p in [path, *Path(path).rglob("*")]:
        os.chmod(p, 0o755 if p.is_dir() else 0o644)


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


def run_confined(argv: list[str], cwd: Path, *, hide: tuple[Path, ...] = (), limits: Limits = Limits(),
                 env_extra: dict | None = None, writable: tuple[Path, ...] = ()) -> ExecResult:
    """Run argv in cwd under the confinement described in the module docstring. Only
    ``writable`` (and a private TMPDIR) can be written; every path in ``hide`` is covered."""
    level = confinement_level()
    hidden = tuple(str(Path(h).resolve()) for h in hide if Path(h).exists())
    with tempfile.TemporaryDirectory(prefix="hx-tmp-") as tmp:
        os.chmod(tmp, 0o1777)
        env = scrubbed_env(Path(tmp), {"TMPDIR": tmp, **(env_extra or {})})
        t0 = time.perf_counter()
        proc = subprocess.Popen(_wrap(argv, level), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL, preexec_fn=_preexec(limits, hidden, level,
                                                     tuple(str(Path(w).resolve()) for w in (*writable, tmp))))
        timed_out = False
        try:
            out, err = proc.communicate(timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = proc.communicate()
        wall = time.perf_counter() - t0
    cut = limits.output_chars
    return ExecResult(list(argv), proc.returncode, out.decode(errors="replace")[-cut:],
                      err.decode(errors="replace")[-cut:], wall, timed_out, level)
