"""The confinement steps a child process takes before it runs model-influenced code.

Shared by the cold path (``sandbox._preexec``, between fork and exec) and the warm path
(``warm._child_setup``, in the zygote's fork), so the two cannot drift apart. It imports only
the standard library (``os``, ``ctypes``, ``resource``; ``socket``, ``fcntl`` and ``struct`` to
bring up loopback): the warm zygote loads it as a top-level module and must stay minimal (its own
modules are forgotten before pytest runs).
"""
from __future__ import annotations

import ctypes
import errno
import os
import re
import resource
from typing import NamedTuple

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC = 0x00020000, 0x40000000, 0x20000000, 0x08000000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 32, 4096, 0x4000, 1 << 18


def _check(libc, rc: int, what: str) -> None:
    if rc != 0:
        raise OSError(ctypes.get_errno(), what)


def join_cgroups(fds) -> None:
    """This process into the run's own cgroups (harness.sandbox.cgroup): ``0`` (the writer itself) written
    to each group's ``cgroup.procs``, a descriptor the harness opened. The first step, before any limit and
    before any code of the tree: every process the run starts is then in the groups."""
    for fd in fds:
        os.write(fd, b"0")


def set_limits(memory_mb: int, cpu_s: int, file_mb: int, *, address_space: bool = True) -> None:
    """A new session, then address-space, CPU, file-size and core limits. ``address_space=False`` leaves
    the address-space limit to ``limit_address_space``, for a child that execs next (the cold path)."""
    os.setsid()
    if address_space:
        limit_address_space(memory_mb)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
    fsz = file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (fsz, fsz))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def limit_address_space(memory_mb: int) -> None:
    """RLIMIT_AS at ``memory_mb``. A child forked from the harness (the cold path) is a copy of the
    harness's address space, which can be larger than a run's limit (its threads' stacks and malloc
    arenas, its libraries); under a limit below it every allocation fails (MemoryError), so the cold path
    sets it last, after the steps that allocate, just before exec: it binds the new image, which starts
    small. The warm path's child runs pytest in the zygote's own (small) image and sets it first."""
    mem = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))


# The kernel's key-retention service is not namespaced by any namespace a run gets: the user
# keyring of a uid is one for every run of that uid, so a key one run adds (add_key) is read by a
# later run, another cell's included (request_key/keyctl). io_uring does file I/O from kernel
# workers, outside the system calls the act recorder (harness.sandbox.syscalls) traces, so an
# edit through it would leave no record: io_uring_setup/enter/register are denied too. Every
# confined run is denied these system calls by a seccomp filter (EPERM).
# The record is complete by construction: a call strace cannot name is a call it cannot trace by
# name, and one that no reader reads (red team r32: fchmodat2; r32atk3: setxattrat 463 and
# removexattrat 466, printed as ``syscall_0x1cf``). Debian 12's strace (6.1) names the x86-64
# table up to 450 (set_mempolicy_home_node); every higher number (cachestat, fchmodat2,
# map_shadow_stack, futex_wake.., statmount, mseal, setxattrat.., and whatever a later kernel adds)
# and the gap 335-423 (no x86-64 call there) fail with ENOSYS, the answer of a kernel without them:
# a C library that tries a newer call first falls back to an older one, which is traced. The i386
# ABI (``int 0x80`` from a 64-bit process) has its own table, whose names (truncate64, chown32,
# fchown32..) are not the trace set's: it fails whole with ENOSYS, as x32 fails with EPERM. No
# honest run needs either (a 64-bit userland: Python, the C library, bash, git, pytest; an i386
# binary has no i386 libraries to load here). A process of any other architecture cannot run on
# this kernel; the filter answers it ENOSYS all the same (fail closed).
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO, EPERM, ENOSYS = 0x7FFF0000, 0x00050000, 1, 38
HIGHEST_NAMED = 450  # set_mempolicy_home_node: the highest x86-64 number Debian 12's strace names
UNNAMED_GAP = (335, 423)  # rseq (334) .. pidfd_send_signal (424): no x86-64 call has these numbers
AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, X32_SYSCALL_BIT = 0xC000003E, 0x40000003, 0x40000000
IO_URING_SYSCALLS = (425, 426, 427)  # io_uring_setup, io_uring_enter, io_uring_register
KEYRING_SYSCALLS = (248, 249, 250, *IO_URING_SYSCALLS)  # add_key, request_key, keyctl (x86-64)
_LD_W_ABS, _JEQ_K, _JGT_K, _JSET_K, _RET_K = 0x20, 0x15, 0x25, 0x45, 0x06


