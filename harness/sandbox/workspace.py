"""A cell's workspace: a fresh copy of the task, the only place the agent's tools touch.

Paths are confined: anything that resolves outside the workspace root (``..``, an absolute
path, or a symlink pointing out) raises PathEscape, which the tool layer logs as a refusal.
Every read, write and delete goes through harness.core.safefs: no link the agent planted is
followed (LinkRefused), no FIFO or device is opened (NotRegular), and the tree's declared limits
hold (TreeLimitExceeded); each is a PathError, the agent's tool error. The hidden oracle is
never copied in.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import TypeVar, cast

from harness.core import safefs
from harness.core.errors import HarnessError
from harness.core.events import BaseEvent, Event, EventType, parse_event
from harness.core.safe_text import printable
from harness.core.safefs import DEFAULT_LIMITS, PathError, TreeLimits
from harness.core.tasks import BINARY_MARK, LIMIT_MARK, SYMLINK_MARK, Task, read_entries
from harness.core.treecopy import copy_tree
from harness.core.treereading import TreeReading, tree_digest

__all__ = ["EventLog", "PathError", "PathEscape", "TreeReading", "Workspace", "tree_digest", "tree_modes"]


E = TypeVar("E", bound=BaseEvent)


class PathEscape(HarnessError):
    """A tool path that resolves outside the workspace."""


class EventLog:
    """Append-only per-cell event log (JSON lines). In memory, optionally mirrored to a file.

    Its events are typed (harness.core.events): the log stamps each with ``seq`` and ``t`` and
    serializes it here, at the file's edge (the line the event's ``to_json`` gives, keys sorted)."""

    def __init__(self, path: Path | None = None):
        self.events: list[Event] = []
        self.path = Path(path) if path else None
        self.write_error: OSError | None = None  # the first failed write (a full disk): the cell is void
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("")

    def emit(self, event: E) -> E:
        stamped = event.model_copy(update={"seq": len(self.events), "t": round(time.time(), 3)})
        self.events.append(cast(Event, stamped))
        if self.path and self.write_error is None:
            try:
                with self.path.open("a") as f:
                    f.write(json.dumps(stamped.to_json(), sort_keys=True, default=str) + "\n")
            except OSError as exc:  # kept in memory; the cell records the fault instead of crashing
                self.write_error = exc
        return stamped

    def restore(self, lines: list[dict], where: str = "<event log>") -> None:
        """Replace the log's events (not its file) with the lines read back from an event log."""
        self.events[:] = [parse_event(line, where) for line in lines]

    def of_type(self, *types: EventType) -> list[Event]:
        return [e for e in self.events if e.type in types]

    def of_class(self, cls: type[E]) -> list[E]:
        """The events of one class (typed for attribute reads)."""
        return [e for e in self.events if isinstance(e, cls)]


