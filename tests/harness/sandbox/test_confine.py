"""harness.sandbox.confine: the seccomp filters every confined run gets.

The namespace rule (origin: red team r32c): a process of the agent's tree that makes its own user
and mount namespace bind-mounts the workspace under another path and edits or re-modes the visible
test through it, and the act record names the file by a path no reader ties to the workspace. Once
a run's own confinement is in place, no process of it can make a namespace or a mount: specified
here on the filter program itself (a small BPF reader, every call and ABI), and on real runs at
every confinement level, cold and warm, together with what an honest run still does (threads,
subprocesses).
"""
from __future__ import annotations

import ctypes
import errno
import os
import struct
from pathlib import Path

import pytest

from harness.core.tasks import load_task
from harness.sandbox import confine, sandbox
from harness.sandbox.sandbox import Limits, run_confined
from tests.harness.sandbox.test_syscalls import I386_STUB, LEVELS

TASKS = Path(__file__).resolve().parents[3] / "tasks"
X86_64, I386 = confine.AUDIT_ARCH_X86_64, confine.AUDIT_ARCH_I386
CLONE_NEWUSER, CLONE_NEWNS, CLONE_THREAD_FLAGS = 0x10000000, 0x00020000, 0x003D0F00  # the last: pthread_create's
SIGCHLD = 17


