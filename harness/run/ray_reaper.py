"""The processes of a local Ray instance die with the harness (issue 25), even after ``kill -9``.

``ray.init`` starts the GCS and the raylet as children of the harness with a parent-death signal,
so they die with it; but the raylet's own children (the dashboard and runtime-env agents, the
workers) are only told by polling, and an agent that finds its raylet dead first tries to report
it to the dead GCS, for 60 s. A ``kill -9`` runs no code in the harness, so the cleanup lives in
another process: the reaper, started before ``ray.init`` with a pipe from the harness as its
stdin, on which the harness then names the head processes ``ray.init`` started (``tell_heads``).
When the harness dies (by any means, or at a normal exit) the kernel closes the pipe; the reaper
reads end-of-file and kills the heads still alive, every descendant of a head it saw while waiting
(``Watch``: it looks every ``LOOK_S``, and once more at end-of-file, because Ray's agents do not
always carry ``RAY_RAYLET_PID`` and are children of init once their raylet is dead), every process
in its session whose ``RAY_RAYLET_PID`` names a head (Ray's workers) and every orphan of a dead raylet
there (a kill during ``ray.init``, before the heads were named), until none is left or
``REAP_FOR_S`` has passed. It holds no descriptor of the harness (no ``run.lock``),
is in a process group of its own (a Ctrl-C reaches the harness's group; the harness decides), and is only used
for the instance the harness starts itself, never for a cluster joined with ``--address``.

Run as a script (stdlib only, ``python -I``) so it starts in milliseconds.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

REAP_FOR_S = 10.0
POLL_S = 0.1
LOOK_S = 0.5  # while the harness lives: how often the reaper looks for the heads' new descendants
ENV_KEY = b"RAY_RAYLET_PID="


def _stat(pid: int | str) -> list[str] | None:
    """Fields 3.. of /proc/PID/stat (state first), or None for a process that is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def _alive(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] not in ("Z", "X")


def _raylet_of(pid: str) -> int | None:
    """The ``RAY_RAYLET_PID`` in a process's environment, or None."""
    try:
        env = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    for item in env.split(b"\0"):
        if item.startswith(ENV_KEY) and item[len(ENV_KEY):].isdigit():
            return int(item[len(ENV_KEY):])
    return None


def ray_children(session: int) -> dict[int, int]:
    """Processes of session ``session`` that a raylet started, mapped to that raylet's pid."""
    out = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit() or int(d.name) == os.getpid():
            continue
        st = _stat(d.name)
        if st is None or st[0] in ("Z", "X") or int(st[3]) != session:
            continue
        raylet = _raylet_of(d.name)
        if raylet is not None:
            out[int(d.name)] = raylet
    return out


def _kill(pid: int) -> bool:
    try:
        os.kill(pid, signal.SIGKILL)
        return True
    except OSError:
        return False


def _start_time(pid: int) -> str | None:
    """Field 22 of /proc/PID/stat (start time in clock ticks since boot): with the pid, names one
    process for good (a pid is reused; the pair is not)."""
    st = _stat(pid)
    return st[19] if st is not None and len(st) > 19 else None