class Workspace:
    """A temporary directory holding one cell's copy of a task."""

    def __init__(self, root: Path, limits: TreeLimits = DEFAULT_LIMITS):
        self.root = Path(root).resolve()
        self.limits = limits
        self._known: frozenset[str] | None = None  # the paths of the first reading (the start tree)

    @classmethod
    def create(cls, task: Task, base: Path | None = None, overlay: dict[str, str] | None = None) -> "Workspace":
        """Copy the starting workspace and the visible acceptance test; apply an overlay. (The
        task's own files, copied into a directory made here: nothing the agent touched yet.)"""
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
        """The absolute path for rel, or PathEscape if it leaves the workspace (symlinks followed:
        only to decide whether a command's argument points out; the harness opens nothing here)."""
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
        """Every non-directory path (names only: nothing is read), then, where the tree passes a
        limit, a line saying so (``path  [the tree exceeds ...]``)."""
        names, over = self.listing()
        return names + over

    def listing(self) -> tuple[list[str], list[str]]:
        """(sorted non-directory paths, one line per place the tree passes a limit)."""
        names, over = [], []
        for e in safefs.walk(self.root, self.limits):
            if e.over is not None:
                over.append(f"{printable(e.rel)}  [{e.over}]")
            elif e.st is not None and not stat.S_ISDIR(e.st.st_mode):
                names.append(printable(e.rel))
        return sorted(names), over

    def read_bytes(self, rel: str, limit: int) -> bytes:
        """At most ``limit`` bytes of the regular file at rel; LinkRefused / NotRegular otherwise."""
        self.resolve(rel)
        return safefs.read_bytes(self.root, rel, limit)

    def read(self, rel: str) -> str:
        return self.read_bytes(rel, self.limits.max_file_bytes).decode()

    def lstat(self, rel: str) -> os.stat_result | None:
        """The entry at rel itself (never followed), None if absent."""
        self.resolve(rel)
        return safefs.lstat(self.root, rel)

    def write(self, rel: str, text: str) -> bool:
        """Replace the file at rel with ``text``, never opening what is there (safefs.write_bytes:
        a fresh file renamed over the target, so a FIFO, a device node or a link the agent left
        there is replaced, never written through; a link on the way is refused). A regular file
        keeps its permission bits. Returns whether the entry existed."""
        self.resolve(rel)
        return safefs.write_bytes(self.root, rel, text.encode(), limits=self.limits)

    def delete(self, rel: str) -> bool:
        """Remove the entry at rel (a link itself, never its target); False if absent."""
        self.resolve(rel)
        return safefs.unlink(self.root, rel)

    def reading(self) -> TreeReading:
        """The tree's typed reading (tasks.read_entries, within ``limits``): what its digest is over.
        The first reading's file paths are remembered: past the entry limit they are still read one
        by one, so an edit to a start file is seen however many files the agent adds."""
        got = read_entries(self.root, limits=self.limits, known=self._known or frozenset())
        if self._known is None:
            self._known = frozenset(got.files)
        return got

    def files(self) -> dict[str, str]:
        """The tree's text view (``reading().files``: markers for what is not text, no directories)."""
        return self.reading().files

    def digest(self) -> str:
        """``tree_digest`` of the tree as it is now (harness.core.treereading)."""
        return tree_digest(self.reading())

    def check(self) -> None:
        """TreeLimitExceeded where the tree passes one of its limits (metadata only)."""
        safefs.check_tree(self.root, self.limits)

    def restore(self, files: dict[str, str]) -> None:
        """Make the tree exactly ``files`` (used by A3 to revert an advisory revision)."""
        now = self.files()
        for rel in set(now) - set(files):
            if not now[rel].startswith(LIMIT_MARK):
                safefs.unlink(self.root, rel)  # a symlink is removed, never followed
        for rel, text in files.items():
            if text.startswith((BINARY_MARK, SYMLINK_MARK)):  # markers (binary, special file, link): left as they are
                continue
            st = safefs.lstat(self.root, rel)
            if st is not None and stat.S_ISLNK(st.st_mode):
                safefs.unlink(self.root, rel)
            self.write(rel, text)

    def copy_to(self, dest: Path) -> Path:
        """A copy of the tree at dest (which must not exist): regular files, directories and links
        as links; FIFOs, sockets and device nodes are left out (harness.core.treecopy)."""
        copy_tree(self.root, dest, limits=self.limits)
        return dest

    def destroy(self) -> None:
        safefs.rmtree(self.root)


def tree_modes(root: Path, limits: TreeLimits = DEFAULT_LIMITS) -> dict[str, int]:
    """Permission bits of every file and directory in a tree ("." is the root; directories end in
    "/"; links and __pycache__ left out), by an iterative walk within ``limits`` (safefs.walk)."""
    out = {".": os.stat(root, follow_symlinks=False).st_mode & 0o7777}
    for e in safefs.walk(root, limits, skip_names=frozenset({"__pycache__"})):
        if e.st is None or stat.S_ISLNK(e.st.st_mode):
            continue
        out[e.rel + ("/" if stat.S_ISDIR(e.st.st_mode) else "")] = e.st.st_mode & 0o7777
    return out
