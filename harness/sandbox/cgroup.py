"""Each sandboxed run in a cgroup of its own: what the run holds, how many processes it has, and its end.

RLIMIT_AS bounds one process's address space, never what a run holds: pages of a memfd or of a tmpfs
file are in no address space until mapped, and every forked child has an address space of its own
(red team atk10: 768 MB held under a 256 MB limit at every level). The kernel charges every page a
cgroup's processes fault, anonymous or shmem (memfd, tmpfs, /dev/shm), to that cgroup, so a run in
its own group with ``memory.max`` (v2) or ``memory.limit_in_bytes`` (v1, and ``memsw`` where swap is
accounted) holds no more than its limit: past it the kernel reclaims, then kills a process of the run
(the run fails, as any killed run does). ``pids.max`` caps its processes and threads. At the run's end
every process still in the group is killed (v2 ``cgroup.kill``; v1: freeze, SIGKILL each member
through a pidfd checked to be in the group, thaw, until empty), whatever session or process group it
made: at level ``basic`` (no PID namespace) that is what ends a setsid double-forked daemon.

``support()`` detects once per process what the machine offers, from /proc/self/mountinfo and
/proc/self/cgroup: a v2 group under this process's own (``cgroup.kill``; memory and pids when they
are enabled there), else or besides the v1 memory, pids and freezer hierarchies. Nothing of the host's
hierarchy is changed but the run's own groups (no controller is enabled anywhere). ``create`` makes a
run's groups (a mkdir and the limit writes in each hierarchy), the run's first process joins them
itself before it runs tree code (``confine.join_cgroups``, writing ``0`` to each ``cgroup.procs``
descriptor the harness opened: the cold path in ``sandbox._preexec``, the warm path in the zygote's
fork ``warm._child_setup``), and ``RunGroup.end`` kills and removes them. Where no memory group can be
made the run keeps the rlimits alone, and ``memory_limit()`` (in each cell's start event and each
ExecResult's ``extra``) says which limit applied.
"""
from __future__ import annotations

import itertools
import os
import secrets
import signal
import time
from dataclasses import dataclass, field
from functools import lru_cache

from harness.sandbox import confine

PIDS_MAX = 512  # processes and threads of one run (a fork bomb stops here; pytest, a subject and their children fit)
PREFIX = "hx-run-"
_seq = itertools.count()


@dataclass(frozen=True)
class Hierarchy:
    """One place run groups are made: ``parent`` (this process's own group there), cgroup ``version``,
    and what a group made there gives (``memory``, ``pids``, ``kill`` (v2 cgroup.kill), ``freeze`` (v1))."""
    parent: str
    version: int
    roles: frozenset[str]


@dataclass(frozen=True)
class Support:
    hierarchies: tuple[Hierarchy, ...] = ()

    def has(self, role: str) -> bool:
        return any(role in h.roles for h in self.hierarchies)

    @property
    def memory_limit(self) -> str:
        """Which memory limit a run gets: ``cgroup-v2``, ``cgroup-v1`` (its group's, besides RLIMIT_AS)
        or ``address-space`` (RLIMIT_AS alone: each process's address space, not what the run holds)."""
        for h in self.hierarchies:
            if "memory" in h.roles:
                return f"cgroup-v{h.version}"
        return "address-space"


def _mounts() -> list[tuple[str, int, frozenset[str]]]:
    """(mount point, version, v1 controllers) of every cgroup mount this process sees."""
    out: list[tuple[str, int, frozenset[str]]] = []
    try:
        for m in confine.mount_table():
            if m.fstype == "cgroup2":
                out.append((m.point, 2, frozenset()))
            elif m.fstype == "cgroup":
                out.append((m.point, 1, frozenset(m.options.split(","))))
    except OSError:
        pass
    return out