def keyring_filter() -> list[tuple[int, int, int, int]]:
    """The seccomp BPF program (code, jt, jf, k): on x86-64, add_key, request_key, keyctl and the
    io_uring calls fail with EPERM, and so does every x32 call; every number past ``HIGHEST_NAMED``
    or in ``UNNAMED_GAP`` fails with ENOSYS, and so does every i386 call and every other
    architecture's; every other x86-64 call is allowed."""
    prog: list[tuple] = [(_LD_W_ABS, 0, 0, 4)]  # seccomp_data.arch
    prog.append((_JEQ_K, 0, "nosys", AUDIT_ARCH_X86_64))  # i386 (int 0x80) and anything else: ENOSYS
    prog.append((_LD_W_ABS, 0, 0, 0))  # seccomp_data.nr
    prog.append((_JSET_K, "deny", 0, X32_SYSCALL_BIT))
    prog.append((_JGT_K, "nosys", 0, HIGHEST_NAMED))
    prog.append((_JGT_K, "known", 0, UNNAMED_GAP[1]))
    prog.append((_JGT_K, "nosys", "known", UNNAMED_GAP[0] - 1))
    prog.append(("label known",))
    for i, nr in enumerate(KEYRING_SYSCALLS):
        prog.append((_JEQ_K, "deny", "allow" if i == len(KEYRING_SYSCALLS) - 1 else 0, nr))
    return _assemble(prog)


# A process of the agent's tree that makes its own user and mount namespace (unshare needs no
# capability for a user namespace) gets every capability there, bind-mounts the workspace under
# another path and edits or re-modes the visible test through it: strace names the file by the
# path of the tracee's namespace, so no reader of the act record ties the edit to the visible test
# (red team r32c). No confined run needs a namespace or a mount of its own (the harness makes the
# run's namespaces before this filter is installed), so, once the run's own confinement is in
# place, every confined run is denied: clone and unshare with any namespace flag, setns, mount,
# umount, pivot_root and the new mount API (EPERM), and clone3 (ENOSYS: its flags sit in memory a
# filter cannot read; a C library falls back to clone, whose flags it can). ptrace and
# process_vm_writev are denied too: a child made with clone(CLONE_UNTRACED) is not followed by
# strace, and its parent, tracing it itself and letting every seccomp stop run, made it act with no
# record (red team r32c); without a tracer such a child's traced calls fail (ENOSYS).
NAMESPACE_FLAGS = 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00020000
CLONE_NEWTIME = 0x00000080  # unshare only: in clone's flags that bit is part of the exit signal
NEW_MOUNT_API = (428, 429, 430, 431, 432, 433, 442)  # open_tree .. fspick, mount_setattr (one number on both ABIs)
CLONE3 = 435
NAMESPACE_SYSCALLS = {  # (clone, unshare, (always denied...)): setns, mount, umount(2), pivot_root, ptrace,
    # process_vm_writev, then the new mount API
    AUDIT_ARCH_X86_64: (56, 272, (308, 165, 166, 155, 101, 311, *NEW_MOUNT_API)),
    AUDIT_ARCH_I386: (120, 310, (346, 21, 22, 52, 217, 26, 348, *NEW_MOUNT_API)),
}


