"""The one safe reader, the one atomic writer and the one directory lock for every file a command
reads or writes in a run, loop, corpus or analysis directory (issue 34).

Each guarantee was first built into ``harness run`` alone; the commands around it (view, monitor,
loop, corpus, analyze, compare, export) read and wrote by hand, and broke where ``run`` held: a
FIFO in place of ``records.jsonl`` hung ``view``, a 100,000-deep line raised ``RecursionError``, a
full disk left empty files under their final names, two ``loop run --resume`` wrote one ledger.
So every command goes through this module (tests/architecture/test_io_boundary.py checks it by AST):

- **Reading** (``read_bytes``, ``read_text``, ``read_json``, ``read_jsonl``): the path is opened
  with ``O_RDONLY|O_NOFOLLOW|O_NONBLOCK`` (a link refused unless ``follow``, below; a FIFO never
  blocks the open), then
  ``fstat`` must say a regular file, else ``UnsafeFile`` naming the file and what it is. At most
  ``limit`` bytes are read (a larger file is refused, never held whole). JSON is pre-scanned for
  its bracket depth *before* ``json.loads`` (``statefile.depth_of``), so a line nested past
  ``MAX_DEPTH`` is one ``UnsafeFile`` naming the file and line, never a ``RecursionError``.
  A file that is there but is not a regular file is ``NotRegular`` (an ``UnsafeFile``): callers
  that word their own errors (``run.json`` "missing or torn", a receipt "malformed") let it
  through, so the line says what the file is, never a reason it does not have.
- **Links: one rule** (``follow``). A path the user names on the command line (an argument or an
  option's value: a protocol, a graph TOML, a transcript, a public key, a records file, a freeze
  file) is opened *following* links: the user chose that path, and a link there is theirs (a
  checkout's ``protocols/current.toml``, a key in a secrets mount). What it resolves to must still
  be a regular file. A file the harness finds by name *inside* a directory (a run, loop, corpus,
  analysis or bundle directory, even one the user named) is never followed (``O_NOFOLLOW``): a
  link planted there could point anywhere (``~/.ssh``, ``/dev/zero``), and nothing the harness
  writes there is a link. The directory the user names may itself be a link (only the last
  component of the file's path is checked). Every reader here takes ``follow`` (default False:
  the strict rule), and the readers built on them (the TOML loader, the transcript loader, the
  tree store) pass it, so the rule lives in one place.
- **Writing** (``write_atomic``, ``write_json``, ``append_line``): a temporary file in the same
  directory, fsync, rename, directory fsync (``statefile.write_atomic``): a kill or a full disk
  leaves the old file or the new one, never a partial one under the final name. ENOSPC, EDQUOT
  and EROFS become ``NoSpace``: one line naming the file, what to free, and the command to rerun;
  its exit code is the caller's (4 for a run, loop or corpus, whose state is kept for a rerun; 2 for
  an analysis output, which is simply not written).
- **Locking** (``DirLock``): an exclusive ``flock`` on a lock file in the directory, held by one
  process for the whole command; the holder's PID is written into the file so that a second
  writer is refused naming it. A kill releases the lock with the process (the kernel drops the
  ``flock``), so a rerun after ``kill -9`` proceeds at once.
Standard library only (every layer may import it).
"""
from __future__ import annotations

import contextlib
import csv
import ctypes
import errno
import fcntl
import io
import json
import os
import shlex
import shutil
import stat
import time
import uuid
from pathlib import Path
from typing import IO, Any, Iterator

from harness.core import statefile
from harness.core.errors import ExitCode, HarnessError, InputError

MAX_BYTES = 512 << 20  # a records file of ~500k cells; anything a command reads is far smaller
MAX_DEPTH = statefile.MAX_DEPTH
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG})


class UnsafeFile(InputError):
    """A file a command will not read: not a regular file (a FIFO, device, socket, directory, link),
    larger than its bound, nested deeper than ``MAX_DEPTH``, or not UTF-8 / JSON. Exit 2."""


class NotRegular(UnsafeFile):
    """A file that is there but is not a regular file (a FIFO, socket, device, directory, or a
    link where links are not followed): refused before a byte is read, the line naming what it is."""


_TYPED: list[list[str]] = []  # the command line being run (``harness`` + its arguments), innermost last


