"""The reaper of a local Ray instance (harness.run.ray_reaper), without Ray: a stand-in harness
starts it, a stand-in raylet and its "agent" (a process with ``RAY_RAYLET_PID`` naming the raylet),
a head named to the reaper that outlives the harness with its worker, and a bystander whose
raylet stays alive; ``kill -9`` of the harness (and of the raylet, as its parent-death signal
would) must take the agent (Ray's own agents linger 60 s), the named head and its worker, and
leave the bystander alone."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from support.scripted import REPO

HARNESS = r"""
import os, subprocess, sys, time
from harness.run import ray_reaper
reaper = ray_reaper.start()
raylet = subprocess.Popen(["sleep", "600"])
live = subprocess.Popen(["sleep", "600"])
agent = subprocess.Popen(["sleep", "600"], env={**os.environ, "RAY_RAYLET_PID": str(raylet.pid)})
other = subprocess.Popen(["sleep", "600"], env={**os.environ, "RAY_RAYLET_PID": str(live.pid)})
slow = subprocess.Popen(["sleep", "600"])  # a head that does not die with the harness, named to the reaper
worker = subprocess.Popen(["sleep", "600"], env={**os.environ, "RAY_RAYLET_PID": str(slow.pid)})
ray_reaper.tell([slow.pid])
print(reaper.pid, raylet.pid, live.pid, agent.pid, other.pid, slow.pid, worker.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _wait_gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def test_kill_9_of_the_harness_takes_its_dead_raylets_children_and_only_them():
    proc = subprocess.Popen([sys.executable, "-c", HARNESS], env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        reaper, raylet, live, agent, other, slow, worker = map(int, proc.stdout.readline().split())
        fds = set()
        for fd in os.listdir(f"/proc/{reaper}/fd"):
            try:  # (a descriptor the reaper's start-up closed between the listing and this read)
                fds.add(os.readlink(f"/proc/{reaper}/fd/{fd}"))
            except FileNotFoundError:
                pass
        assert not any(x.endswith("run.lock") for x in fds)
        pgrp = int(Path(f"/proc/{reaper}/stat").read_text().rsplit(")", 1)[1].split()[2])
        assert pgrp != os.getpgid(proc.pid)  # a Ctrl-C (to the harness's process group) does not reach it
        os.kill(proc.pid, signal.SIGKILL)  # as kill -9 or the OOM killer would
        os.kill(raylet, signal.SIGKILL)  # ray.init's raylet dies with the harness (its parent-death signal)
        proc.wait()
        assert _wait_gone(agent, 15), "the dead raylet's child outlived the harness"
        assert _wait_gone(slow, 15) and _wait_gone(worker, 15), "a named head or its child outlived the harness"
        assert _alive(other) and _alive(live), "a child of a live raylet (another run) was killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # this test's own session, by its id


def test_reap_spares_a_live_raylets_children_and_takes_a_dead_ones():
    """(Other processes of this session may be a concurrent test's Ray: counts are lower bounds.)"""
    from harness.run import ray_reaper
    live = subprocess.Popen(["sleep", "600"])
    child = subprocess.Popen(["sleep", "600"], env={**os.environ, "RAY_RAYLET_PID": str(live.pid)})
    try:
        ray_reaper.reap(os.getsid(0), time.monotonic() + 0.3)
        assert _alive(child.pid)
        live.kill()
        live.wait()
        assert ray_reaper.reap(os.getsid(0), time.monotonic() + 5) >= 1
        assert _wait_gone(child.pid, 5)
    finally:
        for p in (live, child):
            p.kill()
            p.wait()


AGENTS = r"""
import os, subprocess, sys, time
from harness.run import ray_reaper
reaper = ray_reaper.start()
env = {k: v for k, v in os.environ.items() if k != "RAY_RAYLET_PID"}
raylet = subprocess.Popen(["sh", "-c", "read go; sleep 600 & echo $!; wait"], env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
ray_reaper.tell([raylet.pid])
print(reaper.pid, raylet.pid, flush=True)
sys.stdin.readline()
raylet.stdin.write("go\n")  # the stand-in raylet starts its agent after it was named (as Ray's may)
raylet.stdin.flush()
print(raylet.stdout.readline().strip(), flush=True)
time.sleep(600)
"""


def _start_time(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]


def test_an_agent_without_ray_raylet_pid_started_after_the_heads_were_named_dies_with_the_harness():
    """Ray's dashboard and runtime-env agents do not always carry ``RAY_RAYLET_PID`` (the kill
    campaign's "3 records" case: both outlived the harness by 30 s, the reaper having found
    neither). Here the stand-in raylet is the harness's own child, named to the reaper, and the
    agent is started by it after that (same session, no variable), and alive when the harness dies: the reaper must take the agent because it
    descends from a head it was told (the old reaper killed the head first, orphaning the agent)."""
    proc = subprocess.Popen([sys.executable, "-c", AGENTS],
                            env={**os.environ, "PYTHONPATH": str(REPO)}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        reaper, raylet = map(int, proc.stdout.readline().split())
        proc.stdin.write("go\n")
        proc.stdin.flush()
        agent = int(proc.stdout.readline())
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert _wait_gone(raylet, 15), "the named head outlived the harness"
        assert _wait_gone(agent, 15), "the head's agent outlived the harness"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)


def test_a_descendant_seen_while_its_raylet_lived_is_reaped_after_the_raylet_died_first():
    """The raylet dies before the reaper reads end-of-file (its parent-death signal): its agent,
    reparented to init and without ``RAY_RAYLET_PID``, is known only because ``Watch.look`` saw it
    as the raylet's child while the raylet lived."""
    from harness.run import ray_reaper
    raylet = subprocess.Popen(["sh", "-c", "sleep 600 & echo $!; wait"], stdout=subprocess.PIPE, text=True,
                              env={k: v for k, v in os.environ.items() if k != "RAY_RAYLET_PID"})
    agent = int(raylet.stdout.readline())
    try:
        watch = ray_reaper.Watch()
        watch.heads[raylet.pid] = _start_time(raylet.pid)
        watch.look()
        assert watch.known.get(agent) == _start_time(agent)
        raylet.kill()
        raylet.wait()
        assert _alive(agent)  # orphaned, not killed, as Ray's agents are
        ray_reaper.reap(os.getsid(0), time.monotonic() + 5, watch.heads, watch.known)
        assert _wait_gone(agent, 5)
    finally:
        for pid in (agent,):
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