def namespace_filter() -> list[tuple[int, int, int, int]]:
    """The seccomp BPF program (code, jt, jf, k) of the rule above, for x86-64 and i386 (x32 is
    denied whole by ``keyring_filter``); every other call, and every other architecture's, is allowed."""
    prog: list[tuple] = [(_LD_W_ABS, 0, 0, 4)]  # seccomp_data.arch
    for arch, (clone, unshare, always) in NAMESPACE_SYSCALLS.items():
        prog.append((_JEQ_K, 0, f"next-{arch}", arch))
        prog.append((_LD_W_ABS, 0, 0, 0))  # seccomp_data.nr
        prog.append((_JEQ_K, "nosys", 0, CLONE3))
        prog.append((_JEQ_K, f"clone-{arch}", 0, clone))
        prog.append((_JEQ_K, f"unshare-{arch}", 0, unshare))
        for i, nr in enumerate(always):
            prog.append((_JEQ_K, "deny", "allow" if i == len(always) - 1 else 0, nr))
        prog.append((f"label clone-{arch}",))
        prog.append((_LD_W_ABS, 0, 0, 16))  # the low word of seccomp_data.args[0]: the flags
        prog.append((_JSET_K, "deny", "allow", NAMESPACE_FLAGS))
        prog.append((f"label unshare-{arch}",))
        prog.append((_LD_W_ABS, 0, 0, 16))
        prog.append((_JSET_K, "deny", "allow", NAMESPACE_FLAGS | CLONE_NEWTIME))
        prog.append((f"label next-{arch}",))
    return _assemble(prog)


def _assemble(prog: list[tuple]) -> list[tuple[int, int, int, int]]:
    """Resolve the labels of ``prog`` (``("label NAME",)`` entries; a jump target may be a label's
    name or an offset) and append the three verdicts: allow, deny (EPERM), nosys (ENOSYS)."""
    prog = [*prog, ("label allow",), (_RET_K, 0, 0, SECCOMP_RET_ALLOW), ("label deny",),
            (_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM), ("label nosys",), (_RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS)]
    labels: dict[str, int] = {}
    out: list[tuple] = []
    for ins in prog:
        if isinstance(ins[0], str):
            labels[ins[0][6:]] = len(out)
        else:
            out.append(ins)

    def rel(target, at):
        return target if isinstance(target, int) else labels[target] - at - 1
    return [(c, rel(jt, i), rel(jf, i), k) for i, (c, jt, jf, k) in enumerate(out)]


def deny_keyrings(libc) -> None:
    """Install ``keyring_filter`` in this process (inherited by every child and across exec).
    Without CAP_SYS_ADMIN the kernel wants no_new_privs first (the confined command gets it anyway)."""
    _install(libc, keyring_filter())


def deny_namespaces(libc) -> None:
    """Install ``namespace_filter`` in this process: the last step of a run's confinement, after
    its own namespaces and mounts are made (the warm path: ``warm._become_run``; the cold path: the
    ``NAMESPACE_SHIM`` the launcher execs the command through)."""
    _install(libc, namespace_filter())


def packed(filt: list[tuple[int, int, int, int]]) -> bytes:
    """The filter as the kernel reads it: struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}."""
    import struct
    return b"".join(struct.pack("HBBI", c, jt, jf, k) for c, jt, jf, k in filt)


def _install(libc, filt: list[tuple[int, int, int, int]]) -> None:
    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    code = packed(filt)
    buf = ctypes.create_string_buffer(code, len(code))
    prog = SockFprog(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))
    pr_set_seccomp, seccomp_mode_filter, pr_set_no_new_privs = 22, 2, 38
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0) != 0:
        _check(libc, libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")
        _check(libc, libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0),
               "prctl(PR_SET_SECCOMP)")


