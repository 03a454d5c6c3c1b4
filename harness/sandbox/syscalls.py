"""The kernel's record of what a confined run did (DESIGN.md: "Acts are recorded by the kernel").

Every confined run the agent causes (its ``run_command`` calls and its own ``run_acceptance`` test
runs) is started under Debian's ``strace --seccomp-bpf -f`` wrapped AROUND the sandbox launcher
(bubblewrap, or ``unshare --pid``): the tracer lives outside the run's PID namespace, so no process
of the run can see, signal or ptrace it; ptrace cannot be detached by a tracee, and every fork,
vfork and clone is followed (``-f``). A traced system call is reported before it returns, so a
change made and undone at once is in the record however quickly it was undone.

What is recorded (``TRACED``): every successful exec with its argv; every open for writing
(O_WRONLY, O_RDWR, O_CREAT, O_TRUNC; a write through a shared ``mmap`` needs such an open, so an
mmap edit is seen at its open); rename, link, symlink, unlink, rmdir, mkdir, truncate, ftruncate, chmod,
chown, mknod, setxattr and removexattr in all their variants (an extended attribute's name and value
kept: ``system.posix_acl_access`` sets a file's mode with no chmod); and the calls that could reach around the record
(``io_uring_setup``, which the sandbox's seccomp filter also denies, ``process_vm_writev``,
``ptrace``, ``open_by_handle_at``, ``memfd_create``). Strings are printed in hex (``-xx``) so no
file name the agent chooses can forge a line, and the trace goes to a pipe the harness reads
(``/proc/self/fd/N`` of strace; the first program strace runs closes that descriptor before any
agent code exists), never to a file in reach of the run.

Paths are as the tracee saw them (the workspace and the scratch copies are bound at their own
paths at every level): an open's resolved path comes from strace's descriptor decoration
(``-y``: links followed by the kernel), a relative path is joined to the directory descriptor or
to the process's working directory (tracked from chdir/fchdir and inherited at clone).

Bounds: only acts are kept (opens for reading are parsed and dropped), deduplicated, at most
``MAX_ACTS`` per run; past that the run's record says it is incomplete, and every reader treats
an incomplete record as evidence that something may be missing, never as clean. A call strace
cannot name (``syscall_0x...``; the sandbox's filter, harness.sandbox.confine ``keyring_filter``,
fails every such number and the whole i386 ABI first) makes the record incomplete the same way, and
an act whose result strace never saw (``= ?``, an unfinished call cut by its process's death) is
counted as done (``unknown``).
See docs/kernel-record.md for the residuals (what this record cannot see).
"""
from __future__ import annotations

import contextvars
import json
import os
import posixpath
import re
import shutil
import stat
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ACT_CALLS = ("execve", "execveat", "open", "openat", "openat2", "creat", "rename", "renameat", "renameat2", "link",
             "linkat", "symlink", "symlinkat", "unlink", "unlinkat", "rmdir", "truncate", "ftruncate", "chmod",
             "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat", "mknod", "mknodat", "mkdir", "mkdirat",
             "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr")
XATTR_CALLS = ("setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr")
REACH_CALLS = ("io_uring_setup", "process_vm_writev", "ptrace", "open_by_handle_at", "memfd_create")
CWD_CALLS = ("chdir", "fchdir", "clone", "clone3", "fork", "vfork")
TRACED = ACT_CALLS + REACH_CALLS + CWD_CALLS
# The secret run (B15): data leaving a process. Each call's whole buffer is dumped by strace
# (``-e write=all``), whatever ``-s`` is; the record checks the dump holds every byte the call
# returned as written, and says so when it does not (``data_cut``: the check fails closed).
DATA_CALLS = ("write", "pwrite64", "writev", "pwritev", "pwritev2", "sendto", "sendmsg", "sendmmsg", "vmsplice")
# Data moved by the kernel, never through the caller's memory: strace cannot show it. The
# destination is named in the record, and the final content of every file the run wrote is read
# after the run (``Session.finish``): a file's bytes are what was written, however it was written.
COPY_CALLS = ("sendfile", "copy_file_range", "splice", "tee")
COPY_FDS = {"sendfile": (1, 0), "copy_file_range": (0, 2), "splice": (0, 2), "tee": (0, 1)}  # (source, destination)
MAX_ACTS = 20000  # distinct acts kept per run; past it the record is incomplete (a flood), never clean
MAX_DATA = 8 << 20  # bytes of written data kept per run for the secret check
WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000  # O_WRONLY | O_RDWR | O_CREAT | O_TRUNC
STR_BYTES = 4096  # -s: the bytes of each argv element (and written buffer) printed

