"""The history a confined run must not read: a plain clone's .git, and in a git worktree (where
.git is a file) the main repository's git directory that holds the worktree's history."""
from __future__ import annotations

import sys

import pytest

from harness.sandbox.sandbox import hidden_for


def test_a_clone_hides_its_git_directory(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "tasks").mkdir()
    assert hidden_for(tmp_path / "tasks") == (tmp_path / "tasks", tmp_path / ".git")


def test_a_worktree_hides_the_common_git_directory_not_its_git_file(tmp_path):
    main_git = tmp_path / "main" / ".git"
    wt_git = main_git / "worktrees" / "wt"
    wt_git.mkdir(parents=True)
    (wt_git / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    (wt / "tasks").mkdir(parents=True)
    (wt / ".git").write_text(f"gitdir: {wt_git}\n")
    assert hidden_for(wt / "tasks") == ((wt / "tasks").resolve(), main_git.resolve())


def test_a_relative_gitdir_without_commondir_is_hidden_itself(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: ../store\n")
    assert hidden_for(tmp_path / "sub") == ((tmp_path / "sub").resolve(), (tmp_path / "store").resolve())


def test_a_checkout_under_tmp_stays_visible_in_the_sandbox_view():
    """Each run gets a fresh /tmp; an allowed directory under /tmp (a clone or virtualenv there) is
    bound over it, not hidden by it (a fresh clone in /tmp made every sandboxed run fail)."""
    from harness.sandbox.confine import _code_dirs_under_tmp
    from harness.sandbox.sandbox import bwrap_view
    args = bwrap_view(writable=(), hide=())
    tmp = args.index("/tmp") - 1
    assert args[tmp] == "--tmpfs" and tmp < args.index("--ro-bind")
    import sys
    dirs = _code_dirs_under_tmp("/nonexistent-base")
    assert all(d.startswith("/tmp/") for d in dirs)
    assert (sys.prefix.startswith("/tmp/") and dirs) or not sys.prefix.startswith("/tmp/")


def test_a_confinement_that_fails_before_exec_says_why(monkeypatch, tmp_path):
    """subprocess reports a failing ``preexec_fn`` only as "Exception occurred in preexec_fn"; the confined
    child writes its exception to its stderr first, and ``run_confined`` raises with it (a cell voided by a
    harness error then names the cause in its record)."""
    import subprocess

    from harness.sandbox import confine
    from harness.sandbox.sandbox import Limits, run_confined

    def refuse(*_args, **_kwargs) -> None:
        raise ValueError("limit refused here")
    monkeypatch.setattr(confine, "set_limits", refuse)
    with pytest.raises(subprocess.SubprocessError, match=r"preexec_fn\. \(ValueError: limit refused here\)"):
        run_confined(["/bin/true"], tmp_path, limits=Limits())


def test_a_harness_whose_address_space_is_past_the_runs_memory_limit_still_starts_the_run(tmp_path, monkeypatch):
    """The cold path's child is a fork of the harness: a harness past the run's memory limit (threads'
    stacks and malloc arenas, Ray, a long pytest worker) made every allocation before exec fail
    (MemoryError: two A2 cells voided in a fresh clone's test-all). The address-space limit is set last,
    for the new image (confine ``limit_address_space``), and still binds it."""
    import mmap

    from harness.sandbox import confine
    from harness.sandbox.sandbox import Limits, run_confined

    keyrings = confine.deny_keyrings

    def allocating(libc) -> None:  # a step before exec that needs fresh memory (1 MiB: a new mapping)
        bytearray(1 << 20)
        keyrings(libc)
    monkeypatch.setattr(confine, "deny_keyrings", allocating)
    big = mmap.mmap(-1, 1 << 30)  # 1 GiB of address space here, never touched (no memory used)
    try:
        ok = run_confined(["/bin/true"], tmp_path, limits=Limits(memory_mb=256))
        script = "b = bytearray(400 * 1024 * 1024)"  # past the limit in the run itself
        over = run_confined([sys.executable, "-I", "-c", script], tmp_path, limits=Limits(memory_mb=256))
    finally:
        big.close()
    assert ok.returncode == 0, ok.stderr
    assert over.returncode != 0 and "MemoryError" in over.stderr, (over.returncode, over.stderr)


# -- red team atk10: a run's memory past its limit, a process past its run ------------------------------
# RLIMIT_AS (confine ``set_limits``/``limit_address_space``) bounds each process's address space, never the memory a
# run holds. Pages of a memfd, or of a file on the run's tmpfs /tmp or /dev/shm, are in no address space until mapped
# (each file is held below the file-size limit only), and every forked child has an address space of its own: with
# RLIMIT_AS alone a run held three times its limit and more, at every level, cold and warm. Each run now has a cgroup
# of its own (harness.sandbox.cgroup) whose memory limit the kernel charges all of it to, and whose processes are
# killed at the run's end; where none can be made (``memory_limit() == "address-space"``) these tests skip.
HOLD = {
    "memfds": ("import os\nfds = []\nfor i in range(24):\n    fd = os.memfd_create('m', 0)\n"
               "    os.write(fd, b'x' * (32 << 20))\n    fds.append(fd)\n"
               "held = sum(os.fstat(fd).st_size for fd in fds) >> 20\n"),
    "forked_children": ("import os\nr, w = os.pipe()\ngo_r, go_w = os.pipe()\nkids = []\nfor i in range(8):\n"
                        "    pid = os.fork()\n    if pid == 0:\n        os.close(r)\n        os.close(go_w)\n        b = b'x' * (96 << 20)\n"
                        "        os.write(w, b'1')\n        os.close(w)\n        os.read(go_r, 1)\n        os._exit(0)\n    kids.append(pid)\n"
                        "os.close(w)\nwhile len(os.read(r, 8)):\n    pass\nos.close(go_w)\n"
                        "held = 96 * sum(os.waitpid(pid, 0)[1] == 0 for pid in kids)\n"),
}
# A child counts when it exits 0: it held its 96 MB from before it wrote until the parent's go, sent once every
# child had written or ended, so every child that exits 0 held its memory at the same time. A child killed on the
# way (the kernel's OOM kill picks the largest process of the run, often one that had already written) held it
# for a while only.
HOLD_LIMIT_MB = 256


@pytest.fixture(params=["bwrap", "namespaces", "basic"])
def any_level(request, monkeypatch):
    from harness.sandbox import sandbox
    monkeypatch.setenv("HARNESS_CONFINEMENT", "" if request.param == "bwrap" else request.param)
    got = sandbox.confinement_level()
    if not got.startswith(request.param):
        pytest.skip(f"level {request.param} not available here (got {got})")
    return got


@pytest.fixture
def run_cgroups():
    """This machine gives each run a cgroup with a memory limit and an end (else the run keeps its rlimits alone)."""
    from harness.sandbox import cgroup
    if cgroup.memory_limit() == "address-space" or not (cgroup.support().has("kill") or cgroup.support().has("freeze")):
        pytest.skip("no cgroup can be made for a run here: its memory limit is RLIMIT_AS alone")


@pytest.mark.parametrize("how", sorted(HOLD))
def test_a_cold_run_holds_no_more_memory_than_its_limit(tmp_path, any_level, how, run_cgroups):
    from harness.sandbox.sandbox import Limits, run_confined
    r = run_confined([sys.executable, "-I", "-c", HOLD[how] + "print('HELD', held)\n"], tmp_path,
                     limits=Limits(timeout_s=120, memory_mb=HOLD_LIMIT_MB))
    if "HELD" not in r.stdout:  # refused before it held anything (a MemoryError, a killed run): the limit held
        return
    held = int(r.stdout.split("HELD", 1)[1].split()[0])
    assert held <= HOLD_LIMIT_MB, f"{any_level}: the run held {held} MB under a {HOLD_LIMIT_MB} MB limit"


def test_a_test_run_holds_no_more_memory_than_its_limit(tmp_path, executor, run_cgroups):
    from harness.judge.testrun import run_pytest
    from harness.sandbox.sandbox import Limits
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("def hold():\n" + "".join(
        f"    {line}\n" for line in HOLD["memfds"].splitlines()) + "    return held, fds\n")
    test = tmp_path / "test_hold.py"
    test.write_text(f"from pkg import hold\n\n\ndef test_hold():\n    held, fds = hold()\n    assert held > {HOLD_LIMIT_MB}\n")
    v = run_pytest(tree, test, dest_rel="tests/test_hold.py", judged=False,
                   limits=Limits(timeout_s=120, memory_mb=HOLD_LIMIT_MB))
    assert not v.passed, f"{executor}: the tree held more than {HOLD_LIMIT_MB} MB: {v.output}"


DAEMON = ("import os, sys\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
          "        os.execv('/bin/sleep', ['sleep', sys.argv[1]])\n    os._exit(0)\n")


def test_no_process_a_basic_level_run_started_outlives_it(tmp_path, monkeypatch, run_cgroups):
    """At bwrap and the namespaces levels the run's PID namespace ends with it (test_syscalls
    ``test_a_daemon_does_not_outlive_its_command``, test_agent_tree_attacks ``test_no_agent_process_outlives_its_command``);
    at basic, which has none, the run's cgroup does: everything still in it is killed at the run's end."""
    import os
    import secrets
    import signal
    import time
    from pathlib import Path

    from harness.sandbox import sandbox
    from harness.sandbox.sandbox import Limits, run_confined
    monkeypatch.setenv("HARNESS_CONFINEMENT", "basic")
    assert sandbox.confinement_level() == "basic"
    tag = f"{900 + secrets.randbelow(99)}.{secrets.randbelow(10**6):06d}"
    r = run_confined([sys.executable, "-I", "-c", DAEMON, tag], tmp_path, limits=Limits(timeout_s=60))
    assert r.returncode == 0, r.stderr
    alive: list[int] = []
    for _ in range(20):  # the daemon's exec of sleep may lag its parent's end
        alive = [int(p) for p in filter(str.isdigit, os.listdir("/proc"))
                 if _cmdline(Path(f"/proc/{p}/cmdline"))[:2] == [b"sleep", tag.encode()]]
        if alive:
            break
        time.sleep(0.05)
    for pid in alive:  # this test's own daemons: ended by their ids
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"{len(alive)} process(es) of the run outlived it at level basic"


def _cmdline(p) -> list[bytes]:
    try:
        return p.read_bytes().split(b"\0")
    except OSError:
        return []