def verdict(prog, arch: int, nr: int, arg0: int = 0) -> str:
    """Run a seccomp BPF program (the four instructions the harness uses) on one call."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    acc, pc = 0, 0
    while True:
        code, jt, jf, k = prog[pc]
        if code == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            acc = struct.unpack_from("<I", data, k)[0]
        elif code == 0x15:  # BPF_JMP | BPF_JEQ | BPF_K
            pc += jt if acc == k else jf
        elif code == 0x25:  # BPF_JMP | BPF_JGT | BPF_K
            pc += jt if acc > k else jf
        elif code == 0x45:  # BPF_JMP | BPF_JSET | BPF_K
            pc += jt if acc & k else jf
        elif code == 0x06:  # BPF_RET | BPF_K
            return {confine.SECCOMP_RET_ALLOW: "allow", confine.SECCOMP_RET_ERRNO | confine.EPERM: "EPERM",
                    confine.SECCOMP_RET_ERRNO | confine.ENOSYS: "ENOSYS"}[k]
        else:
            raise AssertionError(f"unknown instruction {code:#x}")
        pc += 1


@pytest.mark.parametrize("arch,clone,unshare,setns,mount", [(X86_64, 56, 272, 308, 165), (I386, 120, 310, 346, 21)])
def test_the_namespace_filter_denies_every_way_to_a_namespace_or_a_mount(arch, clone, unshare, setns, mount):
    prog = confine.namespace_filter()
    for flags in (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUSER | CLONE_NEWNS, 0x40000000, 0x20000000, 0x02000000):
        assert verdict(prog, arch, clone, flags | SIGCHLD) == "EPERM"
        assert verdict(prog, arch, unshare, flags) == "EPERM"
    assert verdict(prog, arch, unshare, confine.CLONE_NEWTIME) == "EPERM"
    ptrace, vm_write = {X86_64: (101, 311), I386: (26, 348)}[arch]
    for nr in (setns, mount, ptrace, vm_write, *confine.NEW_MOUNT_API):
        assert verdict(prog, arch, nr) == "EPERM", nr
    assert verdict(prog, arch, confine.CLONE3) == "ENOSYS"  # the C library falls back to clone


@pytest.mark.parametrize("arch,clone,unshare", [(X86_64, 56, 272), (I386, 120, 310)])
def test_the_namespace_filter_allows_what_an_honest_run_does(arch, clone, unshare):
    prog = confine.namespace_filter()
    assert verdict(prog, arch, clone, SIGCHLD) == "allow"  # fork
    assert verdict(prog, arch, clone, CLONE_THREAD_FLAGS) == "allow"  # a thread
    assert verdict(prog, arch, clone, 0x4111) == "allow"  # vfork-style posix_spawn: CLONE_VM | CLONE_VFORK | SIGCHLD
    assert verdict(prog, arch, unshare, 0x00000400 | 0x00000200) == "allow"  # CLONE_FILES | CLONE_FS
    for nr in (0, 1, 2, 3, 59, 60, 257):
        assert verdict(prog, arch, nr) == "allow"
    assert verdict(prog, 0xC00000B7, 97) == "allow"  # another architecture (aarch64's unshare): not named here


def test_the_base_filter_leaves_only_calls_the_record_can_name():
    """Every confined run (and the tracer around it) gets ``keyring_filter``: a number Debian 12's
    strace cannot name, the whole i386 ABI and any other architecture fail with ENOSYS (as on a
    kernel without them: the C library falls back), x32 and the keyring and io_uring calls with EPERM
    (red team r32atk3: truncate64 by int 0x80, setxattrat 463, removexattrat 466)."""
    prog = confine.keyring_filter()
    for nr in (451, 452, 453, 457, 462, 463, 464, 466, 467, 500, 547, 1000, 0xFFFF):
        assert verdict(prog, X86_64, nr) == "ENOSYS", nr
    for nr in (335, 400, 423):  # the gap between rseq and pidfd_send_signal
        assert verdict(prog, X86_64, nr) == "ENOSYS", nr
    for nr in (0, 1, 2, 5, 20, 90, 193, 194, 198, 212, 226, 334, 120, 1, 59):  # i386: truncate64, chown32...
        assert verdict(prog, I386, nr) == "ENOSYS", nr
    assert verdict(prog, 0xC00000B7, 56) == "ENOSYS"  # aarch64's openat: not this kernel's, never allowed
    for nr in (248, 249, 250, 425, 426, 427, confine.X32_SYSCALL_BIT | 2, confine.X32_SYSCALL_BIT | 520):
        assert verdict(prog, X86_64, nr) == "EPERM", nr
    for nr in (0, 1, 2, 56, 57, 59, 76, 90, 188, 257, 322, 334, 424, 428, 435, 436, 439, 441, 450):
        assert verdict(prog, X86_64, nr) == "allow", nr


def test_the_strace_here_names_every_number_the_base_filter_allows():
    """``HIGHEST_NAMED`` is the top of the installed strace's x86-64 table: it names 450
    (set_mempolicy_home_node), every allowed number below (the table is dense there, the gap denied),
    and the traced act calls; an older strace would leave an allowed call it cannot trace by name."""
    import subprocess

    from harness.sandbox import syscalls
    binary = syscalls.strace_binary()
    if binary is None:
        pytest.skip("strace cannot trace here")
    assert confine.HIGHEST_NAMED == 450
    for names in (("set_mempolicy_home_node", "futex_waitv", "openat2", "pidfd_getfd", "mount_setattr"), syscalls.TRACED):
        r = subprocess.run([binary, "-qq", "-e", "trace=" + ",".join(names), "-o", os.devnull, "true"],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr


# == on real runs ==============================================================================
ATTEMPTS = ("import ctypes, os, subprocess, threading\n"
            "OUT = []\n"
            "def say(*a):\n"
            "    OUT.append(' '.join(a))\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "def err(rc):\n"
            "    return 'ok' if rc == 0 else os.strerror(ctypes.get_errno())\n"
            "say('unshare-user', err(libc.unshare(0x10000000 | 0x20000)))\n"
            "say('unshare-ns', err(libc.unshare(0x20000)))\n"
            "say('mount', err(libc.mount(b'none', b'/', None, 0x4000 | (1 << 18), None)))\n"
            "r = subprocess.run(['unshare', '--user', '--map-root-user', 'true'], capture_output=True)\n"
            "say('unshare-binary', 'ok' if r.returncode == 0 else 'refused')\n"
            "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
            "say('thread ok')\n"
            "say('subprocess', subprocess.run(['sh', '-c', 'echo hi'], capture_output=True, text=True).stdout.strip())\n"
            # the base filter: an i386 call by int 0x80 (getpid; a kernel without the ABI kills the child) and
            # setxattrat (463, a number Debian 12's strace cannot name) fail with ENOSYS (red team r32atk3)
            "import sys\n"
            f"r = subprocess.run([sys.executable, '-c', {I386_STUB + 'print(i386(20, 0, 0, 0))'!r}], capture_output=True, text=True)\n"
            "say('i386', 'refused' if r.stdout.strip() in ('-38', '') else r.stdout.strip())\n"
            "say('unnamed', str(libc.syscall(463, -100, b'.', 0, b'user.k', None, 0)), str(ctypes.get_errno()))\n")
REFUSED = {"unshare-user": "Operation not permitted", "unshare-ns": "Operation not permitted",
           "mount": "Operation not permitted", "unshare-binary": "refused", "thread": "ok", "subprocess": "hi",
           "i386": "refused", "unnamed": "-1 38"}


def _lines(out: str) -> dict:
    return dict(line.split(" ", 1) for line in out.strip().splitlines())


@pytest.fixture(params=LEVELS)
def level(request, monkeypatch):
    cap = "" if request.param == "bwrap" else request.param
    monkeypatch.setenv("HARNESS_CONFINEMENT", cap)
    got = sandbox.confinement_level()
    if not got.startswith(request.param):
        pytest.skip(f"level {request.param} not available here (got {got})")
    return got


def test_a_confined_command_makes_no_namespace_and_no_mount_at_every_level(level, tmp_path):
    """Cold (run_confined: an agent's command, a cold test run)."""
    (tmp_path / "a.py").write_text(ATTEMPTS + "print('\\n'.join(OUT))\n")
    r = run_confined(["python3", "a.py"], tmp_path, writable=(tmp_path,), limits=Limits(timeout_s=60))
    assert r.returncode == 0, r.stderr
    assert _lines(r.stdout) == REFUSED, r.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="the warm zygote needs root")
