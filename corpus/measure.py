"""Measure gates against mutants: false-accept and false-reject rates with their own
denominators, incapacity counted apart, vacuity verdicts with the mutant that proves each, and
the loops excluded (with why) - the exclusions are part of the denominator.

Method (written next to every number in the outputs):
- false accept = a gate accepts a *destroying* mutant; rate = false accepts / destroying mutants
  the gate judged (accept or reject). Wilson 95%.
- false reject = a gate rejects a *preserving* mutant; rate = false rejects / preserving mutants
  the gate judged. Wilson 95%.
- incapacity (timeout, crash, missing tool, unexpected exit) is counted on its own and enters
  neither denominator; an empty denominator is reported "n/a", never 0 or 1.
- equivalent mutants (a cheap check proved them identical: same bytecode, or a trivially
  equivalent form) are counted on their own, never judged, and enter neither denominator.
- vacuity: *absence* = the gate accepted a mutant in which the artifact is gone (deleted,
  emptied, blank); *hollowing* = it accepted a mutant that keeps the structure and drops the
  content; *self-attesting* = it accepted a mutant that keeps a self-reported field (status,
  passed, verified, ...) and destroys what it attests to. "untested" when no probe mutant of
  that class was judged.
- pytest gates are judged on the fast path (only the tests that ran the changed lines on the
  conforming artifact, forked from a pre-imported pytest, -x); the verdict is the cold path's.
"""
from __future__ import annotations

import csv
import json
import os
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from corpus.catalogue import Loop
from corpus.fast_pytest import PytestSession
from corpus.gates import Gate, Judgement, Verdict, judge
from corpus.incremental import JudgmentCache, SuiteSplit, world_digest
from corpus.kill_history import KILL_HISTORY
from corpus.model import DESTROYING, EQUIVALENT, PRESERVING, ArtifactSpec, Mutant, sha256
from corpus.operators import generate
from corpus.rerun import FineReuse, fine_cache_key
from corpus.screen import rule_of
from corpus.text import escape_controls
from corpus.tier2 import load_tier2
from corpus.workdir import materialize
from harness.core import runio
from harness.core.wilson import wilson

METHOD = __doc__.split("Method (written next to every number in the outputs):", 1)[1].strip()
VACUITY_CLASSES = ("absence", "hollowing", "self-attestation")
NOT_JUDGED = "not-judged"     # the verdict field of an equivalent mutant (never run)
SKIPPED = "skipped"           # the verdict field of a mutant of a gate whose control could not be judged
JUDGED_VERDICTS = (Verdict.ACCEPT.value, Verdict.REJECT.value)
# a mutant's timeout, derived from the control's own judgment time t (mutmut's rule has the same
# shape): TIMEOUT_FACTOR * t + TIMEOUT_SLACK_S, never above the gate's declared timeout
TIMEOUT_FACTOR = 10.0
TIMEOUT_SLACK_S = 5.0
VACUOUS_VERDICTS = ("vacuous", "self-attesting")
MISSING_TOOL = "external tool not present"     # an exclusion: a gate's required tool is not installed


@dataclass
class Job:
    loop: Loop
    gate: Gate
    mutant: Mutant | None       # None = the conforming artifact itself (the control)


@dataclass
class Row:
    loop: str
    gate: str
    gate_path: str
    gate_status: str
    mutant: str
    family: str
    tier: int | None
    operator: str
    label: str | None
    probe: str | None
    verdict: str
    reason: str
    seconds: float
    executor: str = "cold"        # "cold", "fork", "swap", "coverage" (accepted: no test ran the change), "none"
    tests: int | None = None      # tests the fork path selected; None = the whole suite
    killer: str | None = None     # the fast path's first failing test (a reject's), by node id

    @property
    def is_control(self) -> bool:
        return self.family == "control"


@dataclass
class Measurement:
    rows: list[Row] = field(default_factory=list)
    exclusions: list[dict] = field(default_factory=list)
    loops: list[str] = field(default_factory=list)
    families: tuple[str, ...] = ("v1",)
    wall_s: float = 0.0
    mutants: dict[str, Mutant] = field(default_factory=dict)      # id -> mutant (for diffs)
    conforming: dict[str, tuple[str, bytes]] = field(default_factory=dict)  # loop -> (target, bytes)
    resumed: int = 0              # judgments reused from the journal of an earlier, killed run
    # (loop, gate file) -> {"timeout_s", "basis"}: the mutants' timeout derived from the control
    timeouts: dict[tuple[str, str], dict] = field(default_factory=dict)
    cached: int = 0               # judgments reused from the judgment cache (unchanged since an earlier run)
    # (loop, gate file) -> why its mutants were not judged (the control could not be judged)
    stopped: dict[tuple[str, str], str] = field(default_factory=dict)


def _row(job: Job, verdict: str, reason: str, seconds: float = 0.0, executor: str = "cold",
         tests: int | None = None, killer: str | None = None) -> Row:
    m = job.mutant
    return Row(loop=job.loop.id, gate=job.gate.name, gate_path=str(job.gate.path),
               gate_status=job.gate.status,
               mutant=m.id if m else f"{job.loop.id}/control", family=m.family if m else "control",
               tier=m.tier if m else None, operator=m.operator if m else "conforming",
               label=m.label if m else None, probe=m.probe if m else None,
               verdict=verdict, reason=escape_controls(reason), seconds=seconds, executor=executor,
               tests=tests, killer=killer)


def run_job(job: Job) -> Row:
    """The cold path: a fresh copy of the artifact directory, one gate run."""
    if job.mutant is not None and job.mutant.label == EQUIVALENT:
        return _row(job, NOT_JUDGED, job.mutant.note, executor="none")
    with tempfile.TemporaryDirectory(prefix="corpus-mut-") as tmp:
        d = materialize(job.loop.artifact_dir, job.mutant, Path(tmp) / "a")
        j: Judgement = judge(job.gate, d, job.loop.target)
    return _row(job, j.verdict.value, j.reason, j.seconds)