# The cold path's last step at the namespaces and basic levels (bubblewrap installs the same filter
# itself: sandbox.filter_fd): the launcher (unshare) has made the run's namespaces and mounts; this interpreter (``python -I -S -c NAMESPACE_SHIM PROGRAM ARGV...``)
# sets no_new_privs (the launcher has, at every level but basic), installs the filter program given in
# hex (``namespace_filter``, packed by ``packed``: nothing is read from a file the sandbox may not
# show) and execs the command; a filter the kernel refuses ends the run (exit 126), never unfiltered.
# It runs inside the act recorder's strace, which must itself keep ptrace: the filter is never
# installed in the process that becomes strace.
NAMESPACE_SHIM = ("import ctypes, os, sys\n"
                  "class P(ctypes.Structure):\n"
                  "    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]\n"
                  "code = bytes.fromhex(sys.argv[1])\n"
                  "buf = ctypes.create_string_buffer(code, len(code))\n"
                  "libc = ctypes.CDLL(None, use_errno=True)\n"
                  "libc.prctl(38, 1, 0, 0, 0)\n"
                  "if libc.prctl(22, 2, ctypes.byref(P(len(code) // 8, ctypes.cast(buf, ctypes.c_void_p))), 0, 0) != 0:\n"
                  "    sys.stderr.write('confinement: the namespace filter could not be installed\\n')\n"
                  "    os._exit(126)\n"
                  "os.execvp(sys.argv[2], sys.argv[2:])\n")


PROC_RULE = """A confined run is uid 0 without capabilities at the namespace levels and at bwrap as root, and the kernel
checks only the uid, not a capability, for much of what /proc, /sys and /dev offer: a sysctl such as
/proc/sys/kernel/core_pattern (a helper the kernel runs as root in the host's namespaces on the next crash),
/proc/sysrq-trigger, sysfs attributes (uevent_helper), root-only device nodes (a raw disk, /dev/kmsg). So at every
level a run's /proc is mounted read-only (its own PID namespace's: ``proc_argv`` cold at the namespace levels,
harness.sandbox.warm ``_become_run`` warm, bubblewrap's ``--remount-ro /proc``), it has no /sys (bubblewrap) or an empty
read-only one (``isolate``), and a /dev of its own holding ``DEV_NODES`` only (bubblewrap's ``--dev``, ``fresh_dev``).
A process's own /proc files it would write (``/proc/self/oom_score_adj``, ``comm``) refuse with EROFS; its descriptors'
links (``/proc/self/fd/N``, ``/dev/stdout``) still open the files they lead to. Level basic as root is not a boundary
(docs/reference/trust-model.md)."""

PROC_SHIM = ("import ctypes, os, sys\n"
             "libc = ctypes.CDLL(None, use_errno=True)\n"
             "libc.mount(b'none', b'/proc', None, 0x4000 | (1 << 18), None)\n"
             "if libc.mount(b'proc', b'/proc', b'proc', 1 | 2 | 4 | 8, None) != 0:\n"
             "    sys.stderr.write('confinement: the run\\'s /proc could not be mounted read-only: '\n"
             "                     + os.strerror(ctypes.get_errno()) + '\\n')\n"
             "    os._exit(126)\n"
             "os.execvp(sys.argv[1], sys.argv[1:])\n")


def proc_argv(python: str) -> list[str]:
    """The cold namespace levels' step between ``unshare --pid --fork`` and the privilege drop: as pid 1 of the run's
    PID namespace, with its capabilities still, mount that namespace's /proc read-only (MS_RDONLY, nosuid, nodev,
    noexec; ``PROC_RULE``), then exec the rest of the command line."""
    return [python, "-I", "-S", "-c", PROC_SHIM]


def shim_argv(python: str, argv: list[str]) -> list[str]:
    """``argv`` exec'd through ``NAMESPACE_SHIM`` by ``python`` (the cold path's last launcher step)."""
    return [python, "-I", "-S", "-c", NAMESPACE_SHIM, packed(namespace_filter()).hex(), *argv]


