"""The task corpus as data: ``tasks/<id>/task.toml`` plus its directories.

A task has a prompt, a starting workspace, a visible acceptance test (copied into the
workspace at ``acceptance_dest``), a hidden oracle (never copied in), a reference solution and
a candidate bank for the simulated engine. Reference and candidates are *overlays*: files that
replace or add to the starting workspace.
"""
from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import safefs
from harness.core.errors import InputError
from harness.core.safefs import DEFAULT_LIMITS, TreeLimits
from harness.core.tomlfile import load_toml
from harness.core.treecopy import special_kind
from harness.core.treereading import BINARY_MARK, LIMIT_MARK, SPECIAL_MARK, SYMLINK_MARK, Entry, Kind, TreeReading

__all__ = ["BINARY_MARK", "LIMIT_MARK", "SPECIAL_MARK", "SYMLINK_MARK", "read_entries", "read_tree"]  # the markers: importable from here, as before

CANDIDATE_KINDS = ("correct", "plausible_wrong", "broken")
SIM_DISTS = ("first", "after_visible_fail", "after_finding")
SIM_PROBS = ("keep_existing", "reviewer_catch", "reviewer_false_block")


@dataclass(frozen=True)
class Candidate:
    name: str
    kind: str  # correct | plausible_wrong | broken
    dir: Path
    defect: str = ""

    def files(self) -> dict[str, str]:
        """Overlay as {relative path: text}."""
        return read_tree(self.dir, skip_bytecode=True)


