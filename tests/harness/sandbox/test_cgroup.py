"""A run's own cgroup (harness.sandbox.cgroup): made before the run, joined by its first process before any
code of the tree, limited (memory, processes), every process still in it killed at the run's end, then removed."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness.sandbox import cgroup, confine

SPAWN_DAEMON = ("import os, sys\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
                "        os.execv('/bin/sleep', ['sleep', '300'])\n    os._exit(0)\n")


def _only(roles: set[str]) -> cgroup.Support:
    """This machine's hierarchies that give one of ``roles`` (each kept with those roles only), or a skip."""
    sup = cgroup.support()
    kept = tuple(cgroup.Hierarchy(h.parent, h.version, h.roles & frozenset(roles)) for h in sup.hierarchies
                 if h.roles & roles)
    if not kept:
        pytest.skip(f"no cgroup hierarchy gives {sorted(roles)} here")
    return cgroup.Support(kept)


def _freezer_support() -> cgroup.Support:
    """The v1 freezer (the kill path of a machine without cgroup v2), probed here even where v2 gives cgroup.kill."""
    v1_own, _ = cgroup._own_groups()
    for mp, version, ctrls in cgroup._mounts():
        if version == 1 and "freezer" in ctrls and "freezer" in v1_own:
            parent = os.path.join(mp, v1_own["freezer"].lstrip("/"))
            if cgroup._probe(parent, 1, {"freeze"}):
                return cgroup.Support((cgroup.Hierarchy(parent, 1, frozenset({"freeze"})),))
    pytest.skip("no v1 freezer here")


def _run_in(group: cgroup.RunGroup, argv: list[str], out) -> int:
    """``argv`` run to its end in ``group`` (joined before exec, as a run's first process joins), its output to ``out``
    (a file: a pipe would stay open in what it leaves behind); its exit code."""
    fds = tuple(group.open())
    try:
        with open(out, "wb") as fh:
            proc = subprocess.Popen(argv, preexec_fn=lambda: confine.join_cgroups(fds), stdout=fh)
    finally:
        group.close_fds()
    return proc.wait(timeout=60)


@pytest.mark.parametrize("roles", [{"kill"}, {"freeze"}, {"memory", "pids"}], ids=["cgroup.kill", "freezer", "members"])
def test_a_daemon_in_its_own_session_is_killed_at_the_runs_end_and_the_groups_removed(roles, tmp_path):
    """Each way a run's end is made: v2 ``cgroup.kill``; v1 freeze, SIGKILL, thaw; and, with neither, each member
    signalled through a pidfd until the groups are empty."""
    sup = _freezer_support() if roles == {"freeze"} else _only(roles)
    group = cgroup.create(256, sup)
    assert group is not None
    try:
        assert _run_in(group, [sys.executable, "-I", "-c", SPAWN_DAEMON], tmp_path / "out") == 0
        daemons = group.members()
        assert daemons, "the daemon is in the run's group"
    finally:
        group.end()
    assert all(not os.path.exists(d) for d, _ in group.dirs)
    for pid in daemons:  # gone, or a zombie of init's on its way
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        assert state in ("Z", "X"), (pid, state)


def test_a_run_holds_no_more_shared_memory_than_its_group_allows(tmp_path):
    """memfd pages are charged to the group of the process that faults them: past the limit the writer gets
    ENOMEM or is killed, never holds them."""
    group = cgroup.create(64, _only({"memory"}))
    assert group is not None and group.memory_limit.startswith("cgroup-v")
    script = ("import os\nfd = os.memfd_create('m', 0)\nheld = 0\ntry:\n    for i in range(16):\n"
              "        os.write(fd, b'x' * (16 << 20))\n        held += 16\nexcept OSError:\n    pass\nprint(held)\n")
    try:
        rc = _run_in(group, [sys.executable, "-I", "-c", script], tmp_path / "out")
    finally:
        group.end()
    out = (tmp_path / "out").read_text()
    held = int(out.split()[0]) if out.strip() else 0
    assert held <= 64, (rc, held)


def test_a_run_starts_no_more_processes_than_its_group_allows(monkeypatch, tmp_path):
    monkeypatch.setattr(cgroup, "PIDS_MAX", 8)
    group = cgroup.create(256, _only({"pids"}))
    assert group is not None
    script = ("import os, time\nn = 0\nkids = []\nwhile n < 64:\n    try:\n        pid = os.fork()\n"
              "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n"
              "    kids.append(pid)\n    n += 1\nprint(n)\n")
    try:
        assert _run_in(group, [sys.executable, "-I", "-c", script], tmp_path / "out") == 0
    finally:
        group.end()  # the sleeping children too
    assert int((tmp_path / "out").read_text().split()[0]) < 8


def test_a_run_says_which_memory_limit_applied_and_leaves_no_group(tmp_path):
    from harness.sandbox.sandbox import Limits, run_confined
    r = run_confined(["/bin/true"], tmp_path, limits=Limits(memory_mb=256))
    assert r.returncode == 0, r.stderr
    assert r.extra["memory_limit"] == cgroup.memory_limit() in ("cgroup-v1", "cgroup-v2", "address-space")
    left = [n for h in cgroup.support().hierarchies for n in os.listdir(h.parent)
            if n.startswith(f"{cgroup.PREFIX}{os.getpid()}-")]
    assert not left


def test_without_cgroups_a_run_keeps_its_rlimits_and_says_so(tmp_path, monkeypatch):
    from harness.sandbox.sandbox import Limits, run_confined
    monkeypatch.setenv("HARNESS_CGROUP", "0")
    cgroup.support.cache_clear()
    try:
        assert cgroup.support().memory_limit == "address-space" and cgroup.create(256) is None
        r = run_confined([sys.executable, "-I", "-c", "b = bytearray(400 * 1024 * 1024)"], tmp_path,
                         limits=Limits(memory_mb=256))
    finally:
        monkeypatch.delenv("HARNESS_CGROUP")
        cgroup.support.cache_clear()
    assert r.extra["memory_limit"] == "address-space"
    assert r.returncode != 0 and "MemoryError" in r.stderr