def plan(loops: list[Loop], families=("v1",), tier2: bool = True,
         gates: dict[str, list[Gate]] | None = None) -> tuple[list[Job], list[dict]]:
    """All (gate, mutant) jobs, plus the exclusions (loop or loop x family, with the reason)."""
    jobs: list[Job] = []
    exclusions: list[dict] = []
    for loop in loops:
        loop_gates = gates[loop.id] if gates and loop.id in gates else loop.gates()
        missing = sorted({t for g in loop_gates for t in g.missing_tools()})
        if missing:
            exclusions.append({"loop": loop.id, "scope": "all", "reason": MISSING_TOOL,
                               "detail": f"probed with shutil.which: {', '.join(missing)} not found",
                               "gates": [{"gate": g.name, "status": g.status, "missing": g.missing_tools()}
                                         for g in loop_gates if g.missing_tools()]})
            continue
        mutants: list[Mutant] = []
        if loop.tier1_excluded:
            exclusions.append({"loop": loop.id, "scope": "tier1", "reason": loop.tier1_excluded,
                               "detail": "covered by tier 2 only"})
        else:
            spec: ArtifactSpec = loop.artifact_spec()
            for fam in families:
                mutants += generate(spec, fam)
            if "fine" in families and loop.kind == "python" and loop.hints.get("role") != "code":
                exclusions.append({"loop": loop.id, "scope": "fine", "reason": "requirement is not behaviour",
                                   "detail": "family fine applies where the hints declare role = \"code\" "
                                             "(the requirement is the module's behaviour)"})
        if tier2:
            mutants += load_tier2(loop)
        if not mutants:
            exclusions.append({"loop": loop.id, "scope": "all", "reason": "no mutants",
                               "detail": "no operator applies and no tier-2 mutant exists"})
            continue
        for g in loop_gates:
            jobs.append(Job(loop, g, None))
            jobs += [Job(loop, g, m) for m in mutants]
    return jobs, exclusions


def _pool(fn, items: list, workers: int) -> list:
    """``fn`` over ``items`` on ``workers`` threads, results in order. On an interrupt (Ctrl-C) the
    queued items are cancelled and the running ones finish (each journals itself as it ends)
    before the interrupt propagates, so a stop loses no judgment it reached."""
    if workers <= 1 or len(items) <= 1:
        return [fn(it) for it in items]
    ex = ThreadPoolExecutor(max_workers=workers)
    try:
        return list(ex.map(fn, items))
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def _fast_rows(todo: list[Job], session: PytestSession, tick, reuse: FineReuse | None = None) -> list[Row]:
    """One pytest gate's mutant jobs (none equivalent, none reused) through corpus/fast_pytest.py
    (coverage-selected tests, forked from a pre-imported pytest, -x, parallel); the control was
    judged cold before, as the reference verdict. ``tick(row)`` is called as each row is
    finished; ``reuse`` stores each judgment with the test fingerprints it rests on."""

    def fast(job: Job) -> Row:
        fj = session.judge(job.mutant)
        j = fj.judgement
        row = _row(job, j.verdict.value, j.reason, j.seconds, fj.executor, fj.tests, fj.killer)
        if reuse is not None:
            reuse.remember(_job_key(job), job.mutant, session, row, fj.ran)
        return tick(row)

    return _pool(fast, todo, session.workers)


def _reused_rows(group: list[Job], session: PytestSession, reuse: FineReuse | None) -> tuple[list[Row], list[Job]]:
    """(rows reused by ``reuse`` - corpus/rerun.py: the mutant's unit and what it reaches are
    unchanged, and so are the fingerprints of the tests its verdict rests on -, the jobs left
    to judge). Equivalent mutants are left to judge (they are never run)."""
    rows: list[Row] = []
    todo: list[Job] = []
    for j in group:
        hit = reuse.lookup(_job_key(j), j.mutant, session) if reuse is not None and j.mutant is not None \
            and j.mutant.label != EQUIVALENT else None
        if hit is None:
            todo.append(j)
        else:
            rows.append(_row(j, hit["verdict"], hit.get("reason", ""), hit.get("seconds", 0.0), "cached",
                             hit.get("tests"), hit.get("killer")))
    return rows, todo


def derive_timeout(gate: Gate, control_s: float) -> dict:
    """Set ``gate``'s (and its children's) mutant timeout from the control's own judgment time:
    TIMEOUT_FACTOR x control + TIMEOUT_SLACK_S, never above the declared timeout (a mutant that
    loops forever is stopped at a few times what the suite needs, not at the declared ceiling)."""
    derived = round(TIMEOUT_FACTOR * control_s + TIMEOUT_SLACK_S, 2)
    todo = [gate]
    while todo:
        g = todo.pop()
        g.derived_timeout_s = derived
        todo += g.children
    return {"timeout_s": gate.timeout_s,
            "basis": f"min(declared {gate.declared_timeout_s:g}s, {TIMEOUT_FACTOR:g} x control "
                     f"{control_s:.2f}s + {TIMEOUT_SLACK_S:g}s)"}


def _job_key(j: Job) -> tuple[str, str, str]:
    return (j.loop.id, str(j.gate.path), j.mutant.id if j.mutant else f"{j.loop.id}/control")