def isolate(libc, *, hide, writable, readonly, flags: int = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC,
            fresh_tmp: bool = False, binds=(), home=None) -> None:
    """Private mount, network and IPC namespaces (System V IPC and POSIX message queues: nothing
    one run leaves there reaches a later run); every hidden dir covered by an unreadable tmpfs;
    only the writable dirs writable (bind-mounted onto themselves), every other mount remounted
    read-only so a test run cannot write the live workspace, the harness, site-packages, /dev or
    /dev/shm. ``binds``: (source, destination) pairs, each source (a writable scratch directory)
    also shown at its destination (``bind_at``). ``home``: (source, destination): the run's home
    directory (a writable scratch directory) shown at a user's home path (``show_home``).
    Any step that fails raises: a half-confined run is never started."""
    _check(libc, libc.unshare(flags), "unshare failed")
    _check(libc, libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate failed")
    bind_fds = [os.open(src, os.O_PATH | os.O_DIRECTORY) for src, _ in binds]  # before any cover
    for d in hide:
        _check(libc, libc.mount(b"tmpfs", d.encode(), b"tmpfs", 0, b"size=4k,mode=000"), f"hiding {d} failed")
    if fresh_tmp:  # the warm path: this run's own /tmp (nothing another run left or leaves there)
        _fresh_tmp(libc, [w for w in writable if _under(w, "/tmp")], base="/tmp/.none")
        writable = [w for w in writable if not _under(w, "/tmp")]
    for w in writable:
        _check(libc, libc.mount(w.encode(), w.encode(), None, MS_BIND | MS_REC, None), f"bind {w} failed")
    bind_at(libc, [dst for _, dst in binds], bind_fds)
    for m in readonly:
        if any(m == w or m.startswith(w.rstrip("/") + "/") for w in writable):
            continue
        rc = libc.mount(None, m.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        if rc != 0 and ctypes.get_errno() in (errno.ENOENT, errno.EINVAL) and m not in _own_mountpoints(m):
            continue  # unmounted after the list was read, before this namespace was made private (``VANISHED_MOUNT_RULE``)
        _check(libc, rc, f"read-only remount of {m} failed")
    if home:  # from its path, bound writable above (a descriptor opened earlier would lead to a read-only mount)
        show_home(libc, home[1], home[0])
    kernel_surfaces(libc)


class Mount(NamedTuple):
    """One line of ``/proc/self/mountinfo`` (proc_pid_mountinfo(5)): the mount point, the filesystem type and its
    super options (a v1 cgroup's controllers are among them)."""
    point: str
    fstype: str
    options: str


def _unescaped(field: str) -> str:
    """A mountinfo field as the path it names: the kernel writes a space, tab, newline and backslash in a path as
    an octal escape (``\\040``, ``\\011``, ``\\012``, ``\\134``), every other byte as it is."""
    return re.sub(r"\\([0-7]{3})", lambda e: chr(int(e.group(1), 8)), field)


def mount_table(path: str = "/proc/self/mountinfo") -> list[Mount]:
    """Every mount this process's mount namespace shows, in the table's order: the one reader of the mount table
    for the sandbox (the read-only list, the cgroup mounts, ``VANISHED_MOUNT_RULE``). A malformed line is skipped;
    an unreadable table raises OSError (each caller says what that means for it)."""
    out = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rest = left.split(), right.split()
            if len(fields) < 5 or not rest:
                continue
            out.append(Mount(_unescaped(fields[4]), rest[0], rest[2] if len(rest) > 2 else ""))
    return out


VANISHED_MOUNT_RULE = """A mount point of the list the harness read before this namespace was made (``readonly``) that is not
a mount point of this namespace once it is private (another process unmounted it meanwhile: a parallel run's or test's
tmpfs) is skipped, not a failed confinement: nothing can mount there again but this process, and what its path now
shows belongs to the mount below it, remounted read-only in turn. Any other failed remount still raises (a
half-confined run is never started). Seen under pytest-xdist: a full-disk test's tmpfs unmounted while a warm zygote
remounted the list, and the warm run fell back to cold."""


def _own_mountpoints(failed: str) -> set[str]:
    """The mount points of this process's mount namespace now (``VANISHED_MOUNT_RULE``); unreadable: a set holding
    ``failed`` (the failed remount then raises)."""
    errno_now = ctypes.get_errno()
    try:
        return {m.point for m in mount_table()}
    except OSError:
        return {failed}
    finally:
        ctypes.set_errno(errno_now)  # (the remount's, for the error it raises)


def kernel_surfaces(libc) -> None:
    """The namespace levels' /sys and /dev as bubblewrap gives them (``PROC_RULE``): an empty read-only tmpfs over
    /sys (the cgroup mounts under it, out of reach with it), and a /dev of the run's own (``fresh_dev``)."""
    if os.path.isdir("/sys"):
        _check(libc, libc.mount(b"tmpfs", b"/sys", b"tmpfs", MS_RDONLY | 2 | 4 | 8, b"size=4k,mode=555"),
               "covering /sys failed")
    fresh_dev(libc)


def cgroups_read_only(libc, mounts) -> None:
    """Level basic when the harness is root (a capped test level; a root machine without util-linux): a mount
    namespace of this run's own in which every cgroup mount (``mounts``, harness.sandbox.sandbox
    ``cgroup_mountpoints``) is read-only, so no ``cgroup.procs`` outside the run's groups (which it has joined) can
    be opened for writing and no limit of its own group raised; nothing else of the host's mounts changes (basic
    hides nothing). The namespace filter, installed last, denies the run any mount, unmount or namespace call that
    would undo it (``namespace_filter``). Any step that fails raises: the run is never started with them writable."""
    _check(libc, libc.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS) failed")
    _check(libc, libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate failed")
    for m in mounts:
        _check(libc, libc.mount(None, m.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None),
               f"read-only remount of {m} failed")


PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4


def drop_capabilities(libc, last_cap: int) -> None:
    """Every capability out of what this process's next exec holds (level basic when the harness is root): the
    bounding set emptied, the ambient set cleared and the inheritable set zeroed (``capset``, the effective and
    permitted sets kept for the steps before the exec), so the command runs as uid 0 with no capability, as a
    process of ``setpriv --bounding-set=-all --inh-caps=-all`` does (the namespace levels' launcher). Without
    CAP_SYS_PTRACE it reaches no other process's root (``/proc/PID/root``: the host's mount namespace, where the
    cgroup mounts are writable) of a process holding more capabilities than it."""
    for cap in range(last_cap + 1):
        _check(libc, libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"prctl(PR_CAPBSET_DROP, {cap})")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # (EINVAL on a kernel without ambient sets)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    head, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3: two 32-bit words per set
    _check(libc, libc.capget(ctypes.byref(head), data), "capget failed")
    for d in data:
        d.inheritable = 0
    _check(libc, libc.capset(ctypes.byref(head), data), "capset failed")


def show_home(libc, dest: str, src: str | None = None) -> None:
    """The run's home at ``dest`` (a user's home path such as /home/user, harness.sandbox.sandbox
    ``RUN_HOME``): a fresh tmpfs over its parent (the host's homes are not the run's to see), ``dest``
    made in it, and on it the writable directory ``src`` (its writes kept where the harness reads them),
    or a fresh tmpfs when there is none. A home under /tmp told a tree it was in the harness's sandbox
    (red team r32c); this one exists and is writable, as a user's is."""
    parent = os.path.dirname(dest.rstrip("/")) or "/"
    if parent != "/":
        _check(libc, libc.mount(b"tmpfs", parent.encode(), b"tmpfs", 0, b"mode=755"), f"cover {parent} failed")
    os.makedirs(dest, exist_ok=True)
    if src is None:
        _check(libc, libc.mount(b"tmpfs", dest.encode(), b"tmpfs", 0, b"mode=755"), f"home {dest} failed")
        return
    _check(libc, libc.mount(src.encode(), dest.encode(), None, MS_BIND | MS_REC, None), f"home {dest} failed")


def loopback_up() -> None:
    """Bring up ``lo`` in a fresh network namespace (the only interface it has)."""
    import fcntl
    import socket
    import struct
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        flags = struct.unpack("16sh22x", fcntl.ioctl(s, siocgifflags, struct.pack("16sh22x", b"lo", 0)))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sh22x", b"lo", flags | iff_up))


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def _code_dirs_under_tmp(base: str) -> list[str]:
    """The interpreter's prefixes and import path entries that lie under /tmp (not the scratch base's)."""
    import sys
    found = sorted({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, *sys.path)
                    if p and os.path.isdir(p) and _under(os.path.realpath(p), "/tmp")
                    and not _under(os.path.realpath(p), base)}, key=len)
    return [d for i, d in enumerate(found) if not any(_under(d, e) for e in found[:i])]


def _fresh_tmp(libc, scratch, base: str) -> None:
    """A fresh tmpfs over /tmp; ``scratch`` (writable) and the interpreter's code under /tmp
    (read-only) bound back from descriptors opened before /tmp was covered."""
    fds = [os.open(p, os.O_PATH | os.O_DIRECTORY) for p in scratch]
    keep = _code_dirs_under_tmp(base)
    keep_fds = [os.open(p, os.O_PATH | os.O_DIRECTORY) for p in keep]
    _check(libc, libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"mode=1777"), "fresh /tmp failed")
    _bind_back(libc, keep, keep_fds, readonly=True)
    _bind_back(libc, scratch, fds, readonly=False)


DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")


def fresh_dev(libc) -> None:
    """This run's own /dev (level bwrap, warm): a fresh tmpfs holding the device nodes bound back
    from the zygote's /dev, the usual links, /dev/pts and an empty /dev/shm. Nothing a run writes
    under /dev is seen by another run (the zygote's /dev is one tmpfs all its forks shared)."""
    nodes = [(n, os.open(f"/dev/{n}", os.O_PATH)) for n in DEV_NODES if os.path.exists(f"/dev/{n}")]
    pts = os.path.isdir("/dev/pts")
    _check(libc, libc.mount(b"tmpfs", b"/dev", b"tmpfs", 0, b"mode=755"), "fresh /dev failed")
    for name, fd in nodes:  # each the host's (or the zygote's) own inode: bound read-only (a chmod of it: EROFS)
        os.close(os.open(f"/dev/{name}", os.O_CREAT | os.O_WRONLY, 0o666))
        _check(libc, libc.mount(f"/proc/self/fd/{fd}".encode(), f"/dev/{name}".encode(), None, MS_BIND, None),
               f"bind /dev/{name} failed")
        _check(libc, libc.mount(None, f"/dev/{name}".encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None),
               f"read-only /dev/{name} failed")
        os.close(fd)
    for target, link in (("/proc/self/fd", "fd"), ("/proc/self/fd/0", "stdin"), ("/proc/self/fd/1", "stdout"),
                         ("/proc/self/fd/2", "stderr"), ("pts/ptmx", "ptmx")):
        os.symlink(target, f"/dev/{link}")
    os.mkdir("/dev/shm")
    _check(libc, libc.mount(b"tmpfs", b"/dev/shm", b"tmpfs", 0, b"mode=1777"), "fresh /dev/shm failed")
    if pts:  # a devpts instance of the run's own, as bubblewrap's --dev: never the host's or the zygote's (its ptmx
        # and terminals re-moded, or stamped for the next run to read: red team rt13)
        os.mkdir("/dev/pts")
        _check(libc, libc.mount(b"devpts", b"/dev/pts", b"devpts", 2 | 8, b"newinstance,ptmxmode=0666,mode=620"),
               "fresh /dev/pts failed")


def isolate_run(libc, *, scratch, base, hide=(),
                flags: int = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC, binds=(), home=None) -> None:
    """Level bwrap, in a child of the warm zygote (which already lives in the allow-list view):
    private namespaces, a fresh /tmp and /dev/shm, and of the zygote's scratch base only this
    run's scratch directories (bind-mounted back from file descriptors opened before the base
    was covered), and each ``binds`` source shown at its destination too (``bind_at``; a
    destination under /tmp, on the fresh tmpfs: the zygote's view has nothing else to mount on).
    What the run can reach is what a cold ``bwrap --tmpfs /tmp --bind S S --bind S D
    --unshare-ipc`` run can (its own IPC namespace, not the zygote's); the covered mounts stay in
    the table, out of reach (no capability to unmount them).
    Any step that fails raises: a half-confined run is never started."""
    _check(libc, libc.unshare(flags), "unshare failed")
    _check(libc, libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "mount --make-rprivate failed")
    loopback_up()  # as in a bwrap network namespace: loopback only, and up
    fds = [os.open(p, os.O_PATH | os.O_DIRECTORY) for p in scratch]
    bind_fds = [os.open(src, os.O_PATH | os.O_DIRECTORY) for src, _ in binds]
    # the interpreter and the code it imports, when they live under /tmp (a checkout or virtualenv
    # there): bound back read-only over the fresh /tmp, as a cold run's view binds them after its tmpfs
    keep = _code_dirs_under_tmp(base)
    keep_fds = [os.open(p, os.O_PATH | os.O_DIRECTORY) for p in keep]
    # a fresh tmpfs stacked over /tmp (and over the zygote's scratch base when that lies elsewhere)
    # hides everything below it; this run's scratch comes back from the descriptors opened above
    _check(libc, libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"mode=755"), "fresh /tmp failed")
    fresh_dev(libc)
    if not _under(base, "/tmp"):
        _check(libc, libc.mount(b"tmpfs", base.encode(), b"tmpfs", 0, b"mode=755"), "scratch base cover failed")
    _bind_back(libc, keep, keep_fds, readonly=True)
    _bind_back(libc, scratch, fds, readonly=False)
    bind_at(libc, [dst for _, dst in binds], bind_fds)
    if home:  # a fresh home on the zygote's (its view has the mount point, harness.sandbox.warm)
        _check(libc, libc.mount(b"tmpfs", home.encode(), b"tmpfs", 0, b"mode=755"), f"home {home} failed")
    for d in hide:  # a hidden directory inside an allowed one (the zygote's view shows nothing else)
        if os.path.exists(d):
            _check(libc, libc.mount(b"tmpfs", d.encode(), b"tmpfs", 0, b"size=4k,mode=000"), f"hiding {d} failed")