@dataclass(frozen=True)
class Task:
    id: str
    root: Path
    category: str
    prompt: str
    scope: tuple[str, ...]
    high_risk: tuple[str, ...]
    acceptance: Path
    acceptance_dest: str
    oracle: Path
    reference: Path
    candidates: tuple[Candidate, ...]
    sim: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # fields later issues add (injection hooks, data files)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    def candidates_of(self, kind: str) -> list[Candidate]:
        return [c for c in self.candidates if c.kind == kind]

    def digest_files(self) -> dict[str, Path]:
        """The files a protocol lock covers for this task: every file under the task root."""
        return {str(p.relative_to(self.root)): p for p in sorted(self.root.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts}


def read_tree(root: Path, *, skip_bytecode: bool = False, limits: TreeLimits = DEFAULT_LIMITS,
              known: frozenset[str] | set[str] = frozenset()) -> dict[str, str]:
    """All files under root as {posix relative path: text}, sorted: the text view of
    ``read_entries`` (``TreeReading.files``). A file that is not UTF-8 text (a SQLite database,
    say) or is larger than ``limits.max_text_bytes`` reads as a marker naming its size and sha256,
    a symlink as a marker naming its target, a FIFO, socket or device node as a marker naming its
    kind, so digests, detectors and diffs still see them. The view is ambiguous (a text file can
    hold a marker's characters; directories are not in it): a tree's digest is over
    ``read_entries``, never over this."""
    return read_entries(root, skip_bytecode=skip_bytecode, limits=limits, known=known).files


def read_entries(root: Path, *, skip_bytecode: bool = False, limits: TreeLimits = DEFAULT_LIMITS,
                 known: frozenset[str] | set[str] = frozenset()) -> TreeReading:
    """Every entry under root with its kind (harness.core.treereading): text, binary (size and
    sha256, hashed in bounded chunks), symlink (its target, never followed: a link to a host file
    must not pull that file into digests, diffs or the reviewer's packet), special (a FIFO, socket
    or device node, never opened: a FIFO would block), over a limit, or directory (empty ones
    included). The walk is iterative and opens nothing through a link (harness.core.safefs); where
    the tree passes one of ``limits`` an ``over`` entry says which, and past the entry count the
    walk stops but every path in ``known`` (the start tree's) is still read on its own, so an edit
    of a task file is seen. ``skip_bytecode`` drops __pycache__ (for reading the task corpus
    itself; a workspace's tree keeps them, so a planted module in __pycache__ is seen by digests
    and detectors)."""
    out: dict[str, Entry] = {}
    budget = [limits.max_total_bytes]
    stopped = False
    skip = frozenset({"__pycache__"}) if skip_bytecode else frozenset()
    for e in safefs.walk(root, limits, skip_names=skip):
        if e.over is not None:
            out[e.rel] = Entry(Kind.OVER, str(e.over))
            stopped = stopped or e.over.limit is safefs.Limit.ENTRIES
        elif e.st is not None and stat.S_ISDIR(e.st.st_mode):
            out[e.rel] = Entry(Kind.DIR)
        elif e.st is not None:
            out[e.rel] = _entry(e.dirfd, e.name, e.rel, e.st, budget, limits)
    for rel in sorted(set(known) - set(out)) if stopped else ():
        entry = _read_one(root, rel, budget, limits)
        if entry is not None:
            out[rel] = entry
    return TreeReading(dict(sorted(out.items())))


def _read_one(root: Path, rel: str, budget: list[int], limits: TreeLimits) -> Entry | None:
    """One path's entry as read_entries gives it (None if absent or a directory)."""
    try:
        with safefs.root_fd(root) as rfd:
            dfd = safefs.open_dir(rfd, safefs.split(rel)[:-1])
            try:
                name = safefs.split(rel)[-1]
                st = safefs.lstat_at(dfd, name)
                if st is None or stat.S_ISDIR(st.st_mode):
                    return None
                return _entry(dfd, name, rel, st, budget, limits)
            finally:
                os.close(dfd)
    except (OSError, ValueError, safefs.PathError):
        return None  # a link or a non-directory on its way: the walk shows what is there instead


def _entry(dirfd: int, name: str, rel: str, st: os.stat_result, budget: list[int], limits: TreeLimits) -> Entry:
    """The entry of one non-directory; ``budget`` (bytes left of the tree's total size limit) is
    charged a regular file's size before it is read."""
    if stat.S_ISLNK(st.st_mode):
        return Entry(Kind.SYMLINK, os.readlink(name, dir_fd=dirfd))
    if not stat.S_ISREG(st.st_mode):  # a FIFO, socket or device node: never opened
        return Entry(Kind.SPECIAL, special_kind(st.st_mode) or "special file")
    if st.st_size > limits.max_file_bytes or st.st_size > budget[0]:
        which = "file size" if st.st_size > limits.max_file_bytes else "total size"
        return Entry(Kind.OVER, f"{st.st_size} bytes, not read: past the tree's {which} limit")
    budget[0] -= st.st_size
    try:
        fd, st = safefs.open_file_at(dirfd, name, rel)
    except (safefs.PathError, FileNotFoundError) as exc:  # swapped since it was listed
        return Entry(Kind.OVER, f"not read: {exc}")
    try:
        return _read_file(fd, st.st_size, limits.max_text_bytes)
    finally:
        os.close(fd)


def _read_file(fd: int, size: int, max_text: int) -> Entry:
    if size <= max_text:
        data = safefs._read_upto(fd, max_text + 1)
        if len(data) <= max_text:
            try:
                return Entry(Kind.TEXT, data.decode())
            except UnicodeDecodeError:
                return Entry.of_bytes(data)
        size = max(size, len(data))
    return Entry(Kind.BINARY, size=size, sha256=safefs.hash_fd(fd, size))


def sha256_file(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _need(data: dict, key: str, typ, file: Path, where: str = ""):
    if key not in data:
        raise InputError(str(file), where + key, f"missing (expected {typ.__name__})")
    if not isinstance(data[key], typ):
        raise InputError(str(file), where + key, f"expected {typ.__name__}, got {type(data[key]).__name__}")
    return data[key]


def load_task(root: Path) -> Task:
    """Load and validate ``root/task.toml``; every path it names must exist."""
    root = Path(root).resolve()
    file = root / "task.toml"
    d = load_toml(file)
    tid = _need(d, "id", str, file)
    if tid != root.name:
        raise InputError(str(file), "id", f"must equal the directory name {root.name!r}, got {tid!r}")

    def path(key: str) -> Path:
        p = root / _need(d, key, str, file)
        if not p.exists():
            raise InputError(str(file), key, f"path does not exist: {p}")
        return p

    if not (root / "workspace").is_dir():
        raise InputError(str(file), "workspace", f"missing directory {root / 'workspace'}")
    cands = []
    for i, c in enumerate(_need(d, "candidates", list, file)):
        where = f"candidates[{i}]."
        kind = _need(c, "kind", str, file, where)
        if kind not in CANDIDATE_KINDS:
            raise InputError(str(file), where + "kind", f"expected one of {CANDIDATE_KINDS}, got {kind!r}")
        cdir = root / _need(c, "dir", str, file, where)
        if not cdir.is_dir():
            raise InputError(str(file), where + "dir", f"directory does not exist: {cdir}")
        cands.append(Candidate(_need(c, "name", str, file, where), kind, cdir, c.get("defect", "")))
    sim = d.get("sim", {})
    for key in SIM_DISTS:
        dist = sim.get(key)
        if dist is None:
            raise InputError(str(file), f"sim.{key}", "missing (expected a table of kind = probability)")
        if set(dist) - set(CANDIDATE_KINDS) or abs(sum(dist.values()) - 1) > 1e-9:
            raise InputError(str(file), f"sim.{key}", f"expected probabilities over {CANDIDATE_KINDS} summing to 1")
    for key in SIM_PROBS:
        v = sim.get(key)
        if not isinstance(v, (int, float)) or not 0 <= v <= 1:
            raise InputError(str(file), f"sim.{key}", "expected a probability in [0, 1]")
    known = {"id", "category", "title", "prompt", "scope", "high_risk", "acceptance", "acceptance_dest",
             "oracle", "reference", "candidates", "sim"}
    return Task(
        id=tid, root=root, category=_need(d, "category", str, file), prompt=_need(d, "prompt", str, file).strip(),
        scope=tuple(_need(d, "scope", list, file)), high_risk=tuple(d.get("high_risk", [])),
        acceptance=path("acceptance"), acceptance_dest=_need(d, "acceptance_dest", str, file),
        oracle=path("oracle"), reference=path("reference"), candidates=tuple(cands), sim=sim,
        extra={k: v for k, v in d.items() if k not in known},
    )


def load_tasks(tasks_root: Path, ids: list[str] | None = None) -> dict[str, Task]:
    """Load the named tasks (or every task directory) under tasks_root."""
    tasks_root = Path(tasks_root)
    if ids is None:
        ids = sorted(p.name for p in tasks_root.iterdir() if (p / "task.toml").is_file())
    return {i: load_task(tasks_root / i) for i in ids}