class Journal:
    """Append-only JSON lines, one finished judgment each, flushed as it ends, so a killed
    measurement keeps every verdict it reached. A line is reused only for the same job (loop,
    gate file, mutant id) whose mutant bytes, label and gate files (``Gate.digest``) are
    unchanged; a torn last line (a kill while writing) is ignored."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._gate_digests: dict[str, str] = {}

    def gate_digest(self, gate: Gate) -> str:
        key = str(gate.path)
        if key not in self._gate_digests:
            self._gate_digests[key] = gate.digest()
        return self._gate_digests[key]

    def load(self, jobs: list[Job]) -> dict[tuple[str, str, str], Row]:
        by_key = {_job_key(j): j for j in jobs}
        out: dict[tuple[str, str, str], Row] = {}
        if not (self.path.exists() or self.path.is_symlink()):
            return out
        # the safe reader: a FIFO or a link in the journal's place is one line (exit 2), never a hang
        for line in runio.read_bytes(self.path, "journal").decode("utf-8", errors="replace").splitlines():
            try:
                d = runio.parse_json(line, str(self.path))  # nested past the bound: skipped as a torn line is
                row = Row(**{k: v for k, v in d.items() if k not in ("gate_digest", "mutant_digest")})
                row.reason = escape_controls(row.reason)
            except (runio.UnsafeFile, ValueError, TypeError, AttributeError):
                continue
            job = by_key.get((row.loop, row.gate_path, row.mutant))
            if job is not None and d.get("gate_digest") == self.gate_digest(job.gate) and \
                    d.get("mutant_digest") == (job.mutant.digest if job.mutant else None) and \
                    row.label == (job.mutant.label if job.mutant else None):
                out[_job_key(job)] = row
        return out

    def record(self, job: Job, row: Row) -> None:
        line = json.dumps({**asdict(row), "gate_digest": self.gate_digest(job.gate),
                           "mutant_digest": job.mutant.digest if job.mutant else None}) + "\n"
        with self._lock:
            runio.append_line(self.path, line.removesuffix("\n"))  # one write per line; a FIFO refused


def _start_early(loops: list[Loop], gates: dict[str, list[Gate]], workers: int, pre: ThreadPoolExecutor,
                 history: Path | None = None) -> dict[tuple[str, str], Future]:
    """The sessions of a fresh measurement's ``fine`` Python loops (role code), started before
    their mutants are generated: generating runs in this process while each session's coverage
    run and fork-servers start in theirs (issue 35: on ordered-set the two had run one after the
    other, generation then a quarter of the fixed cost). On the plan's own Gate objects."""
    starting: dict[tuple[str, str], Future] = {}
    for lp in loops:
        if lp.kind != "python" or lp.hints.get("role") != "code" or lp.tier1_excluded:
            continue
        for g in gates[lp.id]:
            if g.kind == "pytest" and not g.missing_tools():
                s = PytestSession(g, lp.artifact_dir, lp.target, workers, history=history)
                starting[(lp.id, str(g.path))] = pre.submit(s.__enter__)
    return starting


def _fresh_start(loops: list[Loop], gates: dict[str, list[Gate]] | None, workers: int, pre: ThreadPoolExecutor,
                 history: Path | None) -> tuple[dict[str, list[Gate]], dict, dict]:
    """Nothing to reuse (no journal, no judgment cache yet: a first run, or the benchmark's, or
    ``--fresh`` with no journal left): every mutant will be judged, so each
    session and its cold control start now, while the mutants are generated (a rerun waits for
    the plan: a no-op rerun starts no suite). Returns (the plan's gates, sessions, controls)."""
    gates = {lp.id: gates[lp.id] if gates and lp.id in gates else lp.gates() for lp in loops}
    starting = _start_early(loops, gates, workers, pre, history)
    return gates, starting, _controls_early(starting, loops, gates, pre)


def _controls_early(started: dict[tuple[str, str], Future], loops: list[Loop], gates: dict[str, list[Gate]],
                    pre: ThreadPoolExecutor) -> dict[tuple[str, str], Future]:
    """The cold control (``run_job`` of the conforming artifact) of each gate ``_start_early``
    started a session for, started beside it: with the session no longer after the plan, the
    control would otherwise run alone between the plan and the first mutant."""
    by_id = {lp.id: lp for lp in loops}
    return {key: pre.submit(run_job, Job(by_id[key[0]], g, None)) for key in started
            for g in gates[key[0]] if str(g.path) == key[1]}


def _start_sessions(pending: list[Job], workers: int, pre: ThreadPoolExecutor,
                    history: Path | None = None, started: dict | None = None) -> dict[tuple[str, str], Future]:
    """A fast-path session (coverage run, fork-servers) per pytest gate with mutants to judge,
    started in the background on the plan's own Gate object (so a derived timeout reaches it).
    ``history``: the kill-history file (corpus/kill_history.py) the sessions share; ``started``:
    the sessions already starting (``_start_early``), kept."""
    starting: dict[tuple[str, str], Future] = dict(started or {})
    for j in pending:
        key = (j.loop.id, str(j.gate.path))
        if j.mutant is not None and key not in starting and j.gate.kind == "pytest" and not j.gate.missing_tools():
            s = PytestSession(j.gate, j.loop.artifact_dir, j.loop.target, workers, history=history)
            starting[key] = pre.submit(s.__enter__)
    return starting


def _controls_first(jobs: list[Job], pending: list[Job], resumed: dict, workers: int, tick,
                    early: dict[tuple[str, str], Future] | None = None) -> tuple[list[Row], dict, dict]:
    """Judge every pending control (cold: the reference verdict; ``early``: the ones already
    running, ``_controls_early``), then decide per gate: a control
    that could not be judged (incapacity: a timeout, a crash, exit 2) stops that gate's mutants,
    with the reason; otherwise the mutants' timeout is derived from the control's time."""
    early = early or {}
    todo = [j for j in pending if j.mutant is None]
    rows = [tick(early[(j.loop.id, str(j.gate.path))].result()) for j in todo if (j.loop.id, str(j.gate.path)) in early]
    rows += _pool(lambda j: tick(run_job(j)), [j for j in todo if (j.loop.id, str(j.gate.path)) not in early], workers)
    ctrl = {(r.loop, r.gate_path): r for r in [*rows, *resumed.values()] if r.is_control}
    timeouts: dict[tuple[str, str], dict] = {}
    stopped: dict[tuple[str, str], str] = {}
    for j in jobs:
        key = (j.loop.id, str(j.gate.path))
        c = ctrl.get(key)
        if j.mutant is not None or c is None:
            continue
        if c.verdict == Verdict.INCAPACITY.value:
            stopped[key] = f"not judged: the control could not be judged ({c.reason[:160]})"
        else:
            timeouts[key] = derive_timeout(j.gate, c.seconds)
    return rows, timeouts, stopped