@contextlib.contextmanager
def typed_command_is(argv: list[str]) -> Iterator[None]:
    """While the command group dispatches one command line (``argv``: the words after ``harness``),
    ``typed_command`` names it: the rerun a full-disk line names is the command the user ran, every
    option kept, never one rebuilt by hand (issue 34)."""
    _TYPED.append(list(argv))
    try:
        yield
    finally:
        _TYPED.pop()


def typed_command(swap: dict[str, str] | None = None) -> str | None:
    """``harness ARGS...`` as typed (shell-quoted), or None outside a command line; ``swap`` renames
    options (``{"--out": "--resume"}``: the same command, continuing what it started)."""
    if not _TYPED:
        return None
    words = []
    for w in _TYPED[-1]:
        for old, new in (swap or {}).items():
            if w == old:
                w = new
            elif w.startswith(old + "="):
                w = new + w[len(old):]
        words.append(w)
    return "harness " + shlex.join(words) if words else "harness"


def _holding(path: Path | str) -> Path:
    """The directory whose file system a write to ``path`` filled: ``path`` itself when it is a
    directory, else the nearest directory above it that exists (never '.' for a relative name
    whose directory is elsewhere, never the parent of a mount point)."""
    p = Path(os.path.abspath(path))
    if p.is_dir() and not p.is_symlink():
        return p
    p = p.parent
    while not p.is_dir() and p != p.parent:
        p = p.parent
    return p


class NoSpace(HarnessError):
    """A write refused by the file system (full, over quota, read-only): one line naming the file,
    what to free and the command to rerun. ``code`` is the exit code the command documents. An
    output simply not written (``code`` not STOPPED) is rerun by the command the user typed
    (``typed_command``) when there is one; a stopped command's ``rerun`` continues its state."""

    def __init__(self, path: Path | str, exc: OSError, rerun: str, code: ExitCode = ExitCode.STOPPED,
                 kept: str = "nothing was written under its final name"):
        if code != ExitCode.STOPPED:
            rerun = typed_command() or rerun
        self.path, self.code, self.rerun = str(path), code, rerun
        why = {errno.EROFS: "the file system is read-only"}.get(exc.errno or 0, "the disk is full")
        free = ("remount it read-write or write elsewhere" if exc.errno == errno.EROFS
                else f"free space on the file system holding {_holding(path)}")
        super().__init__(f"{path}: {why} ({exc.strerror or exc}); {kept}; {free}, then rerun `{rerun}`")