_active: contextvars.ContextVar[Recording | None] = contextvars.ContextVar("hx_recording", default=None)


@lru_cache(maxsize=1)
def strace_binary() -> str | None:
    """Debian's strace (``apt-get install strace``; the Makefile installs it) when it can trace
    here (a container may forbid ptrace or seccomp filters), else None."""
    path = shutil.which("strace")
    if path is None:
        return None
    try:
        r = subprocess.run([path, "--seccomp-bpf", "-f", "--pidns-translation", "-qq", "-e", "trace=execve", "-o",
                            os.devnull, "--", "/bin/sh", "-c", "exit 7"], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if r.returncode == 7 else None


@dataclass
class Recording:
    """Where the runs made inside a ``recording(...)`` block put their records: ``path`` (a JSONL
    file in a harness-owned directory outside every sandbox), the label each record carries
    (``command`` or ``agent_test``), and whether written data is kept (the secret run)."""
    path: Path
    label: str
    data: bool = False


def active() -> Recording | None:
    """The recording in force for confined runs started now (None: run unrecorded)."""
    return _active.get()


@contextmanager
def recording(path: Path | str | None, label: str, *, data: bool = False):
    """Record every confined run started in this block (nothing when ``path`` is None)."""
    token = _active.set(Recording(Path(path), label, data) if path else None)
    try:
        yield
    finally:
        _active.reset(token)


def wrap(argv: list[str], fd: int, *, data: bool = False) -> list[str]:
    """``argv`` (the sandbox launcher and its command) under strace, its trace written to the
    descriptor ``fd`` (a pipe the harness reads), which the first program strace runs closes.
    ``data``: every written buffer dumped whole (``-e write=all``), the kernel's copies traced."""
    calls = TRACED + (DATA_CALLS + COPY_CALLS + ("?sendfile64",) if data else ())
    dump = ["-e", "write=all", "-e", "abbrev=!execve"] if data else []  # buffers whole; each exec's environment
    return [strace_binary() or "strace", "--seccomp-bpf", "-f", "--pidns-translation", "-qq", "-X", "raw", "-y", "-xx", "-s",
            str(STR_BYTES), "-e", "trace=" + ",".join(calls), *dump, "-e", "signal=none", "-o", f"/proc/self/fd/{fd}",
            "--", "/bin/bash", "-c", CLOSER.format(fd=fd), "sh", *argv]


CLOSER = 'exec {fd}>&-; exec "$@"'  # the first program strace runs (bash: dash takes one-digit descriptors only)


@dataclass
class Session:
    """One traced run: the pipe's read end drained by a thread into acts as they arrive."""
    rec: Recording
    root: str
    read_fd: int
    write_fd: int
    acts: dict = field(default_factory=dict)
    incomplete: list = field(default_factory=list)
    data: bytearray = field(default_factory=bytearray)
    parser: TraceParser | None = None
    thread: threading.Thread | None = None
    launcher: tuple = ()
    views: tuple = ()  # (path inside the run, path on the host) of each directory the run could write

    def start(self) -> None:
        self.parser = TraceParser(self.root, keep_data=self.rec.data, launcher=self.launcher)
        self.thread = threading.Thread(target=self._drain, name="act-record", daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        buf = b""
        parser = self.parser
        assert parser is not None  # start() made it
        with os.fdopen(self.read_fd, "rb", buffering=0) as fh:
            while chunk := fh.read(1 << 16):
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    parser.feed(line.decode("ascii", "replace"))
        if buf:
            parser.feed(buf.decode("ascii", "replace"))

    def finish(self, returncode: int | None) -> dict:
        """Join the reader (strace has exited: its pipe is at EOF) and append the run's record."""
        if self.thread is not None:
            self.thread.join(timeout=60)
        p = self.parser
        if p is not None and not (self.thread is not None and self.thread.is_alive()):
            p.close()
        incomplete = list(p.incomplete) if p else ["the trace was not read"]
        if self.thread is not None and self.thread.is_alive():
            incomplete.append("the trace reader did not finish")
        if p is not None and not p.saw_exec:
            incomplete.append("strace recorded no exec (it did not trace the run)")
        out = {"by": self.rec.label, "root": self.root, "acts": p.acts() if p else [], "incomplete": incomplete,
               "flooded": bool(p and p.flooded), "returncode": returncode}
        if self.rec.data and p is not None:
            p.end_dump()
            files, cut = final_contents(p.acts(), self.views)
            out["data_hex"] = bytes(p.data).hex()
            out["files_hex"] = {k: v.hex() for k, v in files.items()}
            out["data_cut"] = list(dict.fromkeys([*p.data_cut, *cut]))
        with open(self.rec.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(out) + "\n")
        return out


def begin(rec: Recording, root: Path | str, launcher: list[str] | tuple[str, ...] = (),
          views: tuple[tuple[str, str], ...] = ()) -> tuple[Session, int] | None:
    """A session for one run rooted at ``root`` (its workspace), and the descriptor strace writes
    to; None when strace is missing (the caller's record says so). ``launcher``: the command the
    harness starts (the sandbox launcher and the command it runs): an exec of it, or of any tail
    of it (setpriv, the requested command itself), is tagged ``harness`` in the record.
    ``views``: (inside, host) for each directory the run can write, where a data recording
    reads the final content of the files the run wrote once it has ended."""
    if strace_binary() is None:
        return None
    r, w = os.pipe()
    os.set_inheritable(w, True)
    s = Session(rec, os.path.realpath(str(root)), r, w, launcher=tuple(launcher), views=tuple(views))
    s.start()
    return s, w


WRITTEN_OPS = ("open_w", "rename", "link", "copy", "truncate")


def final_contents(acts: list[dict], views: tuple[tuple[str, str], ...]) -> tuple[dict[str, bytes], list[str]]:
    """The final bytes of every regular file the run opened for writing, renamed or linked into
    place, or copied into by the kernel (at most ``MAX_DATA`` in all), read on the host through
    ``views`` once the run has ended: a write through a shared mapping, by ``copy_file_range``
    or by any other call strace cannot show is in the file. No link is followed out of its view
    (the host path is resolved and must stay inside it); a FIFO or device is never opened. The
    second value says what could not be read whole (past the cap): the secret check fails closed."""
    out: dict[str, bytes] = {}
    cut: list[str] = []
    left = MAX_DATA
    paths = dict.fromkeys(a["path"] for a in acts if a.get("op") in WRITTEN_OPS and a.get("ok") and a.get("path"))
    for path in paths:
        host = _on_host(str(path), views)
        if host is None:
            continue
        try:
            fd = os.open(host, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue  # gone (unlinked, renamed: the rename is in the record) or a link
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                continue
            with os.fdopen(os.dup(fd), "rb") as fh:
                data = fh.read(max(0, left) + 1)
        except OSError:
            continue
        finally:
            os.close(fd)
        if len(data) > left:
            cut.append(f"the final content of the files the run wrote is past the cap ({MAX_DATA} bytes): "
                       f"{path} and later files were not read whole")
            out[path] = data[:left]
            break
        left -= len(data)
        out[path] = data
    return out, cut


def _on_host(path: str, views: tuple[tuple[str, str], ...]) -> str | None:
    """The host path of a path inside the run (longest view first), only if it resolves inside
    that view on the host (a link planted in the run cannot point the harness elsewhere)."""
    for inside, host in sorted(views, key=lambda v: -len(v[0])):
        if path == inside or path.startswith(inside.rstrip("/") + "/"):
            cand = os.path.join(host, os.path.relpath(path, inside))
            real, top = os.path.realpath(cand), os.path.realpath(host)
            if real == top or real.startswith(top.rstrip("/") + "/"):
                return real
            return None
    return None


def unavailable(rec: Recording, root: Path | str, why: str) -> None:
    """Append a record that says the run was not traced (it is incomplete, never clean)."""
    with open(rec.path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps({"by": rec.label, "root": str(root), "acts": [], "incomplete": [why], "flooded": False,
                             "untraced": True}) + "\n")


def read_records(path: Path | str) -> list[dict]:
    """Every run's record in a recording file (a line cut short by a crash is reported, not dropped)."""
    out = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    for i, line in enumerate(lines, 1):
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({"by": "unknown", "acts": [], "incomplete": [f"record line {i} unreadable"]})
    return out


# -- parsing strace's output (-X raw -y -xx) -----------------------------------------------------------
LINE = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\d+|0x[0-9a-f]+|\?)(?:<([^>]*)>)?(.*)$")
UNFINISHED = re.compile(r"^(\d+) +(\w+)\((.*) <unfinished \.\.\.>$")
RESUMED = re.compile(r"^(\d+) +<\.\.\. (\w+) resumed>(.*)$")
HEXSTR = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')
DUMP = re.compile(r"^ \| ([0-9a-f]{5,})  (.{1,49})")  # strace -e write=: offset, then 16 bytes in hex


def unhex(s: str) -> str:
    """A ``-xx`` string's text (surrogate-escaped where it is not UTF-8)."""
    return bytes.fromhex(s.replace("\\x", "")).decode("utf-8", "surrogateescape")


def split_args(s: str) -> list[str]:
    """Top-level comma-separated arguments (brackets, braces and <> decorations nest)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch in "[{<(":
            depth += 1
        elif ch in "]}>)":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        out.append("".join(cur).strip())
    return out


def _str(arg: str) -> str | None:
    m = HEXSTR.match(arg.split("=", 1)[1] if re.match(r"^\w+=", arg) else arg)
    return unhex(m.group(1)) if m else None


def _fd_path(arg: str) -> str | None:
    """A descriptor argument's decoration ``3<\\x2f...>`` (or ``-100<cwd>`` for AT_FDCWD)."""
    m = re.match(r"^-?\d+<((?:\\x[0-9a-f]{2})*)>", arg)
    return unhex(m.group(1)) if m else None


def _int(arg: str) -> int | None:
    arg = arg.split("=", 1)[1] if re.match(r"^\w+=", arg) else arg
    arg = arg.split("|")[0].split("<")[0].strip()
    try:
        return int(arg, 8) if re.fullmatch(r"0[0-7]+", arg) else int(arg, 0)  # -X raw prints modes in octal
    except ValueError:
        return None


class TraceParser:
    """strace lines -> acts, resolving paths and tracking each process's working directory."""

    def __init__(self, root: str, *, keep_data: bool = False, launcher: tuple = ()):
        self.root = root
        self.launcher = {tuple(launcher[i:]) for i in range(len(launcher))}
        self.flooded = False
        self.keep_data = keep_data
        self.cwd: dict[str, str] = {}  # fs group -> working directory (threads made with CLONE_FS share one)
        self.group: dict[str, str] = {}  # pid -> its fs group
        self.pending: dict[str, tuple[str, str]] = {}
        self._acts: dict[tuple, dict] = {}
        self.incomplete: list[str] = []
        self._streams: dict[str, bytearray] = {}  # what each descriptor's target received, in order
        self._kept = 0
        self.data_cut: list[str] = []  # why the recorded data is not every byte written (fails closed)
        self._dump: tuple[str, int | None, int, str] | None = None  # (call, bytes it wrote, bytes dumped, stream)
        self.saw_exec = False
        self._unknown = False  # the call being read has no reported result (= ?)

    def acts(self) -> list[dict]:
        return list(self._acts.values())

    @property
    def data(self) -> bytes:
        """Every written buffer, joined per target (a file, pipe or socket as ``-y`` names it, else
        the process's descriptor) in the order of the calls, the targets' streams one per line: a
        key written a few bytes per call reads whole (red team: 2-5 bytes a ``write`` to a pipe)."""
        return b"\n".join(bytes(b) for b in self._streams.values())

    def feed(self, line: str) -> None:
        if self.keep_data and line.startswith((" | ", " * ")):
            return self._dump_line(line)
        line = line.rstrip()
        if self.keep_data:
            self.end_dump()
        if m := UNFINISHED.match(line):
            self._cut(m.group(1))  # a call of this pid never resumed (its process died): done, result unknown
            self.pending[m.group(1)] = (m.group(2), m.group(3))
            return
        if m := RESUMED.match(line):
            name, head = self.pending.pop(m.group(1), (m.group(2), ""))
            line = f"{m.group(1)} {name}({head}{m.group(3)}"
        m = LINE.match(line)
        if m:
            pid, name, args, ret, retpath = m.group(1), m.group(2), split_args(m.group(3)), m.group(4), m.group(5)
            self._cut(pid)
            if name.startswith("syscall_"):
                return self._unnamed(name, args, ret)
            if name in CWD_CALLS:
                return self._cwd_call(pid, name, m.group(3), ret, m.group(6))
            self._call(pid, name, args, ret, unhex(retpath) if retpath else None)

    def close(self) -> None:
        """The trace has ended: every call still unfinished (its process was killed before strace
        saw its exit) is an act whose result is unknown, counted as done (red team r32atk3)."""
        for pid in list(self.pending):
            self._cut(pid)

    def _cut(self, pid: str) -> None:
        """The unfinished call of ``pid``, never resumed, as an act whose result is unknown (``= ?``)."""
        if pid not in self.pending:
            return
        name, head = self.pending.pop(pid)
        if name.startswith("syscall_"):
            return self._unnamed(name, split_args(head), "?")
        if name not in CWD_CALLS:
            self._call(pid, name, split_args(head), "?", None)

    def _unnamed(self, name: str, args: list[str], ret: str) -> None:
        """A call strace could not name (``syscall_0x1cf``: a number newer than its table). The sandbox's
        filter (harness.sandbox.confine ``keyring_filter``) makes every such number fail before the
        tracer stops it, so none reaches the record; one that does means the record cannot say what
        the run did: it is flooded and incomplete, read by every detector as an overflow (never clean)."""
        self._unknown = ret == "?"
        self.flooded = True
        why = f"an unnamed system call ({name}): what it did is not in the record"
        if why not in self.incomplete:
            self.incomplete.append(why)
        self._add("unnamed", None, not ret.startswith("-"), call=name, args=[a[:200] for a in args[:6]])

    def _cwd_of(self, pid: str, dirarg: str | None = None) -> str | None:
        """The directory a relative path starts from: the descriptor's decoration (AT_FDCWD's is
        the working directory itself), else the tracked working directory, else the run's root
        (where every run starts)."""
        if dirarg is not None:
            d = _fd_path(dirarg)
            if d is not None:
                return d
        return self.cwd.get(self.group.get(pid, pid), self.root)

    def _resolve(self, pid: str, path: str | None, dirarg: str | None = None) -> str | None:
        if path is None:
            return None
        if path.startswith("/"):
            return posixpath.normpath(path)
        base = self._cwd_of(pid, dirarg)
        return posixpath.normpath(posixpath.join(base, path)) if base else "?/" + path

    def _call(self, pid: str, name: str, args: list[str], ret: str, retpath: str | None) -> None:
        # ``= ?``: the process died (SIGKILL) before strace saw the call's exit; the kernel may have
        # done it all (an open whose descriptor a CLONE_FILES sibling keeps, red team r32atk3): done
        ok = not ret.startswith("-")
        self._unknown = ret == "?"
        if name in DATA_CALLS:
            return self._data(name, ret, _fd_path(args[0]) or f"{pid} {args[0]}" if args else pid)
        if name in COPY_CALLS or name == "sendfile64":
            src, dst = COPY_FDS.get(name, (1, 0))
            return self._add("copy", _fd_path(args[dst]) if len(args) > dst else None, ok,
                             source=_fd_path(args[src]) if len(args) > src else None, call=name)
        if name in ("execve", "execveat"):
            if ok:
                self.saw_exec = True
                off = 1 if name == "execveat" else 0
                argv = [unhex(x) for x in HEXSTR.findall(args[off + 1])] if len(args) > off + 1 else []
                if len(args) > off + 1 and re.search(r"\.\.\.\]$", args[off + 1]):  # strace cut the array at -s
                    self._cut_argv(len(argv))
                env = None
                if self.keep_data:  # the secret run: each exec's environment too (-e abbrev=!execve)
                    env = [unhex(x) for x in HEXSTR.findall(args[off + 2])] if len(args) > off + 2 else []
                    for arr, what in ((args[off + 1:off + 2], "argument"), (args[off + 2:off + 3], "environment string")):
                        if arr and ('"...' in arr[0] or re.search(r"\.\.\.\]$", arr[0])):  # cut at -s
                            why = f"an exec {what} past {STR_BYTES} bytes (or elements) was cut"
                            if why not in self.data_cut:
                                self.data_cut.append(why)
                path = self._resolve(pid, _str(args[off]), args[0] if off else None)
                harness = tuple(argv) in self.launcher or (argv[:2] == ["/bin/bash", "-c"] and len(argv) > 2
                                                           and re.fullmatch(r'exec \d+>&-; exec "\$@"', argv[2])
                                                           and tuple(argv[4:]) in self.launcher)
                self._add("exec", path, ok, argv=argv, cwd=self._cwd_of(pid), harness=harness or None, env=env)
            return None
        if name in REACH_CALLS:
            return self._add(name, None, ok, args=[a[:200] for a in args[:4]])
        return self._file_call(pid, name, args, ok, retpath)

    def _cut_argv(self, kept: int) -> None:
        """An exec whose argv has more elements than strace prints (``STR_BYTES``): the rest (a
        ``--reset``, an ``-rf`` placed after 4,096 fillers) is not in the record, which is then
        incomplete and flooded, never clean (red team r32)."""
        self.flooded = True
        why = f"an exec's argv past {kept} elements: the rest was not recorded"
        if why not in self.incomplete:
            self.incomplete.append(why)

    def _cwd_call(self, pid: str, name: str, raw: str, ret: str, tail: str) -> None:
        """chdir/fchdir move the caller's fs group; a new process starts in its parent's working
        directory (its pid read in strace's PID namespace: ``--pidns-translation``), and a clone
        with CLONE_FS joins its parent's group (a later chdir by either moves both)."""
        if ret.startswith("-") or ret == "?":
            return
        args = split_args(raw)
        if name in ("chdir", "fchdir"):
            p = self._resolve(pid, _str(args[0])) if name == "chdir" and args else _fd_path(args[0]) if args else None
            if p:
                self.cwd[self.group.get(pid, pid)] = p
            return
        t = re.search(r"/\* (\d+) in strace's PID NS \*/", tail or "")
        child = t.group(1) if t else ret
        if not child.isdigit():
            return
        f = re.search(r"flags=(0x[0-9a-f]+|\d+)", raw)
        parent_group = self.group.get(pid, pid)
        if f and int(f.group(1), 0) & 0x200:  # CLONE_FS: one working directory for both
            self.group[child] = parent_group
            self.cwd.setdefault(parent_group, self._cwd_of(pid) or self.root)
        else:
            self.cwd[child] = self._cwd_of(pid) or self.root

    def _data(self, name: str, ret: str, stream: str) -> None:
        """A data call: its bytes follow as strace's dump (``-e write=all``), never the ``-s``-cut
        string on its line. ``ret``: the bytes it wrote (sendmmsg: messages, not checked);
        ``stream``: its target, whose bytes are kept together."""
        if not self.keep_data:
            return
        wrote = int(ret) if ret.isdigit() and name != "sendmmsg" else 0 if ret.startswith("-") or ret == "?" else None
        self._dump = (name, wrote, 0, stream)

    def _dump_line(self, line: str) -> None:
        """`` | 00010  65 78 ...  ascii |``: 16 bytes of the current call's buffer, in hex (the
        ASCII column, which the tracee's bytes fill, is never read)."""
        m = DUMP.match(line)
        if m is None or self._dump is None:
            return
        chunk = bytes.fromhex("".join(m.group(2).split()))
        name, wrote, got, stream = self._dump
        self._dump = (name, wrote, got + len(chunk), stream)
        self._keep(stream, chunk)

    def _keep(self, stream: str, chunk: bytes) -> None:
        buf = self._streams.setdefault(stream, bytearray())
        if self._kept + len(chunk) <= MAX_DATA:
            buf += chunk
            self._kept += len(chunk)
            return
        buf += chunk[:max(0, MAX_DATA - self._kept)]
        self._kept = MAX_DATA
        why = f"written data past the cap ({MAX_DATA} bytes): later writes were not kept"
        if why not in self.data_cut:
            self.data_cut.append(why)
            self.incomplete.append(why)
        self.flooded = True

    def end_dump(self) -> None:
        """Close the current call's dump: fewer bytes than it wrote means the record was cut."""
        if self._dump is not None:
            name, wrote, got, _ = self._dump
            self._dump = None
            if wrote is not None and got < wrote:
                why = f"a {name} of {wrote} bytes was recorded with {got}: its data was cut"
                if why not in self.data_cut:
                    self.data_cut.append(why)

    def _file_call(self, pid: str, name: str, args: list[str], ok: bool, retpath: str | None) -> None:
        r = lambda i, d=None: self._resolve(pid, _str(args[i]) if len(args) > i else None, d)  # noqa: E731
        if name in XATTR_CALLS:
            return self._xattr(pid, name, args, ok)
        if name in ("mkdir", "mkdirat"):
            at = name == "mkdirat"
            return self._add("mkdir", r(1, args[0]) if at else r(0), ok,
                             mode=_int(args[2] if at else args[1]) if len(args) > (2 if at else 1) else None)
        if name in ("open", "creat", "openat", "openat2"):
            at = name.startswith("openat")
            flags = 0o1101 if name == "creat" else _flags(args[2] if at else args[1] if len(args) > 1 else "")
            if flags is None or flags & WRITE_FLAGS:
                path = retpath if ok and retpath else r(1, args[0]) if at else r(0)
                self._add("open_w", path, ok, flags=flags)
            return
        if name in ("ftruncate", "fchmod", "fchown"):
            path = _fd_path(args[0]) if args else None
            return self._add(name.lstrip("f"), path, ok, mode=_int(args[1]) if name == "fchmod" and len(args) > 1 else None)
        if name in ("rename", "link"):
            return self._add(name, r(1), ok, source=r(0))
        if name in ("renameat", "renameat2", "linkat"):
            return self._add(name.replace("at2", "").replace("at", ""), r(3, args[2]), ok, source=r(1, args[0]))
        if name in ("symlink", "symlinkat"):
            link, src = r(1) if name == "symlink" else r(2, args[1]), _str(args[0])
            target = posixpath.normpath(posixpath.join(posixpath.dirname(link), src)) if link and src else None
            return self._add("symlink", link, ok, source=src, target=target)  # target: what it names, resolved
        at = name.endswith("at")
        path = r(1, args[0]) if at else r(0)
        base = name[:-2] if at and name not in ("fchmodat", "fchownat") else name
        base = {"fchmodat": "chmod", "fchownat": "chown", "lchown": "chown"}.get(base, base)
        mode = _int(args[2] if at else args[1]) if base == "chmod" and len(args) > (2 if at else 1) else None
        if name == "unlinkat" and len(args) > 2 and (_int(args[2]) or 0) & 0x200:
            base = "rmdir"
        self._add(base, path, ok, mode=mode)

    def _xattr(self, pid: str, name: str, args: list[str], ok: bool) -> None:
        """setxattr/removexattr (and l/f variants): op ``setxattr``/``removexattr`` with the attribute's
        ``name`` and (set) its ``value`` in hex, as strace printed it (at most ``STR_BYTES``; a longer
        one is ``cut``: the secret run then fails closed). ``nofollow``: the l variant (a link itself)."""
        f = name.startswith("f")
        path = _fd_path(args[0]) if f and args else self._resolve(pid, _str(args[0]) if args else None)
        attr = _str(args[1]) if len(args) > 1 else None
        op = "removexattr" if "remove" in name else "setxattr"
        value = cut = None
        if op == "setxattr" and len(args) > 2:
            m = HEXSTR.match(args[2])
            value = m.group(1).replace("\\x", "") if m else None
            cut = bool(m and args[2][m.end():].startswith("...")) or None
            if cut and self.keep_data:
                why = f"an extended attribute's value past {STR_BYTES} bytes was cut"
                if why not in self.data_cut:
                    self.data_cut.append(why)
        self._add(op, path, ok, name=attr, value=value, cut=cut, nofollow=name.startswith("l") or None)

    def _add(self, op: str, path: str | None, ok: bool, **extra) -> None:
        rel = self._rel(path)
        key = (op, rel if rel is not None else path, ok, json.dumps(extra, sort_keys=True, default=str))
        if key in self._acts:
            self._acts[key]["n"] += 1
            return
        if len(self._acts) >= MAX_ACTS:
            self.flooded = True
            if not self.incomplete or "acts past the cap" not in self.incomplete[0]:
                self.incomplete.insert(0, f"acts past the cap ({MAX_ACTS} distinct): later ones were not kept")
            return
        act = {"op": op, "path": path, "rel": rel, "ok": ok, "n": 1}
        if self._unknown and ok:
            act["unknown"] = True  # the result was never reported (counted as done)
        act.update({k: v for k, v in extra.items() if v is not None})
        if isinstance(act.get("source"), str):
            act["source_rel"] = self._rel(str(act["source"]))
        self._acts[key] = act

    def _rel(self, path: str | None) -> str | None:
        """The path relative to the run's root (its workspace), or None outside it."""
        if not path or not path.startswith("/"):
            return None
        if path == self.root:
            return "."
        return path[len(self.root) + 1:] if path.startswith(self.root + "/") else None


def _flags(arg: str) -> int | None:
    m = re.search(r"flags=(0x[0-9a-f]+|\d+)", arg)
    return int(m.group(1), 0) if m else _int(arg)