def _narrow(jobs: list[Job], exclusions: list[dict], keep) -> list[Job]:
    """``keep = (predicate, why)``: the mutant jobs the predicate refuses leave the plan, counted in
    one exclusion per loop (``--since``: mutants outside the functions changed since a revision)."""
    if keep is None:
        return jobs
    pred, why = keep
    out: list[Job] = []
    dropped: dict[str, int] = {}
    for j in jobs:
        if j.mutant is None or pred(j):
            out.append(j)
        else:
            dropped[j.loop.id] = dropped.get(j.loop.id, 0) + 1
    for loop, n in dropped.items():
        exclusions.append({"loop": loop, "scope": "since", "reason": why,
                           "detail": f"{n} judgments of mutants outside the changed functions left out"})
    return out


def _world_roots(loop: Loop, gate: Gate) -> list[Path]:
    """The directories whose every file a judgment's key holds (corpus/incremental.world_digest):
    the artifact's directory, and for the gate and each child its directory and, for each path it
    names (tests, module, schema, data), that path's directory and the directory above it (a test
    reads ``Path(__file__).parents[1] / "data"``)."""
    out = [loop.artifact_dir]
    todo = [gate]
    while todo:
        g = todo.pop()
        out.append(g.dir)
        for key in ("schema", "module", "tests"):
            if key in g.spec:
                p = (g.dir / g.spec[key]).resolve()
                d = p if p.is_dir() else p.parent
                out += [d, d.parent]
        for extra in g.spec.get("data", []):
            out.append((g.dir / extra).resolve().parent)
        todo += g.children
    return out


def _from_cache(cache: JudgmentCache | None, jobs: list[Job], journalled: set, digest, fast: bool = True
                ) -> tuple[list[Row], dict[tuple[str, str, str], str], dict[tuple[str, str, str], tuple[str, SuiteSplit]],
                           set[str]]:
    """Rows reused from the judgment cache (corpus/incremental.py) for the jobs not already
    journalled, every job's cache key, every other mutant job's (fine key, its gate's
    ``SuiteSplit``) for the fast path's reuse (corpus/rerun.py), and the fine keys the reused
    rows name (kept in the store without computing them again: a no-op rerun reads the store and
    little else). A pytest gate judged on the fast path keys on the module's exact bytes here: any
    edit of the module goes through the fine reuse, which checks what the covering tests ran (a
    test composing two functions may kill a mutant of one once the other was edited; the
    name-level unit key cannot see that)."""
    if cache is None:
        return [], {}, {}, set()
    parents: dict[str, bytes] = {}
    rows: list[Row] = []
    keys: dict[tuple[str, str, str], str] = {}
    fkeys: dict[tuple[str, str, str], tuple[str, SuiteSplit]] = {}
    kept: set[str] = set()
    contexts: dict[tuple[str, str], tuple[str, str, SuiteSplit]] = {}
    for j in jobs:
        parent = parents.setdefault(j.loop.id, j.loop.target_path.read_bytes())
        gk = (j.loop.id, str(j.gate.path))
        fine = fast and j.gate.kind == "pytest"
        if gk not in contexts:
            split = SuiteSplit(j.gate.files(), Path(j.loop.target).parts[0].removesuffix(".py"))
            cd = world_digest(_world_roots(j.loop, j.gate), {j.loop.target_path, *(p for found in split.tests.values()
                                                                                   for p in found)}, cache.path.parent,
                              (j.loop.target_path.name, parent))
            exact = f":{sha256(parent)}" if fine else ""
            contexts[gk] = (digest(j.gate) + ":" + cd + exact, split.rest + ":" + cd, split)
        ctx, rest, split = contexts[gk]
        k = keys[_job_key(j)] = cache.key(j.loop.id, ctx, parent, j.mutant, exact=fine)
        hit = cache.get(k) or {}
        usable = hit.get("verdict") not in (SKIPPED, None)
        if j.mutant is not None and fine:
            if usable and isinstance(hit.get("fine_key"), str):
                kept.add(hit["fine_key"])
            else:
                fkeys[_job_key(j)] = (fine_cache_key(j.loop.id, rest, parent, j.mutant), split)
        if _job_key(j) in journalled or not usable:
            continue
        rows.append(_row(j, hit["verdict"], hit.get("reason", ""), hit.get("seconds", 0.0), "cached",
                         hit.get("tests"), hit.get("killer")))
    return rows, keys, fkeys, kept


class _Tick:
    """What happens to each finished judgment of a measurement: journalled (``book``), stored in the
    judgment cache (``store``; an incapable control is retried next run, never stored), counted and
    reported to ``progress(done, total)``. Called from the pool's threads."""

    def __init__(self, book, store, job_of: dict, cache_keys: dict, fine_keys: dict, progress, total: int):
        self.book, self.store, self.job_of, self.progress, self.total = book, store, job_of, progress, total
        self.cache_keys, self.fine_keys = cache_keys, fine_keys
        self.lock, self.done = threading.Lock(), 0

    def __call__(self, row: Row) -> Row:
        if self.book and row.verdict != SKIPPED:
            self.book.record(self.job_of[(row.loop, row.gate_path, row.mutant)], row)
        if self.store is not None and row.verdict != SKIPPED and \
                not (row.is_control and row.verdict == Verdict.INCAPACITY.value):   # retried next run
            fk = self.fine_keys.get((row.loop, row.gate_path, row.mutant))
            self.store.put(self.cache_keys[(row.loop, row.gate_path, row.mutant)], row,
                           {"fine_key": fk[0]} if fk else None)
        with self.lock:
            self.done += 1
            n = self.done
        if self.progress:
            self.progress(n, self.total)
        return row