def children_of(parents: set[int]) -> dict[int, str]:
    """Live processes whose parent is in ``parents``, each with its start time."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit() and (st := _stat(d.name)) is not None and st[0] not in ("Z", "X") \
                and int(st[1]) in parents and len(st) > 19:
            out[int(d.name)] = st[19]
    return out


class Watch:
    """What the reaper knows of this instance: its heads (pid -> start time, as the harness named
    them) and every live descendant of a head it has seen (``look``). Ray does not set
    ``RAY_RAYLET_PID`` in every agent's environment (the dashboard and runtime-env agents lack it
    in some starts: the raylet starts them while it sets the variable for its workers), and
    once the raylet is dead its agents are children of init: the only record that they were the
    raylet's is one taken while it lived. So the reaper looks while it waits, and once more at
    end-of-file before it kills a head."""

    def __init__(self) -> None:
        self.heads: dict[int, str] = {}
        self.known: dict[int, str] = {}

    def look(self) -> None:
        """Add the live descendants of the heads and of the descendants already known (and forget
        the known that are gone: a worker per cell would otherwise pile up)."""
        self.known = {p: t for p, t in self.known.items() if _start_time(p) == t}
        while True:
            parents = {p for p, t in {**self.heads, **self.known}.items() if _start_time(p) == t}
            if not parents:  # nothing named yet (ray.init still starting): no need to read /proc
                return
            new = {p: t for p, t in children_of(parents).items() if self.known.get(p) != t and p not in self.heads}
            if not new:
                return
            self.known.update(new)

    def mine(self) -> dict[int, str]:
        """Heads and known descendants (pid -> start time)."""
        return {**self.known, **self.heads}


def reap(session: int, until: float, heads: dict[int, str] | None = None, known: dict[int, str] | None = None) -> int:
    """Kill this Ray instance's processes: ``heads`` and ``known`` (pid -> start time: what
    ``ray.init`` started, the raylet among them, as the harness reported them, and their
    descendants the reaper saw), then, in ``session``, every process a head started and every
    orphan of a dead raylet, until none is left (or ``until``, a monotonic time). The children of a
    live raylet that is not a head are left alone (another run in the same login session). A pid is
    killed only with its recorded start time (a pid is reused; the pair is not). Returns how many
    processes were killed."""
    heads = heads or {}
    named = {**(known or {}), **heads}
    killed = sum(_kill(pid) for pid, t in named.items() if _alive(pid) and _start_time(pid) == t)
    while True:
        found = ray_children(session)
        ours = [pid for pid, raylet in found.items() if raylet in heads or not _alive(raylet)]
        ours += [pid for pid, t in named.items() if _alive(pid) and _start_time(pid) == t]
        killed += sum(_kill(pid) for pid in ours)
        heads_alive = any(_alive(pid) and _start_time(pid) == t for pid, t in heads.items())
        # heads unknown (a kill during ray.init): a raylet may still be dying; look again until ``until``
        if not ours and not heads_alive and (heads or not found):
            return killed
        if time.monotonic() >= until:
            return killed
        time.sleep(POLL_S)


def _lines(data: bytes, watch: Watch) -> None:
    """Parse complete "PID START_TIME" lines into ``watch.heads`` (a torn line is ignored)."""
    for line in data.decode(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            watch.heads[int(parts[0])] = parts[1]


def main() -> None:
    """Read "PID START_TIME" lines (the instance's head processes) until end-of-file, looking at
    the heads' descendants every ``LOOK_S`` meanwhile; then look once more and reap."""
    for sig in (signal.SIGINT, signal.SIGHUP):  # a Ctrl-C, or the hang-up of an orphaned process group
        signal.signal(sig, signal.SIG_IGN)
    watch, buf = Watch(), b""
    while True:  # ends only when every writer (the harness) is gone
        ready, _, _ = select.select([0], [], [], LOOK_S)
        if ready:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            buf += chunk
            done, _, buf = buf.rpartition(b"\n")
            _lines(done, watch)
        watch.look()
    watch.look()  # a head still dying: its children are still its own
    reap(os.getsid(0), time.monotonic() + REAP_FOR_S, watch.heads, watch.known)


_STARTED: list[subprocess.Popen] = []  # held until the harness exits: its stdin must stay open until then


def start() -> subprocess.Popen:
    """Start the reaper for this process (once), before ``ray.init`` starts the raylet. Its pipe
    closes when this process exits, by any means: there is nothing to call at the end."""
    if _STARTED and _STARTED[0].poll() is None:
        return _STARTED[0]
    from harness.sandbox import procs
    proc = subprocess.Popen([sys.executable, "-I", str(Path(__file__).resolve())], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                            process_group=0)  # same session, own group: a Ctrl-C at the terminal is the harness's
    assert proc.stdin is not None
    procs.inherit_never(proc.stdin.fileno())  # a forked child holding it would keep the reaper waiting
    _STARTED[:] = [proc]
    return proc


def tell(pids: list[int]) -> None:
    """Name processes of this instance (its heads) to the reaper, each with its start time."""
    if not _STARTED or _STARTED[0].stdin is None:
        return
    lines = "".join(f"{pid} {t}\n" for pid in pids if (t := _start_time(pid)) is not None)
    try:
        _STARTED[0].stdin.write(lines.encode())
        _STARTED[0].stdin.flush()
    except OSError:  # the reaper is gone: nothing to tell
        pass


def tell_heads() -> None:
    """After ``ray.init``: name the processes it started (GCS, raylet, ...) to the reaper, so that
    at the harness's death it kills them and all they started even if they outlive the harness."""
    try:
        import ray
        node = ray._private.worker._global_node  # Ray's own record of the processes ray.init started
        pids: list[int] = [p.pid for _, p in node.live_processes()] if node is not None else []
    except Exception:  # a Ray without this private record: orphans of a dead raylet are still reaped
        return
    tell(pids)


if __name__ == "__main__":
    main()