def test_a_warm_test_run_makes_no_namespace_and_no_mount_at_every_level(level, tmp_path, monkeypatch):
    """Warm (the zygote's fork: harness.sandbox.warm._become_run), through the harness's test runner."""
    from harness.judge.testrun import run_pytest
    from harness.sandbox import warm
    from harness.sandbox.workspace import Workspace
    monkeypatch.setenv("HARNESS_WARM", "1")
    warm.stop()  # a zygote of this level (one another level's case started fails this one's set-up: it would run cold)
    ran_warm = warm.STATS["warm"]
    test = tmp_path / "t.py"
    test.write_text(ATTEMPTS + f"\n\ndef test_refused():\n    assert dict(x.split(' ', 1) for x in OUT) == {REFUSED!r}\n")
    ws = Workspace.create(load_task(TASKS / "parse-range"))
    try:
        v = run_pytest(ws.root, test, dest_rel="tests/test_ns.py", hide=(TASKS,))
    finally:
        ws.destroy()
    assert v.passed, v.output
    assert level == "basic" or warm.STATS["warm"] > ran_warm, "the warm case ran cold"  # (basic has no warm path)


# == what uid 0 without capabilities still reaches ===============================================
# At the namespace levels (and in the warm zygote's runs) a run is uid 0 with no capability: the kernel's own
# settings under /proc/sys (core_pattern: a helper the kernel runs as root outside every namespace on the next
# crash), /proc/sysrq-trigger, sysfs attributes (uevent_helper) and root-only device nodes (a raw disk, kmsg) check
# the uid, not a capability. bubblewrap covers /proc/sys, sysrq-trigger, irq and bus read-only, gives a /dev of its
# own and no /sys; every level must. Each surface is only opened for writing, never written: an open that succeeds
# is the hole. (Found by helper cg9 while closing red team atk11's cgroup escape.)
def _surfaces() -> list[str]:
    found = ["/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger"]
    found += [p for p in ("/sys/kernel/uevent_helper", "/sys/kernel/mm/transparent_hugepage/enabled",
                          "/sys/kernel/profiling") if os.path.exists(p)][:1]
    found += [p for p in ("/dev/sda", "/dev/vda", "/dev/nvme0n1", "/dev/loop0") if os.path.exists(p)][:1]
    found += [p for p in ("/dev/kmsg", "/dev/mem") if os.path.exists(p)]
    return found


SURFACES_OPENED = ("import os, sys\n"
                   "for p in sys.argv[1:]:\n"
                   "    try:\n"
                   "        os.close(os.open(p, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK))\n"
                   "        print('opened', p)\n"
                   "    except OSError as e:\n"
                   "        print('refused', p, e.errno)\n")


def _kernel_level(level: str) -> None:
    if level == "basic" and os.geteuid() == 0:
        pytest.skip("level basic as root is not a boundary (docs/reference/trust-model.md): the run is uid 0 on the "
                    "host's own mounts")


def test_a_confined_run_opens_no_kernel_setting_sysfs_attribute_or_raw_device_for_writing(level, tmp_path):
    """Cold (run_confined) at every level."""
    _kernel_level(level)
    r = run_confined(["python3", "-c", SURFACES_OPENED, *_surfaces()], tmp_path, writable=(tmp_path,),
                     limits=Limits(timeout_s=60))
    assert r.returncode == 0, r.stderr
    assert "opened" not in r.stdout and r.stdout.count("refused") == len(_surfaces()), r.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="the warm zygote needs root")