def _judge_pending(jobs: list[Job], pending: list[Job], resumed: dict, workers: int, tick, starting: dict, reuse,
                   announce, early: dict | None = None) -> tuple[list[Row], dict, dict]:
    """The pending judgments, controls first (``_controls_first``): a gate whose control stopped has
    its mutants SKIPPED; a gate with a fork-server session has what the fine reuse keeps reused and
    the rest judged fast; every other mutant is judged cold in the pool. Returns the rows, the
    controls' timeouts and the stopped gates."""
    rows, timeouts, stopped = _controls_first(jobs, pending, resumed, workers, tick, early)
    groups: dict[tuple[str, str], list[Job]] = {}
    cold: list[Job] = []
    for j in pending:
        key = (j.loop.id, str(j.gate.path))
        if j.mutant is None:
            continue
        if key in stopped:
            rows.append(tick(_row(j, SKIPPED, stopped[key], executor="none")))
        elif key in starting:
            groups.setdefault(key, []).append(j)
        else:
            cold.append(j)
    todo: dict[tuple[str, str], list[Job]] = {}
    for key, group in groups.items():       # what the fine reuse keeps needs each session's coverage map
        kept, todo[key] = _reused_rows(group, starting[key].result(), reuse)
        rows += [tick(r) for r in kept]
    if announce is not None:
        announce(sum(1 for k in resumed if not k[2].endswith("/control")) + (reuse.reused if reuse else 0),
                 len(cold) + sum(len(t) for t in todo.values()))
    rows += _pool(lambda j: tick(run_job(j)), cold, workers)
    for key, group in todo.items():
        equivalent = [j for j in group if j.mutant is not None and j.mutant.label == EQUIVALENT]
        rows += [tick(run_job(j)) for j in equivalent]
        rows += _fast_rows([j for j in group if j not in equivalent], starting[key].result(), tick, reuse)
    return rows, timeouts, stopped


def _cache_all(store, rows: list[Row], cache_keys: dict, fine_keys: dict, fine_kept: set, narrowed: bool) -> None:
    """After a measurement: the judgments resumed from the journal join the cache too, and the cache
    keeps only this measurement's keys (a narrowed run, ``--since``, keeps the ones it left out)."""
    for r in rows:
        k = cache_keys.get((r.loop, r.gate_path, r.mutant))
        if k is not None and store.get(k) is None and r.verdict != SKIPPED and \
                not (r.is_control and r.verdict == Verdict.INCAPACITY.value):
            store.put(k, r)
    if not narrowed:
        store.compact(set(cache_keys.values()) | {k for k, _ in fine_keys.values()} | fine_kept)


def measure(loops: list[Loop], families=("v1",), tier2: bool = True, workers: int = 2,
            gates: dict[str, list[Gate]] | None = None, progress=None, fast: bool = True,
            journal: Path | None = None, preflight=None, cache: Path | None = None, keep=None,
            announce=None) -> Measurement:
    """Judge every job. ``fast``: pytest gates go through the fork-server path (same verdicts as
    the cold path, checked in tests/corpus/test_fast_pytest.py); every other gate runs cold. A
    pytest gate's session (its coverage run and servers) starts while the controls are judged.
    Controls come first: a gate whose control cannot be judged has its mutants marked SKIPPED
    (never run); the others get timeouts derived from their control (``derive_timeout``).
    ``journal``: each finished judgment is appended there as it ends, and the judgments already
    in it (same job, same mutant bytes, same gate files) are reused, not judged again.
    ``preflight(jobs)`` is called with the plan before anything is judged (it may raise).
    ``cache``: the judgment cache (corpus/incremental.py); a job whose key is in it is not judged
    again. ``keep``: (predicate, why) narrowing the mutant jobs (``--since``). ``announce(reused,
    to_judge)`` is called once the mutant judgments to run are known."""
    t0 = time.perf_counter()
    book = Journal(journal) if journal is not None else None
    history = cache.with_name(KILL_HISTORY) if cache else None
    pre = ThreadPoolExecutor(max_workers=2)
    starting: dict[tuple[str, str], Future] = {}
    controls: dict[tuple[str, str], Future] = {}
    try:
        if fast and "fine" in families and not any(f is not None and f.exists() for f in (journal, cache)):
            gates, starting, controls = _fresh_start(loops, gates, workers, pre, history)
        jobs, exclusions = plan(loops, families, tier2, gates)
        jobs = _narrow(jobs, exclusions, keep)
        if preflight is not None:
            preflight(jobs)
        resumed = book.load(jobs) if book else {}
        store = JudgmentCache(cache) if cache is not None else None
        cached, cache_keys, fine_keys, fine_kept = _from_cache(
            store, jobs, set(resumed), book.gate_digest if book else Journal(Path(os.devnull)).gate_digest, fast)
        resumed.update({(r.loop, r.gate_path, r.mutant): r for r in cached})
        pending = [j for j in jobs if _job_key(j) not in resumed]
        job_of = {_job_key(j): j for j in pending}
        tick = _Tick(book, store, job_of, cache_keys, fine_keys, progress, len(pending))
        rows: list[Row] = list(resumed.values())
        reuse = FineReuse(store, fine_keys) if store is not None else None
        if fast:
            starting = _start_sessions(pending, workers, pre, history, starting)
        judged, timeouts, stopped = _judge_pending(jobs, pending, resumed, workers, tick, starting, reuse, announce,
                                                   controls)
        rows += judged
    finally:
        pre.shutdown(wait=True, cancel_futures=True)
        for f in starting.values():
            if not f.cancelled() and f.exception() is None:
                f.result().__exit__(None, None, None)
    if store is not None:
        _cache_all(store, rows, cache_keys, fine_keys, fine_kept, narrowed=keep is not None)
    by_job = {(r.loop, r.gate_path, r.mutant): r for r in rows}      # back into plan order
    rows = [by_job[_job_key(j)] for j in jobs]
    measured = sorted({r.loop for r in rows})
    mutants = {j.mutant.id: j.mutant for j in jobs if j.mutant is not None}
    conforming = {lp.id: (lp.target, lp.target_path.read_bytes()) for lp in loops if lp.id in measured}
    return Measurement(rows=rows, exclusions=exclusions, loops=measured,
                       families=tuple(families) + (("tier2",) if tier2 else ()),
                       wall_s=time.perf_counter() - t0, mutants=mutants, conforming=conforming,
                       resumed=len(resumed) - len(cached), timeouts=timeouts, stopped=stopped,
                       cached=len(cached) + (reuse.reused if reuse is not None else 0))