def test_the_mounts_and_own_groups_are_read_from_proc():
    v1, v2 = cgroup._own_groups()
    mounts = cgroup._mounts()
    assert all(version in (1, 2) for _, version, _ in mounts)
    assert v2 is None or v2.startswith("/")
    assert all(p.startswith("/") for p in v1.values())


# red team atk11: at the levels with no cgroup namespace (basic, namespaces) the run's process saw /sys/fs/cgroup and,
# as root, wrote its own pid into the cgroup.procs of the hierarchy's root: it left the run's groups, so neither the
# memory and process limits nor the kill at the run's end reached it: 192 MB of memfd held under a 128 MB limit (basic,
# namespaces; without the move the run is killed), a setsid daemon alive after the run's end (basic; at namespaces its
# PID namespace ends it). Closed: the cgroup mounts are read-only in the run's own mount namespace (the namespace
# levels; at basic when the harness is root, a mount namespace for that alone and no capability past the exec:
# sandbox ``cgroup_mountpoints``); bwrap has no /sys. Each route is tried: every hierarchy's root (by its mount point,
# and through the parent's and init's /proc/PID/root, the host's mount namespace at basic), and the run's own group's
# memory limit raised.
_LEAVE_GROUPS = ("import os\nown = {}\nfor line in open('/proc/self/cgroup'):\n    hid, ctrls, path = line.rstrip().split(':', 2)\n"
                 "    for c in ctrls.split(',') if ctrls else ['']:\n        own[c] = path\n"
                 "def put(path, text):\n    try:\n        with open(path, 'w') as fh:\n            fh.write(text)\n"
                 "    except OSError:\n        pass\n"
                 "for line in open('/proc/self/mountinfo'):\n    left, _, right = line.partition(' - ')\n"
                 "    kind, mp = right.split()[0], left.split()[4]\n    if kind in ('cgroup', 'cgroup2'):\n"
                 "        mine = own.get('memory' if 'memory' in right.split()[2].split(',') else '', '')\n"
                 "        for name, text in (('memory.memsw.limit_in_bytes', '-1'), ('memory.limit_in_bytes', '-1'),\n"
                 "                           ('memory.max', 'max')):\n"
                 "            put(mp + mine + '/' + name, text)\n"
                 "        for root in (f'/proc/{os.getppid()}/root', '/proc/1/root', ''):\n"
                 "            put(root + mp + '/cgroup.procs', '0')\n")
_ESCAPED_DAEMON = _LEAVE_GROUPS + ("if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
                                   "        d = os.open('/dev/null', os.O_RDWR)\n        for i in (0, 1, 2):\n"
                                   "            os.dup2(d, i)\n        open('daemon.pid', 'w').write(str(os.getpid()))\n"
                                   "        os.execv('/bin/sleep', ['sleep', '300'])\n    os._exit(0)\n"
                                   "import time\nfor _ in range(100):\n    if os.path.exists('daemon.pid'):\n"
                                   "        break\n    time.sleep(0.05)\n")
_ESCAPED_MEMORY = _LEAVE_GROUPS + ("fds = []\nheld = 0\ntry:\n    for i in range(12):\n"
                                   "        fds.append(os.memfd_create('m', 0))\n"
                                   "        os.write(fds[-1], b'x' * (16 << 20))\n        held += 16\nexcept OSError:\n"
                                   "    pass\nprint(held)\n")  # (one 16 MB memfd each: under the file size limit)


def _escape_level(monkeypatch, level: str) -> None:
    from harness.sandbox.sandbox import confinement_level
    monkeypatch.setenv("HARNESS_CONFINEMENT", level)
    if not confinement_level().startswith(level) or not cgroup.support().has("memory"):
        pytest.skip(f"no level {level} with a memory cgroup here")


@pytest.mark.parametrize("level", ["basic"])  # (at namespaces the run's PID namespace ends the daemon with its first process)
def test_a_daemon_that_moves_itself_out_of_the_runs_groups_is_still_killed_at_the_runs_end(monkeypatch, tmp_path, level):
    from harness.sandbox.sandbox import Limits, run_confined
    _escape_level(monkeypatch, level)
    r = run_confined([sys.executable, "-I", "-c", _ESCAPED_DAEMON], tmp_path, limits=Limits(memory_mb=256),
                     writable=(tmp_path,))
    pid_file = tmp_path / "daemon.pid"
    if not pid_file.exists():
        pytest.fail(f"the daemon did not start: {r.returncode} {r.stderr[-2000:]}")
    pid = int(pid_file.read_text())
    try:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            state = "X"
        assert state in ("Z", "X"), f"the tree's daemon {pid} outlived its run ({state})"
    finally:
        try:
            os.kill(pid, 9)  # the daemon this test's run started
        except OSError:
            pass


@pytest.mark.parametrize("level", ["basic", "namespaces"])
def test_a_run_that_moves_itself_out_of_its_group_holds_no_more_memory_than_its_limit(monkeypatch, tmp_path, level):
    from harness.sandbox.sandbox import Limits, run_confined
    _escape_level(monkeypatch, level)
    r = run_confined([sys.executable, "-I", "-c", _ESCAPED_MEMORY], tmp_path, limits=Limits(memory_mb=128))
    held = int(r.stdout.split()[0]) if r.stdout.strip() else 0
    assert held <= 128, (r.returncode, held, r.stderr[-2000:])
