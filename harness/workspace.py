"""A cell's workspace: a fresh copy of the task, the only place the agent's tools touch.

Paths are confined: anything that resolves outside the workspace root (``..``, an absolute
path, or a symlink pointing out) raises PathEscape, which the tool layer logs as a refusal.
The hidden oracle is never copied in.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from harness.safe_text import printable
from harness.tasks import BINARY_MARK, SYMLINK_MARK, Task, read_tree
from harness.treecopy import copy_tree


class PathEscape(Exception):
    """A tool path that resolves outside the workspace."""


class PathError(Exception):
    """A tool path the agent made unusable (a link loop, a link into /proc it may not follow):
    the agent's own error, reported to it as a tool error, never a fault of the cell."""


class EventLog:
    """Append-only per-cell event log (JSON lines). In memory, optionally mirrored to a file."""

    def __init__(self, path: Path | None = None):
        self.events: list[dict] = []
        self.path = Path(path) if path else None
        self.write_error: OSError | None = None  # the first failed write (a full disk): the cell is void
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("")

    def emit(self, type: str, **payload) -> dict:
        ev = {"seq": len(self.events), "t": round(time.time(), 3), "type": type, **payload}
        self.events.append(ev)
        if self.path and self.write_error is None:
            try:
                with self.path.open("a") as f:
                    f.write(json.dumps(ev, sort_keys=True, default=str) + "\n")
            except OSError as exc:  # kept in memory; the cell records the fault instead of crashing
                self.write_error = exc
        return ev

    def of_type(self, *types: str) -> list[dict]:
        return [e for e in self.events if e["type"] in types]


def tree_digest(files: dict[str, str]) -> str:
    """sha256 over the sorted (path, content) pairs of a tree (names as their bytes: a name that is
    not UTF-8 is still a name)."""
    h = hashlib.sha256()
    for rel in sorted(files):
        h.update(os.fsencode(rel) + b"\0" + files[rel].encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


class Workspace:
    """A temporary directory holding one cell's copy of a task."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    @classmethod
    def create(cls, task: Task, base: Path | None = None, overlay: dict[str, str] | None = None) -> "Workspace":
        """Copy the starting workspace and the visible acceptance test; apply an overlay."""
        root = Path(tempfile.mkdtemp(prefix=f"ws-{task.id}-", dir=base))
        shutil.copytree(task.workspace, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        dest = root / task.acceptance_dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(task.acceptance, dest)
        ws = cls(root)
        for rel, text in (overlay or {}).items():
            ws.write(rel, text)
        return ws

    def resolve(self, rel: str) -> Path:
        """The absolute path for rel, or PathEscape if it leaves the workspace (symlinks followed)."""
        if not isinstance(rel, str) or not rel or "\0" in rel:
            raise PathEscape(f"invalid path {rel!r}")
        if os.path.isabs(rel):
            raise PathEscape(f"absolute path {rel!r}")
        try:
            target = (self.root / rel).resolve()
        except (OSError, RuntimeError, ValueError) as exc:  # a link loop, an unreachable link target
            raise PathError(f"{rel!r} cannot be resolved: {type(exc).__name__}: {exc}") from exc
        if target != self.root and self.root not in target.parents:
            raise PathEscape(f"{rel!r} resolves outside the workspace")
        return target

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def list_files(self) -> list[str]:
        return sorted(printable(p) for p in self.files())

    def read(self, rel: str) -> str:
        return self.resolve(rel).read_text()

    def write(self, rel: str, text: str) -> None:
        """Replace the file at rel with ``text``, never opening what is there: the text goes to a
        fresh file (O_CREAT|O_EXCL|O_NOFOLLOW, via mkstemp) renamed over the target, so a FIFO, a
        device node or a link the agent left there is replaced, never written through (a FIFO
        would block the harness forever). A regular file keeps its permission bits."""
        target = self.resolve(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
        mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else 0o644
        fd, tmp = tempfile.mkstemp(prefix=".hx-write-", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
                os.fchmod(fh.fileno(), mode)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise

    def files(self) -> dict[str, str]:
        return read_tree(self.root)

    def digest(self) -> str:
        return tree_digest(self.files())

    def restore(self, files: dict[str, str]) -> None:
        """Make the tree exactly ``files`` (used by A3 to revert an advisory revision)."""
        for rel in set(self.files()) - set(files):
            (self.root / rel).unlink()  # lexical path: a symlink is removed, never followed
        for rel, text in files.items():
            if text.startswith((BINARY_MARK, SYMLINK_MARK)):  # markers (binary, special file, link): left as they are
                continue
            if (self.root / rel).is_symlink():
                (self.root / rel).unlink()
            self.write(rel, text)

    def copy_to(self, dest: Path) -> Path:
        """A copy of the tree at dest (which must not exist): regular files, directories and links
        as links; FIFOs, sockets and device nodes are left out (harness/treecopy.py)."""
        copy_tree(self.root, dest)
        return dest

    def destroy(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
