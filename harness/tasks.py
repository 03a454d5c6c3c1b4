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

from harness.errors import InputError
from harness.tomlfile import load_toml
from harness.treecopy import special_kind

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


BINARY_MARK = "\0binary "


SYMLINK_MARK = "\x00symlink -> "
# a FIFO, socket or device node; it starts with BINARY_MARK so every reader that leaves binary
# contents alone (detectors, diffs, restore) leaves it alone too
SPECIAL_MARK = BINARY_MARK + "special file, not copied: "


def read_tree(root: Path, *, skip_bytecode: bool = False) -> dict[str, str]:
    """All files under root as {posix relative path: text}, sorted. A file that is not UTF-8 text
    (a SQLite database, say) reads as a marker naming its size and sha256, and a symlink as a
    marker naming its target (never followed: a link to a host file must not pull that file into
    digests, diffs or the reviewer's packet), and a FIFO, socket or device node as a marker naming
    its kind (never opened: a FIFO would block), so digests, detectors and diffs still see them.
    ``skip_bytecode`` drops __pycache__ (for reading the task corpus itself; a workspace's tree
    keeps them, so a planted module in __pycache__ is seen by digests and detectors)."""
    root = Path(root)
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk does not descend into symlinked dirs
        dirnames.sort()
        if skip_bytecode:
            dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        here = Path(dirpath)
        for name in sorted(filenames) + sorted(d for d in dirnames if (here / d).is_symlink()):
            p = here / name
            rel = p.relative_to(root).as_posix()
            st = os.lstat(p)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = SYMLINK_MARK + os.readlink(p)
            elif stat.S_ISREG(st.st_mode):
                out[rel] = _read_text(p)
            elif not stat.S_ISDIR(st.st_mode):  # a FIFO, socket or device node: never opened
                out[rel] = SPECIAL_MARK + (special_kind(st.st_mode) or "special file")  # never None here
    return dict(sorted(out.items()))


def _read_text(p: Path) -> str:
    data = p.read_bytes()
    try:
        return data.decode()
    except UnicodeDecodeError:
        return f"{BINARY_MARK}{len(data)} bytes sha256={hashlib.sha256(data).hexdigest()}"


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