def _own_groups() -> tuple[dict[str, str], str | None]:
    """This process's group per v1 controller, and its v2 group (``/proc/self/cgroup``)."""
    v1: dict[str, str] = {}
    v2 = None
    try:
        with open("/proc/self/cgroup") as fh:
            for line in fh:
                hid, _, rest = line.rstrip("\n").partition(":")
                ctrls, _, path = rest.partition(":")
                if hid == "0" and ctrls == "":
                    v2 = path
                for c in ctrls.split(","):
                    if c:
                        v1[c] = path
    except OSError:
        pass
    return v1, v2


def _probe(parent: str, version: int, wanted: set[str]) -> frozenset[str]:
    """What a group made under ``parent`` gives of ``wanted``: made, written to and removed now."""
    probe = os.path.join(parent, f"{PREFIX}probe-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        os.mkdir(probe)
    except OSError:
        return frozenset()
    got: set[str] = set()
    try:
        ctrls = set(_read(os.path.join(probe, "cgroup.controllers")).split()) if version == 2 else wanted
        if "memory" in wanted and "memory" in ctrls and _limit_memory(probe, version, 1 << 30):
            got.add("memory")
        if "pids" in wanted and "pids" in ctrls and _write(os.path.join(probe, "pids.max"), str(PIDS_MAX)):
            got.add("pids")
        if "kill" in wanted and os.path.exists(os.path.join(probe, "cgroup.kill")):
            got.add("kill")
        if "freeze" in wanted and os.path.exists(os.path.join(probe, "freezer.state")):
            got.add("freeze")
        if got and not os.access(os.path.join(probe, "cgroup.procs"), os.W_OK):
            got = set()
    finally:
        try:
            os.rmdir(probe)
        except OSError:
            pass
    return frozenset(got)


@lru_cache(maxsize=1)
def support() -> Support:
    """What this machine offers a run (probed once per process; ``HARNESS_CGROUP=0`` turns it off)."""
    if os.environ.get("HARNESS_CGROUP", "1").strip() in ("0", "off", "no", "false"):
        return Support()
    v1_own, v2_own = _own_groups()
    found: list[Hierarchy] = []
    have: set[str] = set()
    for mp, version, ctrls in _mounts():  # v2 first: one group gives what it has of all four
        if version != 2 or v2_own is None:
            continue
        parent = os.path.join(mp, v2_own.lstrip("/"))
        got = _probe(parent, 2, {"memory", "pids", "kill"}) if os.path.isdir(parent) else frozenset()
        if got:
            found.append(Hierarchy(parent, 2, got))
            have |= got
            break
    for role, ctrl in (("memory", "memory"), ("pids", "pids"), ("freeze", "freezer")):
        if role in have or (role == "freeze" and "kill" in have):
            continue
        for mp, version, ctrls in _mounts():
            if version != 1 or ctrl not in ctrls or ctrl not in v1_own:
                continue
            parent = os.path.join(mp, v1_own[ctrl].lstrip("/"))
            got = _probe(parent, 1, {role}) if os.path.isdir(parent) else frozenset()
            if got:
                found.append(Hierarchy(parent, 1, got))
                have |= got
                break
    return Support(tuple(found))


def memory_limit() -> str:
    """``support().memory_limit``: the memory limit this process's runs get."""
    return support().memory_limit


@dataclass
class RunGroup:
    """One run's groups (one per hierarchy) and the ``cgroup.procs`` descriptors its first process joins by."""
    dirs: list[tuple[str, Hierarchy]]
    memory_limit: str
    fds: list[int] = field(default_factory=list)

    def open(self) -> list[int]:
        """Descriptors of each group's ``cgroup.procs`` (closed by ``close_fds`` once the child has joined)."""
        self.fds = [os.open(os.path.join(d, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC) for d, _ in self.dirs]
        return self.fds

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []

    def members(self) -> list[int]:
        pids: set[int] = set()
        for d, _ in self.dirs:
            pids.update(int(p) for p in _read(os.path.join(d, "cgroup.procs")).split())
        return sorted(pids)

    def end(self) -> None:
        """Kill every process still in the run's groups, then remove them."""
        self.close_fds()
        try:
            self.kill()
        finally:
            self.remove()

    def kill(self, deadline_s: float = 10.0) -> None:
        killer = next((d for d, h in self.dirs if "kill" in h.roles), None)
        freezer = next((d for d, h in self.dirs if "freeze" in h.roles), None)
        until = time.monotonic() + deadline_s
        pause = 0.001
        while True:
            pids = self.members()
            if not pids or time.monotonic() > until:
                return
            if killer is not None:
                _write(os.path.join(killer, "cgroup.kill"), "1")
            else:
                frozen = freezer is not None and _freeze(freezer, until)
                try:
                    for pid in pids:
                        _kill_member(pid, [d for d, _ in self.dirs])
                finally:
                    if frozen and freezer is not None:
                        _write(os.path.join(freezer, "freezer.state"), "THAWED")
            time.sleep(pause)  # a killed process leaves its group when it has exited
            pause = min(pause * 2, 0.05)

    def remove(self) -> None:
        for d, _ in self.dirs:
            _rmdir(d)


def create(memory_mb: int, sup: Support | None = None) -> RunGroup | None:
    """The run's groups, limited (memory at ``memory_mb``, processes at ``PIDS_MAX``); None where no
    group can be made (the run keeps its rlimits alone)."""
    sup = support() if sup is None else sup
    if not sup.hierarchies:
        return None
    # unique across processes of other PID namespaces sharing a hierarchy (a pid alone is not)
    name = f"{PREFIX}{os.getpid()}-{next(_seq)}-{secrets.token_hex(4)}"
    made: list[tuple[str, Hierarchy]] = []
    mem = "address-space"
    for h in sup.hierarchies:
        d = os.path.join(h.parent, name)
        try:
            os.mkdir(d)
        except OSError:
            continue
        made.append((d, h))
        if "memory" in h.roles and _limit_memory(d, h.version, memory_mb << 20):
            mem = f"cgroup-v{h.version}"
        if "pids" in h.roles:
            _write(os.path.join(d, "pids.max"), str(PIDS_MAX))
    if not made:
        return None
    return RunGroup(made, mem)


def _limit_memory(d: str, version: int, limit: int) -> bool:
    if version == 2:
        ok = _write(os.path.join(d, "memory.max"), str(limit))
        swap = os.path.join(d, "memory.swap.max")
        return ok and (not os.path.exists(swap) or _write(swap, "0"))
    ok = _write(os.path.join(d, "memory.limit_in_bytes"), str(limit))
    memsw = os.path.join(d, "memory.memsw.limit_in_bytes")  # memory and swap together: no more than the limit either
    return ok and (not os.path.exists(memsw) or _write(memsw, str(limit)))


def _freeze(d: str, until: float) -> bool:
    if not _write(os.path.join(d, "freezer.state"), "FROZEN"):
        return False
    while _read(os.path.join(d, "freezer.state")).strip() != "FROZEN":
        if time.monotonic() > until:
            return True
        time.sleep(0.001)
    return True


def _kill_member(pid: int, dirs: list[str]) -> None:
    """SIGKILL ``pid`` through a pidfd, once it is checked to be in one of the run's groups (a pid
    reused by another process after the list was read is never signalled)."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        names = {os.path.basename(d) for d in dirs}
        groups = _read(f"/proc/{pid}/cgroup")
        if any(line.rpartition("/")[2] in names for line in groups.splitlines()):
            signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def _rmdir(d: str, wait_s: float = 5.0) -> None:
    until = time.monotonic() + wait_s
    while True:
        try:
            os.rmdir(d)
            return
        except FileNotFoundError:
            return
        except OSError:  # EBUSY: a process has not left yet
            if time.monotonic() > until:
                return
            time.sleep(0.005)


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def _write(path: str, text: str) -> bool:
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        return False
    try:
        os.write(fd, text.encode())
        return True
    except OSError:
        return False
    finally:
        os.close(fd)
