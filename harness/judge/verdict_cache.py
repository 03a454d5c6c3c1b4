"""A content-addressed cache of test verdicts.

A harness test execution (``harness.judge.testrun.run_pytest``) is a pure function of what it can
read and how it is run: the tree it runs on (every file's bytes, mode, symlink target and, for a
sparse file, its data extents, and every directory and the root; for the final adjudication every
entry's modification and access time too), whether the tree is shown at its own path with its own times (the final
adjudication) or in a scratch copy with fixed ones (the runs of the agent's turns), the test file's bytes and where it is placed, the pytest command line, the interpreter
(executable, version and every installed distribution), the limits, the confinement level, which memory limit the machine gives a run (a cgroup's or the address space alone: harness.sandbox.cgroup), whether
the harness's canary is appended, and the harness code that turns a run into a verdict
(``VERDICT_CODE``: harness.judge.testrun, harness.sandbox.sandbox, ...). The key is a sha256 over
all of them. The canary's random *name* is not part of the key (only whether a canary is used): a
cached verdict was produced by a real execution in which the canary was checked, so a subverted run
stays subverted when it is reused. Paths that differ between runs (scratch dirs, hidden dirs, the
workspace's own path where the final adjudication presents the tree) are not in the key: each is a
fresh random directory per run or per cell, so a tree whose verdict depends on it is
nondeterministic (the spot-check's business), and hidden directories are unreadable to the test.
What a run could also read of its tree and the key leaves out is either the same in every scratch
copy (owner the harness, no extended attributes, modes opened up, entries created in sorted order;
in the runs of the agent's turns every time fixed at 2000-01-01) or differs in every copy (inode
numbers, change and birth times, the access times a run's own reads move in the copy). The final
adjudication's copy keeps the tree's times and its key holds the modification and access times (the
latter as the key's own reads leave them, ``tree_manifest``; red team r32atk3: an access time set in
the future, which no read moves, told twins apart): a copy that fixed them told a tree it was being
judged (red team r32). ``KEY_STAT_FIELDS`` names every os.stat field the copy keeps and what covers
it; a test derives the kept fields from the copy itself. The price: a final adjudication's
verdict is reused only for a tree with the same times, in practice never across cells (the agent's
edits date its files), where the fixed-time runs of the agent's turns are reused across cells and
runs.

Timed-out runs and runs that produced no JUnit report are never stored (they depend on load).

Reuse: within a cell, across cells, and across runs when the cache directory is kept
(``harness run --cache-dir DIR``). Entries are one JSON file per key, written atomically, so
any number of processes on one machine (or nodes on a shared filesystem) can share a directory.

Spot-check: a seeded sample (``spot_rate``) of cache hits is executed anyway and compared on
(passed, tests, failures, errors, skipped, subverted, returncode). A mismatch proves the task's
tests nondeterministic: the entry is evicted, the fresh verdict is used, the task is marked in
``DIR/nondeterministic/<task>.json`` and the driver disables the cache for that task for the rest
of the run (and for later runs sharing DIR, until the marker is deleted); stderr and every later
record of that task say so.

A cell activates a session (``activate``, a context variable scoped to the cell); ``run_pytest``
consults ``active()``. Nothing is
cached outside a session, so task validation, the corpus tool and unit tests run uncached.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import stat
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from harness.sandbox.cgroup import memory_limit

SCHEMA = "hx-verdict-v1"
FINGERPRINT = ("passed", "tests", "failures", "errors", "skipped", "subverted", "returncode")
DEFAULT_SPOT_RATE = 0.05


def _sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


# What of an entry's os.stat the run's copy can carry from the tree (harness.core.treecopy
# ``copy_tree`` then ``sandbox.open_up``), and what of the key covers it. Every field the copy
# preserves must be here (tests/harness/judge/test_verdict_cache.py derives the preserved fields
# from the copy itself, every os.stat field and extended attribute, and fails on one missing here).
KEY_STAT_FIELDS = {
    "st_mode": "the kind and mode (the copy keeps the type; open_up gives one mode)",
    "st_size": "the content digest",
    "st_blocks": "the content digest and the data extents (holes are kept)",
    "st_nlink": "the entry list (a directory's count is its subdirectories'; a file's is always 1)",
    "st_mtime": "the modification time (times=True; with bytecode, files' always)",
    "st_mtime_ns": "the modification time (times=True; with bytecode, files' always)",
    "st_atime": "the access time as this manifest's own reads left it (times=True)",
    "st_atime_ns": "the access time as this manifest's own reads left it (times=True)",
}


def tree_manifest(root: Path, *, times: bool = False) -> list[list]:
    """Every entry under root, and root itself as "": [relpath, kind, mode, content digest | link
    target], and with ``times`` its modification and access times in ns (the final adjudication's
    scratch copy keeps the tree's times, harness.judge.testrun ``_scratch_copy``; every other copy
    fixes them). When the tree holds bytecode (``.pyc``), file mtimes join the manifest either way.
    The walk is the harness's safe one (safefs.walk: iterative, no link followed, files hashed in
    chunks); a tree past its limits raises TreeLimitExceeded (testrun.run_pytest refuses it before
    any key is needed).

    Access times are read after this manifest's own reads (a second, metadata-only walk): reading a
    file, listing a directory or reading a link moves an access time the kernel finds stale
    (relatime: not after the modification or change time, or a day old), and the copy, made after
    the key, finds it moved. An access time no read moves (the agent's, after both and recent or in
    the future) is the tree's to choose and the copy keeps it: it is in the key (red team r32atk3:
    twins differing in one access time shared a verdict). One a later read still moves was just set
    by the clock (a modification time in the future), so its key is never met again."""
    from harness.core import safefs
    out: list[list] = []
    has_pyc = False
    top = os.stat(root, follow_symlinks=False)
    out.append(["", "dir", stat.S_IMODE(top.st_mode), "", top.st_mtime_ns])
    for e in safefs.walk(root):
        if e.over is not None:
            raise e.over
        st = e.st
        if st is None:
            continue
        mode = stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            out.append([e.rel, "link", mode, os.readlink(e.name, dir_fd=e.dirfd), st.st_mtime_ns])
        elif stat.S_ISDIR(st.st_mode):
            out.append([e.rel, "dir", mode, "", st.st_mtime_ns])
        elif stat.S_ISREG(st.st_mode):
            try:
                fd, fst = safefs.open_file_at(e.dirfd, e.name, e.rel)
            except (safefs.PathError, FileNotFoundError):  # swapped since the listing
                out.append([e.rel, "other", mode, ""])
                continue
            try:
                out.append([e.rel, "file", mode, safefs.hash_fd(fd, fst.st_size) + _holes(fd, fst.st_size),
                            st.st_mtime_ns])
            finally:
                os.close(fd)
            has_pyc = has_pyc or e.name.endswith(".pyc")
        else:
            out.append([e.rel, "other", mode, ""])
    if not times:
        for row in out:
            if row[1] != "file" or not has_pyc:
                del row[4:]
    else:
        atimes = _access_times(root)
        for row in out:
            if len(row) > 4:
                row.append(atimes.get(row[0]))
    out.sort(key=lambda row: row[0])
    return out


def _access_times(root: Path) -> dict[str, int]:
    """Every entry's access time (root's as ""), read by a walk that reads no file and no link: a
    directory's is taken from its parent's listing, before this walk lists it itself."""
    from harness.core import safefs
    got = {"": os.stat(root, follow_symlinks=False).st_atime_ns}
    for e in safefs.walk(root):
        if e.over is not None:
            raise e.over
        if e.st is not None:
            got[e.rel] = e.st.st_atime_ns
    return got


def _holes(fd: int, size: int) -> str:
    """A sparse file's data extents ("" for a file that is all data, as most are): the scratch copy
    keeps holes as holes (harness.core.treecopy), so ``st_blocks`` in the run depends on them, and
    two files of equal bytes, one sparse, must not share a key. Found with SEEK_DATA/SEEK_HOLE."""
    extents, pos = [], 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:  # ENXIO: only a hole from pos to the end
            break
        end = min(os.lseek(fd, start, os.SEEK_HOLE), size)
        if end <= start:
            break
        extents.append(f"{start}-{end}")
        pos = end
    return "" if size == 0 or extents == [f"0-{size}"] else "|data:" + ",".join(extents)


@lru_cache(maxsize=1)
def interpreter_identity() -> dict:
    """The interpreter a test run uses: executable, version, and every installed distribution."""
    try:
        from importlib.metadata import distributions
        dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in distributions() if d.metadata["Name"]})
    except Exception:  # noqa: BLE001 - broken metadata: fall back to the version alone
        dists = []
    return {"executable": os.path.realpath(sys.executable), "version": sys.version,
            "distributions": _sha("\n".join(dists).encode())}


# the modules that turn an execution into a verdict (cold and warm paths and their shared confinement)
VERDICT_CODE = ("judge/testrun.py", "sandbox/sandbox.py", "sandbox/confine.py", "sandbox/warm.py", "judge/probes.py",
                "judge/probe_runtime.py", "judge/judge.py", "judge/obschannel.py", "core/resultfile.py",
                "judge/subject_rpc.py", "judge/subject_main.py",
                "core/safefs.py", "core/treecopy.py",  # what is copied, what refused
                "sandbox/cgroup.py")  # the run's memory and process limits, and what its end kills


@lru_cache(maxsize=1)
def harness_code_digest() -> str:
    """The code that turns an execution into a verdict; a change to it invalidates every entry."""
    here = Path(__file__).resolve().parents[1]  # the harness package: VERDICT_CODE is relative to it
    return _sha(b"".join((here / n).read_bytes() for n in VERDICT_CODE))


def cache_key(tree: Path, test_file: Path, *, dest_rel: str, command: list[str], canary: bool, limits: dict,
              confinement: str, interpreter: dict | None = None, extra: dict | None = None,
              times: bool = False) -> str:
    """sha256 over every input a test execution is a function of (see the module docstring);
    ``times``: the run's copy keeps the tree's times, so the key holds every modification time."""
    doc = {"schema": SCHEMA, "tree": tree_manifest(tree, times=times), "test": _sha(Path(test_file).read_bytes()),
           "dest": dest_rel, "command": list(command), "canary": bool(canary), "limits": limits,
           "confinement": confinement, "interpreter": interpreter or interpreter_identity(),
           "harness": harness_code_digest(), "memory_limit": memory_limit(), "extra": extra or {}}
    return _sha(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())


class VerdictCache:
    """One directory of entries ``<dir>/<kk>/<key>.json`` and nondeterminism markers."""

    def __init__(self, directory: Path):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, entry: dict) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(entry, sort_keys=True))
        os.replace(tmp, p)

    def evict(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self._path(key).unlink()

    def mark_nondeterministic(self, task: str, detail: dict) -> None:
        d = self.dir / "nondeterministic"
        d.mkdir(exist_ok=True)
        (d / f"{task}.json").write_text(json.dumps(detail, sort_keys=True) + "\n")

    def nondeterministic(self) -> dict[str, dict]:
        d = self.dir / "nondeterministic"
        out = {}
        for p in sorted(d.glob("*.json")) if d.is_dir() else []:
            with contextlib.suppress(OSError, ValueError):
                out[p.stem] = json.loads(p.read_text())
        return out

    def __len__(self) -> int:
        return sum(1 for _ in self.dir.glob("??/*.json"))


@dataclass
class Session:
    """One cell's use of the cache (counts go into the cell's record)."""
    cache: VerdictCache
    task: str
    cell_key: str
    seed: str = "0"
    spot_rate: float = DEFAULT_SPOT_RATE
    enabled: bool = True
    hits: int = 0
    misses: int = 0
    spot_checks: int = 0
    mismatches: list = field(default_factory=list)
    _seen: dict = field(default_factory=dict)  # key -> lookups so far (the spot-check's draw)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _spot(self, key: str) -> bool:
        """The seeded draw of a hit to re-execute: a function of the seed, the cell, the key and how
        often this session looked the key up, so it does not depend on the order in which two
        threads (harness.judge.testrun ``run_judged_and_plain``) reach the cache."""
        with self._lock:
            n = self._seen[key] = self._seen.get(key, 0) + 1
        if self.spot_rate <= 0:
            return False
        h = int(_sha(f"{self.seed}|{self.cell_key}|{key}|{n}".encode())[:16], 16)
        return h / 16 ** 16 < self.spot_rate

    def _count(self, name: str, n: int = 1) -> None:
        with self._lock:  # two harness threads may share a session (the judged and the plain run at once)
            setattr(self, name, getattr(self, name) + n)

    def run(self, key_fn: Callable[[], str], execute: Callable, revive: Callable[[dict], Any]):
        """Return a verdict for key_fn()'s key: cached (``revive(entry)``) or ``execute()``d and stored."""
        if not self.enabled:
            return execute()
        t0 = time.perf_counter()
        key = key_fn()
        entry = self.cache.get(key)
        if entry is not None and entry.get("schema") == SCHEMA:
            if not self._spot(key):
                self._count("hits")
                v = revive(entry["verdict"])
                v.cached, v.wall_s = True, time.perf_counter() - t0
                return v
            self._count("spot_checks")
            fresh = execute()
            old = entry["verdict"]
            if [old.get(k) for k in FINGERPRINT] != [getattr(fresh, k) for k in FINGERPRINT]:
                detail = {"cell_key": self.cell_key, "key": key,
                          "cached": {k: old.get(k) for k in FINGERPRINT},
                          "fresh": {k: getattr(fresh, k) for k in FINGERPRINT},
                          "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                self.mismatches.append(detail)
                self.cache.evict(key)
                self.cache.mark_nondeterministic(self.task, detail)
                self.enabled = False  # the rest of this cell runs uncached
            self._count("misses")
            return fresh
        self._count("misses")
        v = execute()
        if not v.timed_out and (v.tests or v.failures or v.errors or v.skipped):
            self.cache.put(key, {"schema": SCHEMA, "verdict": asdict(v), "task": self.task,
                                 "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        return v

    def summary(self) -> dict:
        return {"status": "on" if self.enabled else "disabled: nondeterministic", "hits": self.hits,
                "misses": self.misses, "spot_checks": self.spot_checks, "mismatches": len(self.mismatches)}


# The session of the cell running in this context. A context variable, scoped to the cell by
# ``activate``, rather than an argument: passing it explicitly would thread a cache through the arm,
# the controller, the judge and the adjudicator down to ``run_pytest``, none of which reads it, while
# the one reader is ``run_pytest``. Rather than a module global: a session is one cell's, and two
# cells in two threads of one process (or a thread that runs no cell) must not see each other's; a
# thread the cell itself starts with a copy of its context (the judged pair's plain run,
# harness.judge.testrun ``run_judged_and_plain``) shares it.
_SESSION: contextvars.ContextVar[Session | None] = contextvars.ContextVar("verdict_cache_session", default=None)


def active() -> Session | None:
    """The session of the cell running in this context (``activate``), else None (nothing cached)."""
    return _SESSION.get()


@contextlib.contextmanager
def activate(config: dict | None, task: str, cell_key: str):
    """Make a session active for the duration of a cell, in this context. ``config``: {"enabled",
    "dir", "spot_rate", "seed", "disabled_tasks"}; a falsy config or enabled=False yields None."""
    config = config or {}
    if not config.get("enabled") or not config.get("dir") or task in set(config.get("disabled_tasks") or ()):
        yield None
        return
    session = Session(VerdictCache(Path(config["dir"])), task, cell_key, seed=str(config.get("seed", "0")),
                      spot_rate=float(config.get("spot_rate", DEFAULT_SPOT_RATE)))
    token = _SESSION.set(session)
    try:
        yield session
    finally:
        _SESSION.reset(token)


@contextlib.contextmanager
def suspended():
    """No session inside (a run whose verdict must be executed, never reused); the cell's again after."""
    token = _SESSION.set(None)
    try:
        yield
    finally:
        _SESSION.reset(token)