# ----------------------------------------------------------------------------- summaries

def rates(rows: list[Row]) -> dict:
    """Counts and Wilson rates over mutant rows (controls excluded)."""
    rows = [r for r in rows if not r.is_control]
    d = [r for r in rows if r.label == DESTROYING]
    p = [r for r in rows if r.label == PRESERVING]
    d_j = [r for r in d if r.verdict in JUDGED_VERDICTS]
    p_j = [r for r in p if r.verdict in JUDGED_VERDICTS]
    fa = sum(r.verdict == Verdict.ACCEPT.value for r in d_j)
    fr = sum(r.verdict == Verdict.REJECT.value for r in p_j)
    return {
        "mutants": len(rows),
        "destroying_n": len(d), "destroying_judged": len(d_j),
        "false_accept": wilson(fa, len(d_j)),
        "false_accept_ids": [r.mutant for r in d_j if r.verdict == Verdict.ACCEPT.value],
        "preserving_n": len(p), "preserving_judged": len(p_j),
        "false_reject": wilson(fr, len(p_j)),
        "false_reject_ids": [r.mutant for r in p_j if r.verdict == Verdict.REJECT.value],
        "incapacity": sum(r.verdict == Verdict.INCAPACITY.value for r in rows),
        "incapacity_ids": [r.mutant for r in rows if r.verdict == Verdict.INCAPACITY.value],
        "equivalent": sum(r.label == EQUIVALENT for r in rows),
        # per rule of the screen that proved them (corpus/screen.py): screened, never dropped
        "equivalent_by_rule": dict(sorted(Counter(rule_of(r.reason) for r in rows if r.label == EQUIVALENT).items())),
        "skipped": sum(r.verdict == SKIPPED for r in rows),
    }


def vacuity(rows: list[Row]) -> dict:
    """Per vacuity class: verdict (vacuous - "self-attesting" for the self-attestation probe -,
    not vacuous, untested) and the proving mutants."""
    out = {}
    for cls in VACUITY_CLASSES:
        probes = [r for r in rows if r.probe == cls and r.label == DESTROYING]
        judged = [r for r in probes if r.verdict in JUDGED_VERDICTS]
        proof = [r.mutant for r in judged if r.verdict == Verdict.ACCEPT.value]
        bad = "self-attesting" if cls == "self-attestation" else "vacuous"
        verdict = bad if proof else ("not vacuous" if judged else "untested")
        out[cls] = {"verdict": verdict, "proved_by": proof, "probes_judged": len(judged),
                    "probes_incapacity": len(probes) - len(judged)}
    return out


def is_planted(status: str) -> bool:
    """A deliberately defective gate kept next to its repaired version (status "planted")."""
    return status.startswith("planted")


def gate_key(r: Row) -> tuple[str, str]:
    return (r.loop, r.gate_path)


def summarize(m: Measurement) -> dict:
    by_gate: dict[tuple[str, str], list[Row]] = {}
    for r in m.rows:
        by_gate.setdefault(gate_key(r), []).append(r)
    gates = []
    for (loop, path), rows in sorted(by_gate.items()):
        ctrl = [r for r in rows if r.is_control]
        first = rows[0]
        fams = {}
        for fam in m.families:
            fams[fam] = _jsonable(rates([r for r in rows if r.family == fam]))
        g: dict[str, Any]  # one gate's block of summary.json
        g = {"loop": loop, "gate": first.gate, "gate_path": path, "status": first.gate_status,
             "control_verdict": ctrl[0].verdict if ctrl else None,
             "control_reason": escape_controls(ctrl[0].reason) if ctrl else None,
             "all": _jsonable(rates(rows)), "by_family": fams, "vacuity": vacuity(rows)}
        g["vacuous"] = any(v["verdict"] in VACUOUS_VERDICTS for v in g["vacuity"].values())
        g["never_judges"] = all(r.verdict == Verdict.INCAPACITY.value for r in rows
                                if r.verdict not in (NOT_JUDGED, SKIPPED))
        g["seconds"] = round(sum(r.seconds for r in rows), 3)
        g["timeout"] = m.timeouts.get((loop, path))
        g["stopped"] = m.stopped.get((loop, path))
        g["survivors"] = [{"mutant": r.mutant, "operator": r.operator, "family": r.family}
                          for r in rows if r.label == DESTROYING and r.verdict == Verdict.ACCEPT.value]
        gates.append(g)
    totals = {}
    for planted, name in ((False, "current_and_repaired"), (True, "planted")):
        rows = [r for r in m.rows if is_planted(r.gate_status) == planted]
        totals[name] = {"all": _jsonable(rates(rows)),
                        "by_family": {f: _jsonable(rates([r for r in rows if r.family == f]))
                                      for f in m.families},
                        "gates": len({gate_key(r) for r in rows}),
                        "loops": len({r.loop for r in rows})}
    return {"method": METHOD, "families": list(m.families), "loops_measured": m.loops,
            "exclusions": m.exclusions, "gates": gates, "totals": totals,
            "vacuous_gates": [{"loop": g["loop"], "gate": g["gate"], "status": g["status"],
                               **{c: g["vacuity"][c] for c in VACUITY_CLASSES}}
                              for g in gates if g["vacuous"]],
            "controls_rejected": [{"loop": g["loop"], "gate": g["gate"], "verdict": g["control_verdict"],
                                   "reason": g["control_reason"]}
                                  for g in gates if g["control_verdict"] != Verdict.ACCEPT.value],
            "wall_s": round(m.wall_s, 2),
            # judgments reused from --out's judgment cache (executor "cached" in judgments.csv): a
            # number that must come from fresh judgments needs --fresh
            "reused_from_cache": m.cached}


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if hasattr(v, "as_dict"):
            out[k] = {**v.as_dict(), "fmt": v.fmt()}
        else:
            out[k] = v
    return out