def bind_at(libc, dests: list[str], fds: list[int]) -> None:
    """Show each directory (a descriptor opened before anything was covered) at its destination
    as well, writable, made if it does not exist, closing the descriptor. The final adjudication
    shows a run its scratch copy at the workspace's own path this way (harness.judge.testrun
    ``_scratch_copy``): the path is no sign of a harness copy, and the workspace is never written."""
    for dst, fd in zip(dests, fds):
        os.makedirs(dst, exist_ok=True)
        _check(libc, libc.mount(f"/proc/self/fd/{fd}".encode(), dst.encode(), None, MS_BIND | MS_REC, None),
               f"bind at {dst} failed")
        os.close(fd)


def _bind_back(libc, paths: list[str], fds: list[int], *, readonly: bool) -> None:
    """Bind each path back over the fresh /tmp from the descriptor opened before /tmp was covered
    (read-only for code directories), closing the descriptor."""
    for p, fd in zip(paths, fds):
        os.makedirs(p, exist_ok=True)
        _check(libc, libc.mount(f"/proc/self/fd/{fd}".encode(), p.encode(), None, MS_BIND | MS_REC, None),
               f"bind {p} failed")
        if readonly:
            _check(libc, libc.mount(None, p.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None),
                   f"read-only {p} failed")
        os.close(fd)