def is_no_space(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in NO_SPACE_ERRNOS


# -- reading ------------------------------------------------------------------------------------
def _kind(mode: int) -> str:
    return statefile._kind(mode)


def open_regular(path: Path | str, what: str = "file", follow: bool = False) -> tuple[int, os.stat_result]:
    """A read descriptor for the regular file at ``path``, opened without blocking. ``follow``: a
    path the user named on the command line (its links followed); else a file inside a run, loop,
    corpus or analysis directory (a link refused): the module docstring's one rule.
    FileNotFoundError when absent; ``NotRegular`` when it is there but not a regular file;
    UnsafeFile when it cannot be opened."""
    try:
        fd = os.open(path, _READ & ~os.O_NOFOLLOW if follow else _READ)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegular(str(path), "<file>", f"is a symbolic link, not a regular {what}; refusing to "
                             "follow a link inside a run, loop, corpus or analysis directory") from None
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
            raise NotRegular(str(path), "<file>", f"is not a regular {what}; refusing to read it") from None
        raise UnsafeFile(str(path), "<file>", f"cannot open the {what}: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotRegular(str(path), "<file>", f"is a {_kind(st.st_mode)}, not a regular {what}; refusing to read it")
    return fd, st


def regular_or_absent(path: Path | str, what: str = "file", follow: bool = False) -> bool:
    """True when ``path`` is a regular file, False when nothing is there; ``NotRegular`` when
    something else is (a FIFO, a socket, a directory; a link unless ``follow``). Checked by
    (l)stat, so nothing is opened and nothing waits: for a caller that branches on a file being
    present (``run.json`` torn or absent, a run without records) before it reads it with
    ``read_*``, which checks again on the descriptor."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise UnsafeFile(str(path), "<file>", f"cannot stat the {what}: {exc.strerror or exc}") from None
    if stat.S_ISREG(st.st_mode):
        return True
    why = ("refusing to follow a link inside a run, loop, corpus or analysis directory" if stat.S_ISLNK(st.st_mode)
           else "refusing to read it")
    raise NotRegular(str(path), "<file>", f"is a {_kind(st.st_mode)}, not a regular {what}; {why}")


def read_bytes(path: Path | str, what: str = "file", limit: int = MAX_BYTES, follow: bool = False) -> bytes:
    """The bytes of the regular file at ``path`` (see the module docstring); FileNotFoundError when absent.
    ``follow``: a link is followed (a file the user named on the command line, see ``open_regular``)."""
    fd, st = open_regular(path, what, follow)
    try:
        if st.st_size > limit:
            raise UnsafeFile(str(path), "<file>", f"is {st.st_size} bytes, over the {limit}-byte bound for a {what}")
        chunks, got = [], 0
        while True:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
            if got > limit:
                raise UnsafeFile(str(path), "<file>", f"grew past the {limit}-byte bound for a {what}")
        return b"".join(chunks)
    except OSError as exc:
        raise UnsafeFile(str(path), "<file>", f"cannot read the {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def open_stream(path: Path | str, what: str = "file", follow: bool = False, *, text: bool = False,
                newline: str | None = None) -> IO[Any]:
    """A file object (use it in a ``with``) over the regular file at ``path``, opened at once by
    ``open_regular`` (a FIFO or a link refused first, the one link rule), for a reader that streams
    a large file line by line (a records file of a million lines) instead of holding it whole;
    ``text``: UTF-8, strict; ``newline``: as ``open``'s (None: universal newlines, ``"\n"``: a line ends
    at a line feed only)."""
    fd, _ = open_regular(path, what, follow)
    return os.fdopen(fd, "r", encoding="utf-8", errors="strict", newline=newline) if text else os.fdopen(fd, "rb")


def read_prefix(path: Path | str, n: int, what: str = "file") -> bytes:
    """At most the first ``n`` bytes of the regular file at ``path`` (e.g. an event log's first line)."""
    fd, _ = open_regular(path, what)
    try:
        return os.read(fd, n)
    except OSError as exc:
        raise UnsafeFile(str(path), "<file>", f"cannot read the {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: Path | str, what: str = "file", limit: int = MAX_BYTES, follow: bool = False) -> str:
    """The UTF-8 text of the regular file at ``path`` (``read_bytes``; ``follow``: the user named it)."""
    raw = read_bytes(path, what, limit, follow)
    try:
        return raw.decode()
    except UnicodeDecodeError as exc:
        raise UnsafeFile(str(path), "<file>", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def parse_json(text: str | bytes, where: str, line: int | None = None, max_depth: int = MAX_DEPTH, *,
               unique_keys: bool = False):
    """``json.loads`` of ``text`` with its nesting pre-scanned first: UnsafeFile naming ``where`` and
    ``line`` for text nested past ``max_depth`` or not JSON (never RecursionError). ``unique_keys``:
    an object with a key twice is not JSON this reader accepts either (``json.loads`` keeps the last
    value; a reader that keeps the first sees another object: the ledger's records, red team r33b)."""
    if isinstance(text, bytes):
        try:
            text = text.decode()
        except UnicodeDecodeError as exc:
            raise UnsafeFile(where, "<line>" if line else "<file>", f"not UTF-8 ({exc.reason})", line) from None
    # the character scan runs only when the text has more brackets than the bound (a C-speed count)
    if text.count("[") + text.count("{") > max_depth and statefile.depth_of(text, max_depth) > max_depth:
        raise UnsafeFile(where, "<line>" if line else "<file>", f"JSON nested deeper than {max_depth} levels", line)
    try:
        return json.loads(text, object_pairs_hook=_unique_keys if unique_keys else None)
    except (ValueError, RecursionError) as exc:
        raise UnsafeFile(where, "<line>" if line else "<file>", f"not valid JSON ({exc})", line) from None


def read_json(path: Path | str, what: str = "file", limit: int = MAX_BYTES, follow: bool = False):
    return parse_json(read_text(path, what, limit, follow), str(path))


def read_jsonl(path: Path | str, what: str = "file", limit: int = MAX_BYTES, *,
               skip_bad: bool = False) -> Iterator[tuple[int, Any]]:
    """(line number, object) for each non-blank line (a line ends at a line feed); a bad line is UnsafeFile
    naming file and line, or (``skip_bad``: a journal or a cache, whose torn last line a kill leaves)
    skipped, a line with bytes that are not UTF-8 included. The file itself (a FIFO, a link, too large)
    is refused either way."""
    text = read_bytes(path, what, limit).decode("utf-8", "replace") if skip_bad else read_text(path, what, limit)
    # a line ends at "\n" only: a JSON line may hold U+2028, U+2029 or U+0085 raw (the ledger writes them so),
    # where str.splitlines would break it
    for i, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            yield i, parse_json(line, str(path), i)
        except UnsafeFile:
            if not skip_bad:
                raise


def read_csv(path: Path | str, what: str = "file", limit: int = MAX_BYTES) -> list[dict[str, str]]:
    """The rows of the CSV file at ``path`` (a header line, then one dict per row), read by
    ``read_text``; a row the csv module cannot parse (a field over its limit, a stray NUL) is
    UnsafeFile naming the file and line, never a ``_csv.Error`` traceback."""
    reader = csv.DictReader(io.StringIO(read_text(path, what, limit), newline=""))
    try:
        return list(reader)
    except csv.Error as exc:
        raise UnsafeFile(str(path), "<line>", f"not a valid CSV row ({exc})", reader.line_num) from None


def named_kind(path: Path | str, what: str = "file") -> str:
    """``"file"`` or ``"dir"`` for a path the user named that may be either (links followed); a
    FIFO, socket or device is UnsafeFile (a check by ``stat``: nothing is opened, nothing waits).
    FileNotFoundError when absent."""
    mode = os.stat(path).st_mode
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    raise UnsafeFile(str(path), "<file>", f"is a {_kind(mode)}, not a regular {what} or a directory; refusing to read it")


def exists_regular(path: Path | str) -> bool:
    """True when ``path`` is a regular file (by lstat: nothing is opened)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


# -- writing ------------------------------------------------------------------------------------
def write_atomic(path: Path | str, data: str | bytes, rerun: str, code: ExitCode = ExitCode.STOPPED,
                 mode: int = 0o644) -> None:
    """``statefile.write_atomic`` (temp, fsync, rename, directory fsync), with a full or read-only
    file system reported as ``NoSpace`` (see the module docstring)."""
    try:
        statefile.write_atomic(path, data, mode)
    except OSError as exc:
        if is_no_space(exc):
            raise NoSpace(path, exc, rerun, code) from None
        raise


def write_json(path: Path | str, obj, rerun: str, code: ExitCode = ExitCode.STOPPED) -> None:
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n", rerun, code)


def make_dir(path: Path | str, rerun: str, code: ExitCode = ExitCode.STOPPED) -> Path:
    try:
        Path(path).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if is_no_space(exc):
            raise NoSpace(path, exc, rerun, code) from None
        raise
    return Path(path)


def append_line(path: Path | str, line: str, fsync: bool = False) -> None:
    """Append ``line`` (a newline added) to the journal at ``path``: opened ``O_APPEND|O_NOFOLLOW|
    O_NONBLOCK`` and written only when ``fstat`` says a regular file (a FIFO or a link planted in its
    place is UnsafeFile, never written through or waited on). One ``write`` per line: a kill or a full
    disk leaves at most a torn last line, which every journal reader skips."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            raise UnsafeFile(str(path), "<file>", "is not a regular file; refusing to write through it") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(str(path), "<file>", f"is a {_kind(st.st_mode)}, not a regular file; refusing to write to it")
        data = memoryview((line + "\n").encode())
        while data:
            data = data[os.write(fd, data):]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def write_staged(path: Path | str, data: str | bytes, mode: int = 0o644) -> None:
    """Write ``data`` to the new file ``path`` inside a staging directory (``staged_dir``,
    ``staged_files``): no fsync per file, the directory is synced and published as a whole. Never
    use it on a final name. ``mode``: 0o600 for a private key (created so, never widened)."""
    _write_new(path, data.encode() if isinstance(data, str) else data, mode, exclusive=False)


def _write_new(path: Path | str, data: bytes, mode: int, fsync: bool = False, exclusive: bool = True) -> None:
    """Write ``data`` to ``path`` (never through a link; ``exclusive``: never over an existing file)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_EXCL if exclusive else os.O_TRUNC)
    fd = os.open(path, flags, mode)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def create_once(path: Path | str, data: str | bytes, mode: int = 0o600) -> bool:
    """Create ``path`` holding ``data`` unless a file is already there (True when this call made it):
    written whole and fsynced beside it, then linked into place (``link`` is atomic and never
    replaces a file), so concurrent writers agree on one content and a kill or a full disk leaves
    no partial file under the name (a run's private key: every worker signs with the first one)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        _write_new(tmp, data.encode() if isinstance(data, str) else data, mode, fsync=True)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        statefile.fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


@contextlib.contextmanager
def staged_dir(final: Path | str, rerun: str, code: ExitCode, owned: tuple[str, ...] = ()) -> Iterator[Path]:
    """A fresh staging directory beside ``final``; on success it becomes ``final`` in one step: the
    entries of the old ``final`` it neither rebuilds nor owns are linked into it (hard links: no data
    copied, no space but directory entries), then the two directories are swapped by one
    ``renameat2(RENAME_EXCHANGE)`` (after ``syncfs``), and the old one, now under the staging name,
    is removed. A kill at any instruction leaves the old output or the new one under ``final``,
    never a mix; what a kill leaves beside it (a ``.NAME.staging-PID-*`` or ``.NAME.old-PID-*``
    directory of a process that is gone) is removed by the next ``staged_dir`` of that output. On
    any error the staging directory is removed and ``final`` is as it was; ENOSPC/EROFS is
    ``NoSpace``. Each name the stage holds replaces ``final``'s entry of that name; ``owned`` names
    more of ``final``'s entries a rebuild removes; its other entries are kept. ``final`` given as a
    link to a directory is published at the directory it points to (the link is kept)."""
    final = Path(final)
    if final.is_symlink():
        final = Path(os.path.realpath(final))
    stage = None
    try:
        make_dir(final.parent, rerun, code)
        _clean_stale_siblings(final)
        stage = final.parent / f".{final.name}.staging-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        stage.mkdir()
        yield stage
        _publish(stage, final, owned)
    except OSError as exc:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        if is_no_space(exc):
            raise NoSpace(final, exc, rerun, code, kept="nothing was written under its final name (the "
                          "output is built aside and put in place only when whole)") from None
        raise
    except BaseException:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        raise


@contextlib.contextmanager
def staged_files(directory: Path | str, rerun: str, code: ExitCode, replace: bool = True) -> Iterator[Path]:
    """A fresh staging directory inside ``directory`` for files that go there whole (a records file
    and its head, a key pair, a generated records file): each file the caller writes into the stage
    is moved to ``directory`` under its own name only when every one was written and synced (a
    rename needs no space, so a full disk strikes only while staging). On any error the stage is
    removed and ``directory`` is as it was: nothing empty or partial under a final name; ENOSPC and
    EROFS are ``NoSpace``. ``replace=False`` never overwrites a file there (a key): FileExistsError."""
    directory = Path(directory)
    stage = None
    try:
        make_dir(directory, rerun, code)
        stage = directory / f".staging-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        stage.mkdir()
        yield stage
        _syncfs(stage)
        for entry in sorted(os.listdir(stage)):
            if replace:
                os.replace(stage / entry, directory / entry)
            else:
                os.link(stage / entry, directory / entry)  # atomic, and never over an existing file
        statefile.fsync_dir(directory)
        shutil.rmtree(stage, ignore_errors=True)
    except OSError as exc:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        if is_no_space(exc):
            raise NoSpace(directory / (exc.filename and Path(exc.filename).name or ""), exc, rerun, code,
                          kept="nothing was written under its final name (the files are written aside and put "
                          "in place only when whole)") from None
        raise
    except BaseException:
        if stage is not None:
            shutil.rmtree(stage, ignore_errors=True)
        raise


def _syncfs(path: Path) -> None:
    """Flush the file system holding ``path`` (``syncfs(2)``; ``os.sync`` where libc lacks it):
    the staged files reach the disk before the rename that publishes them."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if getattr(libc, "syncfs", None) is None or libc.syncfs(fd) != 0:
            os.sync()
    except OSError:
        os.sync()
    finally:
        os.close(fd)


RENAME_EXCHANGE = 2  # linux/fs.h: swap two paths in one step (Linux >= 3.15)


def exchange(a: Path | str, b: Path | str) -> None:
    """Swap the entries ``a`` and ``b`` (two directories) in one atomic step:
    ``renameat2(RENAME_EXCHANGE)``. OSError when the kernel, libc or file system cannot (ENOSYS,
    EINVAL): the caller falls back to two renames."""
    libc = ctypes.CDLL(None, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        raise OSError(errno.ENOSYS, "renameat2 is not in this libc")
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd = -100
    if fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(a), None, str(b))


def _link_tree(src: Path, dest: Path) -> None:
    """``dest`` as a copy of ``src`` made of hard links (directories recreated, links copied as links)."""
    st = os.lstat(src)
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(dest, stat.S_IMODE(st.st_mode))
        for name in os.listdir(src):
            _link_tree(src / name, dest / name)
    elif stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), dest)
    else:
        os.link(src, dest, follow_symlinks=False)


def _pid_gone(name: str) -> bool:
    """True when the PID in a ``.NAME.staging-PID-HEX`` / ``.NAME.old-PID-HEX`` name is no live process."""
    try:
        pid = int(name.rsplit("-", 2)[-2])
    except (ValueError, IndexError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _clean_stale_siblings(final: Path) -> None:
    """Remove what a killed ``staged_dir`` of ``final`` left beside it (a staging directory, or the
    old output after the swap); an old output left by a kill between the two renames of the
    fallback, with ``final`` absent, is put back first (the old output, never none)."""
    try:
        names = os.listdir(final.parent)
    except OSError:
        return
    for name in sorted(names):
        for kind in ("staging", "old"):
            if name.startswith(f".{final.name}.{kind}-") and _pid_gone(name):
                path = final.parent / name
                if kind == "old" and not (final.exists() or final.is_symlink()):
                    with contextlib.suppress(OSError):
                        os.rename(path, final)
                        continue
                shutil.rmtree(path, ignore_errors=True)


def _publish(stage: Path, final: Path, owned: tuple[str, ...]) -> None:
    if not (final.exists() or final.is_symlink()):
        _syncfs(stage)
        os.rename(stage, final)
        statefile.fsync_dir(final.parent)
        return
    rebuilt = set(os.listdir(stage))
    for name in os.listdir(final):  # what the old output holds that this one neither rebuilds nor owns
        if name not in rebuilt and name not in owned:
            _link_tree(final / name, stage / name)
    with contextlib.suppress(OSError):
        os.chmod(stage, stat.S_IMODE(os.stat(final).st_mode))
    _syncfs(stage)
    old = stage  # after the swap, the staging name holds the old output
    try:
        exchange(stage, final)
    except OSError as exc:
        if exc.errno not in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            raise
        # no RENAME_EXCHANGE here: two renames; a kill between them leaves the old output under the
        # .old- name and no final, which the next staged_dir puts back (_clean_stale_siblings)
        old = final.parent / f".{final.name}.old-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        os.rename(final, old)
        os.rename(stage, final)
    statefile.fsync_dir(final.parent)
    shutil.rmtree(old, ignore_errors=True)


# -- the single-writer lock -----------------------------------------------------------------------
class Locked(InputError):
    """Another process holds the directory's lock (its PID is named). Exit 2: nothing was changed."""


class DirLock:
    """An exclusive ``flock`` on ``directory/name`` held for the life of the object (a context
    manager). The holder writes its PID into the file; a second writer is refused naming it."""

    def __init__(self, directory: Path | str, name: str, command: str):
        self.path = Path(directory) / name
        self.command = command
        self.fd: int | None = None

    def acquire(self) -> "DirLock":
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o644)
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise UnsafeFile(str(self.path), "<file>", "the lock is not a regular file; refusing to use it")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise Locked(str(self.path.parent), "<lock>", f"another harness process{holder} is writing here (it "
                         f"holds {self.path.name}); wait for it to finish or stop it, then {self.command}") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock still holds, only the PID is not shown to a second writer
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing releases the flock
            self.fd = None

    def __enter__(self) -> "DirLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _holder(fd: int) -> str:
    """The holder's PID as the refusal names it. The holder takes the lock and then writes its PID,
    so a second writer that arrives between the two reads an empty file: it waits up to half a
    second for the PID, then says the PID is not yet written (CI saw the empty read once)."""
    for _ in range(50):
        try:
            text = os.pread(fd, 32, 0).decode().strip()
        except (OSError, UnicodeDecodeError):
            text = ""
        if text.isdigit():
            return f" (PID {text})"
        time.sleep(0.01)
    return " (PID not yet written)"