def test_a_warm_test_run_opens_no_kernel_setting_sysfs_attribute_or_raw_device_for_writing(level, tmp_path, monkeypatch):
    """Warm (the zygote's fork mounts its run's own /proc: harness.sandbox.warm._become_run)."""
    from harness.judge.testrun import run_pytest
    from harness.sandbox import warm
    from harness.sandbox.workspace import Workspace
    _kernel_level(level)
    monkeypatch.setenv("HARNESS_WARM", "1")
    warm.stop()
    ran_warm = warm.STATS["warm"]
    test = tmp_path / "t.py"
    test.write_text("import os\n\n\ndef test_refused():\n    opened = []\n"
                    f"    for p in {_surfaces()!r}:\n        try:\n"
                    "            os.close(os.open(p, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK))\n"
                    "            opened.append(p)\n        except OSError:\n            pass\n    assert opened == []\n")
    ws = Workspace.create(load_task(TASKS / "parse-range"))
    try:
        v = run_pytest(ws.root, test, dest_rel="tests/test_kernel.py", hide=(TASKS,), judged=False)
    finally:
        ws.destroy()
    assert v.passed, v.output
    assert warm.STATS["warm"] > ran_warm, "the warm case ran cold"


def in_a_mount_namespace(step) -> str:
    """``step(libc)`` run in a forked child that has made a private mount namespace of its own (its mounts end with
    it); what it returns, or the exception it raised as "Type: message", read back by the parent."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            confine._check(libc, libc.unshare(confine.CLONE_NEWNS), "unshare")
            confine._check(libc, libc.mount(b"none", b"/", None, confine.MS_REC | confine.MS_PRIVATE, None), "private")
            out = step(libc)
        except BaseException as exc:  # noqa: BLE001 - reported to the parent
            out = f"{type(exc).__name__}: {exc}"
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        got = f.read()
    os.waitpid(pid, 0)
    return got


@pytest.mark.skipif(os.geteuid() != 0, reason="making a mount namespace needs root here")
def test_a_mount_unmounted_after_the_list_was_read_is_skipped_and_the_rest_are_read_only(tmp_path):
    """``VANISHED_MOUNT_RULE``: a mount point of the harness's list that is gone from the run's namespace (a parallel
    test's tmpfs unmounted meanwhile; here a path that never was one, and one that no longer exists) is skipped; every
    other listed mount is still remounted read-only (a write there fails), and the writable directory stays writable."""
    kept, gone, writable = tmp_path / "kept", tmp_path / "gone", tmp_path / "w"
    for d in (kept, gone, writable):
        d.mkdir()

    def step(libc) -> str:  # (kept: a mount of this test's own)
        confine._check(libc, libc.mount(b"tmpfs", str(kept).encode(), b"tmpfs", 0, b"size=64k"), "tmpfs")
        confine.isolate(libc, hide=[], writable=[str(writable)],
                        readonly=["/", str(gone), str(tmp_path / "never-made"), str(kept)])
        try:
            (kept / "x").write_text("x")
            out = "kept writable"
        except OSError as exc:
            out = "ok" if exc.errno == errno.EROFS else f"kept: {exc}"
        (writable / "x").write_text("x")
        return out

    got = in_a_mount_namespace(step)
    assert got == "ok", got


def test_the_mount_table_reads_a_mount_point_with_every_escaped_character_as_its_path(tmp_path):
    """``mount_table``, the sandbox's one reader of /proc/self/mountinfo: the kernel writes a space, tab, newline
    and backslash of a mount point as an octal escape; each reads back as the character, so the read-only list,
    the cgroup mounts and ``VANISHED_MOUNT_RULE`` name the real path (a misread one fails its remount)."""
    table = tmp_path / "mountinfo"
    table.write_text(
        "22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
        "30 22 0:25 / /mnt/a\\040b\\011c\\012d\\134e\\134040 rw master:3 - tmpfs none rw,size=4k\n"
        "31 22 0:26 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
        "not a mount line\n")
    assert confine.mount_table(str(table)) == [
        confine.Mount("/", "ext4", "rw"),
        confine.Mount("/mnt/a b\tc\nd\\e\\040", "tmpfs", "rw,size=4k"),
        confine.Mount("/sys/fs/cgroup/memory", "cgroup", "rw,memory")]