def gate_failures(g: dict, *, vacuity_fails: bool = True, max_false_accept: float | None = None,
                  bound: str = "point") -> list[str]:
    """Why one (unplanted) gate fails CI, one line each; [] = it passes.

    vacuity_fails: a gate that never judges (every judgment incapacity: it exits 2, crashes or
    hangs), a gate that does not accept its own conforming artifact (reject or incapacity on the
    control: it cannot accept, so every false-accept rate it shows is meaningless), a gate
    with a vacuity verdict (absence, hollowing, self-attesting), and a gate no vacuity probe was
    judged against (every class untested: like an n/a rate, it cannot show anything) fail.
    max_false_accept: the false-accept rate over all judged destroying mutants (``bound`` "point")
    or its Wilson 95% upper bound (``bound`` "upper") above RATE fails; so does an empty
    denominator (n/a), which cannot show the rate is below anything.
    """
    name = f"{g['loop']}:{g['gate']}"
    out = []
    if vacuity_fails:
        if g.get("never_judges"):
            out.append(f"{name} never judges: every judgment, the control included, was incapacity "
                       f"({(g['control_reason'] or '')[:100]})")
        elif g["control_verdict"] != Verdict.ACCEPT.value:
            out.append(f"{name} cannot accept its own conforming artifact (control: {g['control_verdict']}: "
                       f"{(g['control_reason'] or '')[:100]})")
        if g["vacuous"]:
            which = [f"{c} ({g['vacuity'][c]['verdict']}, proved by {g['vacuity'][c]['proved_by'][0]})"
                     for c in VACUITY_CLASSES if g["vacuity"][c]["verdict"] in VACUOUS_VERDICTS]
            out.append(f"{name} is vacuous: {'; '.join(which)}")
        elif not g.get("never_judges") and _vacuity_untested(g):
            out.append(f"{name}: vacuity untested: no absence, hollowing or self-attestation probe was judged "
                       f"(family fine has none; add --family v1), so it cannot be shown not vacuous")
    if max_false_accept is not None:
        fa = g["all"]["false_accept"]
        value = fa["rate"] if bound == "point" else fa["hi"]
        what = "false-accept rate" if bound == "point" else "Wilson 95% upper bound of the false-accept rate"
        if value is None:
            out.append(f"{name}: {what} is n/a (no destroying mutant judged): cannot show it is <= {max_false_accept:g}")
        elif value > max_false_accept:
            out.append(f"{name}: {what} {value:.4f} > {max_false_accept:g} ({fa['fmt']})")
    return out


def nothing_measured(summary: dict) -> str | None:
    """One line saying why no gate measured anything, or None: every gate's control (the
    conforming artifact) was rejected or not judged - its suite fails before any mutation, or
    collects no test (pytest exit 5) - so each survivor would be the suite's failure, not a gap
    (issue 35: such a run printed a rate and exited 0; mutmut exits 1)."""
    gates = summary.get("gates") or []
    if not gates:
        return "nothing measured: no gate judged any mutant"
    if any(g["control_verdict"] == Verdict.ACCEPT.value for g in gates):
        return None
    g = gates[0]
    reason = (g["control_reason"] or "").strip().splitlines()
    detail = "its suite collected no test (pytest exit 5)" if (g["control_reason"] or "").startswith("pytest exit 5") \
        else f"its suite does not pass on the unmutated artifact (control: {g['control_verdict']}" \
             f"{': ' + reason[-1][:120] if reason else ''})"
    more = f" (and {len(gates) - 1} more gate(s))" if len(gates) > 1 else ""
    return f"nothing measured: {g['loop']}:{g['gate']}: {detail}{more}"


def _vacuity_untested(g: dict) -> bool:
    return all(g["vacuity"][c]["verdict"] == "untested" for c in VACUITY_CLASSES)


def ci_failures(summary: dict, *, fail_on_vacuous: bool = True, max_false_accept: float | None = None,
                bound: str = "point") -> list[str]:
    """The CI verdict over every unplanted gate (planted gates are defective on purpose). Under
    ``fail_on_vacuous`` an unplanted gate whose required tool is missing fails too: it was never
    measured, and leaving it out would let CI pass on a gate that judges nothing."""
    out = [f for g in summary["gates"] if not is_planted(g["status"])
           for f in gate_failures(g, vacuity_fails=fail_on_vacuous, max_false_accept=max_false_accept,
                                  bound=bound)]
    if fail_on_vacuous:
        out += missing_tool_failures(summary)
    return out


def missing_tool_failures(summary: dict) -> list[str]:
    """One line per unplanted gate excluded because a tool it requires is not installed."""
    return [f"{e['loop']}:{g['gate']} never judged: required tool {', '.join(g['missing'])} not found "
            f"(probed with shutil.which); install it or drop the gate"
            for e in summary.get("exclusions", []) if e["reason"] == MISSING_TOOL
            for g in e.get("gates", []) if not is_planted(g["status"])]


def planted_report(summary: dict, loops: list[Loop]) -> list[dict]:
    """For each planted gate: which class was planted, was it found, by which mutant."""
    out = []
    for g in summary["gates"]:
        if not is_planted(g["status"]):
            continue
        spec = next((gt.spec for lp in loops if lp.id == g["loop"] for gt in lp.gates()
                     if str(gt.path) == g["gate_path"]), {})
        planted = spec.get("planted", "")
        cls_found = {c: g["vacuity"][c]["proved_by"] for c in VACUITY_CLASSES}
        fa = g["all"]["false_reject_ids"] if planted == "false-reject" else g["all"]["false_accept_ids"]
        found = bool(cls_found.get(planted)) if planted in VACUITY_CLASSES else bool(fa)
        out.append({"loop": g["loop"], "gate": g["gate"], "planted": planted, "found": found,
                    "proved_by": cls_found.get(planted) or fa[:3],
                    "false_accept": g["all"]["false_accept"]["fmt"]})
    return out


# ----------------------------------------------------------------------------- output

def write_outputs(summary: dict, m: Measurement, out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "summary.json", out / "gates.csv", out / "judgments.csv", out / "exclusions.csv"]
    paths[0].write_text(json.dumps(summary, indent=2, default=str) + "\n")
    with paths[1].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["loop", "gate", "status", "family", "destroying_n", "destroying_judged",
                    "false_accepts", "false_accept_rate", "fa_lo", "fa_hi", "preserving_n",
                    "preserving_judged", "false_rejects", "false_reject_rate", "fr_lo", "fr_hi",
                    "incapacity", "equivalent", "absence", "hollowing", "self_attestation",
                    "control_verdict"])
        for g in summary["gates"]:
            for fam, r in [("all", g["all"]), *g["by_family"].items()]:
                fa, fr = r["false_accept"], r["false_reject"]
                w.writerow([g["loop"], g["gate"], g["status"], fam, r["destroying_n"],
                            r["destroying_judged"], fa["k"], _na(fa["rate"]), _na(fa["lo"]),
                            _na(fa["hi"]), r["preserving_n"], r["preserving_judged"], fr["k"],
                            _na(fr["rate"]), _na(fr["lo"]), _na(fr["hi"]), r["incapacity"], r["equivalent"],
                            g["vacuity"]["absence"]["verdict"], g["vacuity"]["hollowing"]["verdict"],
                            g["vacuity"]["self-attestation"]["verdict"], g["control_verdict"]])
    with paths[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["loop", "gate", "status", "mutant", "family", "tier", "operator", "label",
                    "probe", "verdict", "seconds", "executor", "tests", "reason"])
        for r in m.rows:
            w.writerow([r.loop, r.gate, r.gate_status, r.mutant, r.family, r.tier, r.operator,
                        r.label, r.probe, r.verdict, f"{r.seconds:.3f}", r.executor,
                        "all" if r.tests is None else r.tests, escape_controls(r.reason[:200])])
    with paths[3].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["loop", "scope", "reason", "detail"])
        for e in summary["exclusions"]:
            w.writerow([e["loop"], e["scope"], e["reason"], escape_controls(e["detail"])])
    return paths


def _rules(r: dict) -> str:
    """'identical bytecode 3, small-int identity 1': the screen's rules with their counts."""
    return ", ".join(f"{k} {v}" for k, v in (r.get("equivalent_by_rule") or {}).items())


def _na(x):
    return "n/a" if x is None else f"{x:.4f}"


def render_table(summary: dict) -> str:
    lines = []
    hdr = f"{'loop':28} {'gate':26} {'status':15} {'false accept (destroying)':30} " \
          f"{'false reject (preserving)':30} {'incap':>5}  vacuity"
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for g in summary["gates"]:
        r = g["all"]
        vac = ",".join(g["vacuity"][c]["verdict"] if c == "self-attestation" else c
                       for c in VACUITY_CLASSES if g["vacuity"][c]["verdict"] in VACUOUS_VERDICTS) or \
            ("untested" if _vacuity_untested(g) else "-")
        ctrl = "" if g["control_verdict"] == "accept" else f"  [control: {g['control_verdict']}]"
        lines.append(f"{g['loop'][:28]:28} {g['gate'][:26]:26} {g['status'][:15]:15} "
                     f"{r['false_accept']['fmt']:30} {r['false_reject']['fmt']:30} "
                     f"{r['incapacity']:>5}  {vac}{ctrl}")
    lines.append("")
    for name, t in summary["totals"].items():
        if not t["gates"]:
            continue
        lines.append(f"TOTAL {name} ({t['gates']} gates over {t['loops']} loops)")
        for fam, r in [("all", t["all"]), *t["by_family"].items()]:
            lines.append(f"  {fam:6} destroying {r['destroying_judged']:>4}/{r['destroying_n']:<4} judged  "
                         f"false accept {r['false_accept']['fmt']:28} preserving "
                         f"{r['preserving_judged']:>4}/{r['preserving_n']:<4} judged  false reject "
                         f"{r['false_reject']['fmt']:28} incapacity {r['incapacity']}"
                         f"{'  equivalent ' + str(r['equivalent']) + ' (not judged: ' + _rules(r) + ')' if r['equivalent'] else ''}")
    if summary["vacuous_gates"]:
        lines.append("")
        lines.append("VACUOUS GATES (class: proving mutant)")
        for v in summary["vacuous_gates"]:
            for c in VACUITY_CLASSES:
                if v[c]["verdict"] in VACUOUS_VERDICTS:
                    lines.append(f"  {v['loop']}:{v['gate']} [{v['status']}] {c}: {v[c]['proved_by'][0]}")
    if summary["controls_rejected"]:
        lines.append("")
        lines.append("GATES NOT ACCEPTING THEIR CONFORMING ARTIFACT (rates below are suspect)")
        for c in summary["controls_rejected"]:
            lines.append(f"  {c['loop']}:{c['gate']} -> {c['verdict']}: {c['reason'][:120]}")
    stopped = [g for g in summary["gates"] if g.get("stopped")]
    if stopped:
        lines.append("")
        lines.append("JUDGING STOPPED (the control could not be judged, so no mutant verdict could mean anything)")
        for g in stopped:
            lines.append(f"  {g['loop']}:{g['gate']}: {g['all']['skipped']} mutants not judged; {g['stopped'][:160]}")
    lines.append("")
    lines.append(f"EXCLUSIONS ({len(summary['exclusions'])}; the exclusions are part of the denominator)")
    for e in summary["exclusions"]:
        lines.append(f"  {e['loop']:28} [{e['scope']}] {e['reason']}: {e['detail']}")
    lines.append("")
    lines.append("method: false-accept rate = accepted destroying / judged destroying; false-reject rate = "
                 "rejected preserving / judged preserving; Wilson 95%; incapacity apart; equivalent mutants "
                 "(identical bytecode) apart, never judged; n/a = empty denominator.")
    return "\n".join(lines)
