"""The run driver: protocol -> ordered cells -> pool of cell runners -> ledger (single writer).

Run directory layout:
  run.json          what was run: protocol path and digest, pre-registered or exploratory, engine
  run.lock          held (flock) by the one session running the run: a second one is refused
  records.jsonl     one hash-chained record per cell key (records.head mirrors the head hash)
  voids.jsonl       every void attempt (accounting; a cell is rerun per the protocol's rerun policy)
  cells/*.events.jsonl  each cell's event log
  table.md          the per-arm table
  spend.json, spend.jsonl   with a [budget] ceiling: the run's spend and one row per engine call
                    (harness.ledger.spend); at the ceiling the run stops (exit 4), unrun cells stay unrun
Resuming (``--resume DIR``) repairs a torn last line, skips cell keys already scored in the ledger,
reruns cells whose record is void (rerun policy; the scored rerun supersedes the void record) and
runs the rest, so a kill at any moment ends, after resume, with one record per key. ``run.json`` is
written atomically; a torn one is repaired from the records (harness.ledger.rundir). SIGINT/SIGTERM
(``StopRequest``) stop dispatch; every stop keeps the records of cells in flight that finish.
"""
from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from harness.core import protocol as protocol_mod
from harness.core import record as record_mod
from harness.core import runio, statefile
from harness.core.errors import ExitCode, InputError
from harness.core.matrix import Cell, run_order
from harness.core.outcomes import Outcome, RunStop, VoidKind
from harness.core.protocol import Protocol, load_protocol
from harness.core.record import CellRecord
from harness.core.registry import needs_model
from harness.core.roles import Binding, Role, RunEngines, model_levels, resolve_roles
from harness.core.runio import DirLock
from harness.core.runmeta import RunMeta, RunStamp
from harness.core.table import one_per_cell, per_arm_rows, render
from harness.core.tasks import load_task
from harness.judge import verdict_cache
from harness.ledger import rundir
from harness.ledger import spend as spend_mod
from harness.ledger.ledger import Ledger, LedgerRefused
from harness.ledger.seal import Sealer, seal_path
from harness.run import executors
from harness.run import pilot as pilot_mod
from harness.run.cellrun import CellSpec
from harness.run.journals import RequeueLine, VoidLine
from harness.run.progress import Progress
from harness.sandbox import procs
from harness.sandbox.sandbox import warm_requested


@dataclass
class StopRequest:
    """Set by a signal handler (harness.cli.cli): the run stops dispatching, lets the cells in flight
    finish and records them, and ends with a STOPPED line (exit 4)."""
    signal: str | None = None


@dataclass
class RunOutcome:
    run_dir: Path
    records: list[CellRecord]
    still_void: list[str]
    table: str
    wall_s: float
    executed: int
    projection: dict | None = None  # --pilot: projected cost and time of the full design
    stopped: str | None = None  # why the run stopped early (credentials refused, disk full); --resume continues
    not_run: dict | None = None  # when stopped: cells per arm with no record (never void, never scored)
    spend: str | None = None  # with a [budget] ceiling: the spend line (harness.ledger.spend summary)
    stop_kind: RunStop | None = None  # when stopped: why, as a closed kind (stops.jsonl's "kind")

    @property
    def exit_code(self) -> ExitCode:
        """OK every cell scored; INCOMPLETE some still void after reruns; STOPPED early (``stopped``)."""
        return ExitCode.STOPPED if self.stopped else ExitCode.INCOMPLETE if self.still_void else ExitCode.OK


def _expected_digests(proto: Protocol, lock: dict) -> dict[str, dict]:
    out = {}
    for tid in proto.tasks:
        task = load_task(proto.tasks_dir / tid)
        rel = lambda p: f"{tid}/{p.relative_to(task.root).as_posix()}"  # noqa: E731
        out[tid] = {"acceptance": lock["files"].get(rel(task.acceptance)), "oracle": lock["files"].get(rel(task.oracle))}
    return out


def _proxy_problem():
    from harness.engines.deadline import proxy_problem
    return proxy_problem()


def validate_run_inputs(proto: Protocol, *, engine: str, reviewer_engine: str, model: str | None,
                        engine_options: dict) -> None:
    """Everything a run needs, checked before anything runs (InputError naming what is wrong): each
    engine name (the run's and any an arm names), a model for every live engine, a transcript for
    the replay engine, and every task and scenario the protocol names."""
    from harness import engines
    known = engines.known()
    run = RunEngines(engine, reviewer_engine, model)
    for arm in proto.arms:
        for levels in model_levels(proto.factors):
            roles = resolve_roles(arm, run, levels)
            own = arm.settings
            for role, key, on_arm in ((Role.WORKER, "engine", bool(own.engine)),
                                      (Role.REVIEWER, "reviewer_engine", bool(own.reviewer_engine))):
                _check_role_engine(proto, arm, key, on_arm, roles.of(role), known, engine_options)
    _check_transcript_and_corpus(proto, engine_options)


def _check_role_engine(proto: Protocol, arm, key: str, on_arm: bool, bound: Binding, known, engine_options: dict) -> None:
    """One role's engine is known, has a model when it is live (and its provider is reachable), and a
    transcript when it is the replay engine. ``key``: the arm's key that names the role's engine; ``on_arm``:
    the arm sets it (else the run's option does)."""
    name = bound.engine
    if name not in known:
        raise InputError(str(proto.path), f"arms.{arm.name}.{key}" if on_arm else f"--{key.replace('_', '-')}",
                         f"unknown engine {name!r} (known: {', '.join(known)})")
    if needs_model(name) and not bound.model:
        raise InputError(str(proto.path), f"arms.{arm.name}.model",
                         f"the {name} engine needs a model: pass --model ID, or set model on the arm or as a factor")
    proxy = needs_model(name) and _proxy_problem()
    if proxy:  # a live engine could not reach its provider under the reply deadline: every cell void
        raise InputError("environment", proxy[0], proxy[1])
    from harness.engines.replay import ReplayOptions
    replay = ReplayOptions.of(engine_options)
    if name == "replay" and not (replay.transcript or replay.replay_from):
        raise InputError(str(proto.path), "--engine", "the replay engine needs --replay-from RUN_DIR or --transcript FILE")


def _check_transcript_and_corpus(proto: Protocol, engine_options: dict) -> None:
    """A hand-written agent script is checked entry by entry; every task and scenario loads."""
    from harness.engines.replay import ReplayOptions
    transcript = ReplayOptions.of(engine_options).transcript
    if transcript:  # a hand-written agent script: every entry checked now
        from harness.engines.transcript import load_entries
        load_entries(Path(transcript))
    protocol_mod.check_corpus(proto)


def prepare(proto_path: Path, out_dir: Path, *, engine: str | None, reviewer_engine: str | None, model: str | None,
            exploratory: bool, engine_options: dict | None = None) -> RunMeta:
    """Validate and write run.json for a new run. Refuses an unlocked or drifted protocol."""
    proto = load_protocol(proto_path)
    if exploratory:
        lock = protocol_mod.compute_lock(proto)
    else:
        changes = protocol_mod.drift(proto)
        if changes:
            raise InputError(str(proto.path), "lock", "digests drifted since freeze:\n  " + "\n  ".join(changes)
                             + "\nre-freeze (a new pre-registration) or pass --exploratory")
        lock = protocol_mod.read_lock(proto)
    state = rundir.state_of(out_dir)
    if state is rundir.DirState.RUN:
        raise InputError(str(out_dir), "--out", "already holds a run; use --resume to continue it")
    if state is rundir.DirState.OTHER:
        raise InputError(str(out_dir), "--out", "exists and is not empty (and not a run); give a new or empty directory")
    run = RunEngines.choose(proto.engine, engine, reviewer_engine, model)
    validate_run_inputs(proto, engine=run.engine, reviewer_engine=run.reviewer_engine, model=model,
                        engine_options=engine_options or {})
    _make_out_dir(out_dir)
    meta = rundir.new_meta(protocol_path=str(proto.path), protocol=proto.name, protocol_digest=lock["digest"],
                           preregistered=not exploratory, engine=run.engine, reviewer_engine=run.reviewer_engine, model=model,
                           engine_options=engine_options or {}, lock=lock)
    if state is rundir.DirState.TORN_WITH_RECORDS:  # a kill while run.json was written: repaired, then continued
        meta = rundir.meta_from_records(out_dir, meta, lock)
    rundir.set_aside_torn(out_dir)
    rundir.write_run_meta(out_dir, meta)
    return meta


def _make_out_dir(out_dir: Path) -> None:
    """Create --out; one that cannot be created or written (a read-only mount, a file in the way) is
    bad input, exit 2, not a stopped run to resume."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise InputError(str(out_dir), "--out", f"cannot create or write the run directory: "
                         f"{exc.strerror or exc}") from None


def _sequence_line(run_dir: Path, monitor: Callable[[Path], str]):
    """The progress line's monitor: ``monitor(run_dir)``, the caller's line for the run (the CLI passes
    ``analysis.monitor.primary_line``, the primary hypothesis's anytime-valid sequence; the run layer
    does not import the analysis)."""
    def line() -> str:
        return monitor(run_dir)
    return line


def execute(run_dir: Path, **options) -> RunOutcome:
    """Run (or resume) every cell of the run in run_dir that has no record yet (see ``_execute``),
    holding the run's lock (``run.lock``, an exclusive ``flock``) throughout: the ledger has a single
    writer, so a second session on the same run is refused (InputError) instead of appending a
    second chain of seqs. A kill releases the lock with the process, so --resume after a kill works."""
    read_run_meta(run_dir)  # a directory that is not a run gets its own error, and no run.lock
    lock = DirLock(run_dir, "run.lock", f"`harness run --resume {run_dir}`").acquire()  # refused naming the PID
    assert lock.fd is not None
    procs.inherit_never(lock.fd)  # closed in every forked worker: only this process holds the lock
    try:
        return _execute(run_dir, **options)
    finally:
        procs.release(lock.fd)
        lock.release()  # closing the descriptor releases the lock


def _execute(run_dir: Path, *, stop: "StopRequest | None" = None, workers: int = 1, log=print, limit_cells: int | None = None, pilot: int | None = None,
             progress_stream=None, executor: str = "local", address: str | None = None, cache: bool = True,
             cache_dir: Path | None = None, spot_rate: float | None = None, executor_options: dict | None = None,
             raise_budget: "spend_mod.Ceiling | None" = None,
             monitor: Callable[[Path], str] | None = None, keep_trees: bool = True, warm: bool | None = None) -> RunOutcome:
    """Run (or resume) every cell of the run in run_dir that has no record yet (the caller holds run.lock).

    ``executor``: "local" (this process or a pool of ``workers``) or "ray" (``address`` of an
    existing cluster, else a local one); see harness.run.executors. ``cache``: reuse test verdicts
    (harness.judge.verdict_cache) in ``cache_dir`` (default: run_dir/verdict-cache). ``raise_budget``: a
    higher spend ceiling for this run (written to spend.json; the protocol and its lock are unchanged).
    ``keep_trees``: keep each cell's final tree in run_dir/trees (``harness rejudge`` replays them).
    ``warm``: warm test execution on or off in every cell (``--no-warm``; None: this process's
    default, harness.sandbox.sandbox.warm_requested), carried to each worker with its job.

    The run as named phases over one ``_Session``: verify and open, pending cells, dispatch (which
    settles each record and requeues voids under the rerun policy), finalize."""
    t0 = time.perf_counter()
    s = _verify_and_open(Path(run_dir).resolve(), log)
    s.keep_trees = keep_trees
    cells = _pending(s, pilot, limit_cells)
    workers, capped = executors.capped_workers(workers, len(cells)) if executor == "local" or not address \
        else (workers, None)
    if capped:
        log(capped)
    try:
        ex = executors.make_executor(executor, workers=workers, address=address, **(executor_options or {}))
    except executors.ExecutorUnavailable as exc:  # nothing dispatched: a stop, every record as it was
        return _stopped_before_dispatch(s, exc, log, time.perf_counter() - t0)
    s.spend, _ceiling = _open_spend(s.proto, s.meta, s.run_dir, ex, raise_budget)
    cfg = _CacheConfig(cache, Path(cache_dir).resolve() if cache_dir else None, spot_rate)
    disabled = _disabled_tasks(s, cfg, log)
    for note in ex.preflight(s.proto.tasks_dir, s.meta.lock["files"]):  # every node holds the locked corpus
        log(note)
    settle = _open_settler(s, disabled, log)
    if s.void_keys:
        log(f"rerunning {len(s.void_keys)} cell(s) left void by an earlier session (rerun policy: up to "
            f"{settle.max_reruns} reruns each; a scored rerun supersedes the void record)")
    log(f"{s.proto.name}: {len(s.done)} cells already recorded, {len(cells)} to run, executor={ex.kind}, "
        f"workers={ex.capacity}, verdict cache={'off' if not cache else (cache_dir or 'run dir')}")
    ledger_spend = s.spend
    progress = Progress(len(cells), ex.capacity, stream=progress_stream,
                        extra=_sequence_line(s.run_dir, monitor) if monitor else None,
                        spent=(lambda: float(ledger_spend.read()["spent_usd"])) if ledger_spend is not None else None)
    halt = stop or StopRequest()
    on = warm_requested() if warm is None else warm  # decided here, once, for every worker and node
    _dispatch(s, ex, cells, settle, progress, halt,
              lambda c: executors.Job(_cell_spec(s, c, cfg), cfg.as_dict(s, disabled), warm=on), log)
    if halt.signal and not settle.stopped:
        settle.halt(RunStop.SIGNAL, f"interrupted by {halt.signal}: dispatch stopped, every cell that finished is "
                    f"recorded, cells not finished are unrun (never void, never scored); continue with "
                    f"`harness run --resume {s.run_dir}`")
    return _finalize(s, settle, pilot, ex.capacity, time.perf_counter() - t0)


@dataclass
class _Session:
    """One session of a run, as the verify-and-open phase found it: run.json, the protocol it was
    bound to, the verified ledger, the cell keys already scored and those whose latest record is
    void, the frozen digests of each task's acceptance test and oracle, and the spend ledger."""
    run_dir: Path
    meta: RunMeta
    proto: Protocol
    ledger: Ledger
    done: set[str]
    void_keys: set[str]
    expected: dict[str, dict]
    spend: "spend_mod.SpendLedger | None" = None
    keep_trees: bool = True

    @property
    def run_meta(self) -> RunStamp:
        """What every record of the run carries about it."""
        return RunStamp(protocol=self.proto.name, protocol_digest=self.meta.protocol_digest,
                        preregistered=self.meta.preregistered, run_id=self.meta.run_id)


@dataclass(frozen=True)
class _CacheConfig:
    """The verdict cache policy of a session (harness.judge.verdict_cache)."""
    enabled: bool
    dir: Path | None
    spot_rate: float | None

    def as_dict(self, s: _Session, disabled: dict[str, str]) -> dict:
        """The per-job configuration; ``disabled`` is read at dispatch (a spot-check may grow it)."""
        return {"enabled": self.enabled, "dir": str(self.dir) if self.dir else None,
                "spot_rate": verdict_cache.DEFAULT_SPOT_RATE if self.spot_rate is None else self.spot_rate,
                "seed": f"{s.proto.seed}|{s.meta.run_id}", "disabled_tasks": sorted(disabled)}


def _verify_and_open(run_dir: Path, log) -> _Session:
    """Verify the run before anything runs: the protocol still matches its lock (pre-registered)
    and run.json's digest, and the ledger verifies (it is never resumed otherwise, and no byte of
    it changes); the two crash repairs the ledger may make are logged."""
    meta = read_run_meta(run_dir)
    proto = load_protocol(meta.protocol_path)
    if meta.preregistered:
        changes = protocol_mod.drift(proto)
        if changes:
            raise InputError(str(proto.path), "lock", "digests drifted since this run started:\n  " + "\n  ".join(changes))
    # bound to run.json's digest, not to the lock on disk: a protocol edited and re-frozen is a new
    # pre-registration, and its cells must not be recorded under this run's digest
    now = protocol_mod.compute_lock(proto)["digest"]
    if now != meta.protocol_digest:
        raise InputError(str(proto.path), "digest", f"the protocol or its tasks changed since this "
                         f"{'pre-registered' if meta.preregistered else 'exploratory'} run started (run.json "
                         f"digest {meta.protocol_digest[:12]}..., now {now[:12]}...); start a new run with --out")
    try:
        ledger = Ledger(run_dir / "records.jsonl")
    except LedgerRefused as exc:  # a ledger that fails verify is never resumed, and no byte of it changes
        raise InputError(str(exc.path), "ledger", "does not verify; refusing to resume (nothing was changed):\n  "
                         + "\n  ".join(exc.problems)) from exc
    if ledger.head_repaired:
        log("caught records.head up with the last record (a kill between a line's fsync and the head update)")
    if ledger.repair:
        log(f"repaired a torn last line ({ledger.repair.torn_bytes} bytes moved to {ledger.repair.moved_to.name})")
    _check_ledger_kinds(ledger)
    _seal(run_dir, meta, ledger)
    latest = {r.cell_key: r.outcome for r in ledger.cell_records()}  # a rerun's record supersedes a void one
    return _Session(run_dir, meta, proto, ledger, done={k for k, o in latest.items() if o != Outcome.VOID},
                    void_keys={k for k, o in latest.items() if o == Outcome.VOID},
                    expected=_expected_digests(proto, meta.lock))


def _seal(run_dir: Path, meta: RunMeta, ledger: Ledger) -> None:
    """Seal the ledger with the run's key after every record from now on (harness.ledger.seal: a rewrite
    of the records with the chain redone, or a cell deleted, is then refused by ``receipts verify``).
    A ledger that is not the one the key sealed is never resumed (InputError; nothing changes) and a
    kill's one unsealed record is sealed."""
    sealer = Sealer(run_dir, meta.protocol_digest, meta.run_id)
    why = sealer.resume_problem(ledger.records)
    if why:
        raise InputError(str(seal_path(run_dir)), "seal", f"{why}; refusing to resume (nothing was changed)")
    ledger.sign_record, ledger.on_append = sealer.sign, sealer


def _check_ledger_kinds(ledger: Ledger) -> None:
    """Every record the session branches on names its cell and carries closed kinds this driver
    wrote (``harness.core.record.kind_problems``): a hash chain proves order, not authorship, so a
    line rewritten and re-hashed must not make a cell count as scored, void or unrun by a kind the
    driver never wrote. InputError naming the ledger, the line and the field; nothing changes."""
    for line, rec in enumerate(ledger.records, 1):  # a verified ledger has no blank lines
        for name, why in record_mod.resume_problems(rec):
            raise InputError(str(ledger.path), name, f"{why}; refusing to resume (nothing was changed)", line=line)


def _pending(s: _Session, pilot: int | None, limit_cells: int | None) -> list[Cell]:
    """The cells this session runs, in run order: every cell not yet scored (void cells are rerun,
    as docs/how-to/run-on-a-provider.md says), the pilot's whole matched units, at most ``limit_cells``."""
    cells = [c for c in run_order(s.proto) if c.key not in s.done]
    if pilot is not None:
        cells = pilot_mod.select(cells, pilot)
    if limit_cells is not None:
        cells = cells[:limit_cells]
    return cells


def _cell_spec(s: _Session, c: Cell, cfg: _CacheConfig) -> CellSpec:
    """One cell's spec: everything a worker (local or on a cluster node) needs to run it."""
    meta, proto = s.meta, s.proto
    return CellSpec(cell=c, arm=proto.arm(c.arm), tasks_dir=proto.tasks_dir, run_dir=s.run_dir,
                    engine=meta.engine, reviewer_engine=meta.reviewer_engine, model=meta.model,
                    seed=proto.seed, expected=s.expected[c.task], limits=proto.limits, run_meta=s.run_meta,
                    pricing=proto.pricing, engine_options={"providers": _providers(proto),
                                                           **(meta.engine_options or {})},
                    hide_extra=(cfg.dir,) if cfg.enabled and cfg.dir else (), spend=s.spend,
                    story_files=story_files(meta.lock, c.task), keep_trees=s.keep_trees)


def story_files(lock: dict, task: str) -> dict[str, str]:
    """The lock's digests of one task's files (what a receipt's storyFilesHash is over)."""
    files = lock.get("files") if isinstance(lock, dict) else None
    return {k: v for k, v in (files or {}).items() if isinstance(k, str) and k.startswith(f"{task}/")}


def _providers(proto: Protocol) -> dict[str, dict]:
    """[providers.NAME] as the engines read it (harness.engines.live): the keys the protocol sets."""
    return {name: table.model_dump(exclude_none=True) for name, table in proto.providers.items()}


def _disabled_tasks(s: _Session, cfg: _CacheConfig, log) -> dict[str, str]:
    """Tasks whose verdicts are never cached: proved nondeterministic by a spot-check in an earlier
    record of this run, or marked so in the cache directory. {task: why}."""
    disabled: dict[str, str] = {}
    for r in s.ledger.cell_records():
        if r.nondeterministic_tests:
            disabled.setdefault(r.task, f"spot-check mismatch in {r.cell_key}")
    d = cfg.dir or s.run_dir / "verdict-cache"
    if cfg.enabled and d.is_dir():
        for t in verdict_cache.VerdictCache(d).nondeterministic():
            disabled.setdefault(t, f"marked in {d / 'nondeterministic' / (t + '.json')}")
    for t, why in sorted(disabled.items()):
        log(f"verdict cache DISABLED for task {t}: its tests proved nondeterministic ({why})")
    return disabled


def _open_settler(s: _Session, disabled: dict[str, str], log) -> "_Settler":
    """The settler of this session: void attempts counted from voids.jsonl (a cell void in the
    ledger after an earlier session's reruns is rerun afresh), and a ceiling an earlier session
    reached still in force."""
    voids_path = s.run_dir / "voids.jsonl"
    void_counts = _void_counts(voids_path, log)
    for k in s.void_keys:  # void in the ledger after an earlier session's reruns: this session reruns it afresh
        void_counts[k] = 0
    settle = _Settler(s.ledger, void_counts, voids_path, s.proto.rerun.max_reruns, disabled, log,
                      s.run_dir)
    if s.spend is not None and s.spend.read()["halted"]:
        settle.halt(RunStop.BUDGET_CEILING, f"budget ceiling: reached in an earlier session "
                    f"({spend_mod.summary(s.spend.read())}); raise it: `harness run --resume {s.run_dir} "
                    f"--raise-budget-usd X` (or --raise-budget-tokens N)")
        log(f"STOPPING: {settle.stopped}")
    return settle


def _void_counts(voids_path: Path, log) -> dict[str, int]:
    """Void attempts per cell key so far (voids.jsonl); a torn line (a kill mid-write) is skipped."""
    void_counts: dict[str, int] = {}
    if voids_path.exists() or voids_path.is_symlink():
        for i, line in enumerate(runio.read_text(voids_path, "voids journal").splitlines(), 1):
            try:
                k = VoidLine.from_json(runio.parse_json(line, str(voids_path), i), str(voids_path), i).cell_key
            except InputError:  # UnsafeFile too: a kill mid-write leaves a torn line
                if line.strip():
                    log(f"{voids_path.name}:{i}: ignoring a torn line")
                continue
            void_counts[k] = void_counts.get(k, 0) + 1
    return void_counts


def _dispatch(s: _Session, ex, cells: list[Cell], settle: "_Settler", progress: Progress, halt: StopRequest,
              job, log) -> None:
    """Run the queue on the executor until it is empty or the run stops: each record is settled as
    it arrives (``_Settler.take``), and the voids it requeues form the next round (rerun policy).
    A stop ends dispatch: queued, unstarted cells are cancelled (unrun); cells in flight finish."""
    requeues_path = s.run_dir / "requeues.jsonl"

    def on_requeue(key: str, reason: str) -> None:
        runio.append_line(requeues_path, json.dumps(RequeueLine(key, reason, time.time()).to_json()))
        log(f"re-queued {key}: {reason}")

    workers = ex.capacity
    queue = list(cells)
    ex.stopping = lambda: bool(settle.stopped or halt.signal)  # queued, unstarted cells are cancelled (unrun)
    while queue and not settle.stopped and not halt.signal:
        settle.rerun = []
        progress.update(in_flight=min(workers, len(queue)))
        jobs = (job(c) for c in queue if not ex.stopping())  # lazily: a stop ends dispatch
        stream = ex.run(jobs, on_requeue)
        try:
            for i, rec in enumerate(stream, 1):
                if not settle.take(rec):
                    break
                progress.update(None if rec.stop_run else rec, in_flight=min(workers, len(queue) - i))
        except executors.ExecutorLost as exc:  # not the cells' fault: they stay unrun (never void, never scored)
            settle.halt(RunStop.EXECUTOR, f"executor: {exc}; every cell that finished is recorded, cells not "
                        f"finished are unrun (never void, never scored); continue with "
                        f"`harness run --resume {s.run_dir}`")
            log(f"STOPPING: {settle.stopped}")
        finally:
            stream.close()  # after a stop the stream has already drained every cell in flight
        if settle.rerun and not settle.stopped:
            log(f"rerunning {len(settle.rerun)} void cell(s) (rerun policy: up to {settle.max_reruns} reruns per cell)")
        queue = settle.rerun
    progress.close()


def _finalize(s: _Session, settle: "_Settler", pilot: int | None, workers: int, wall_s: float) -> RunOutcome:
    """The session's outcome: the table (and the pilot's projection) written, every cell whose
    latest record is void (from this session or an earlier one) keeping the run incomplete, the
    cells not run when the run stopped, the spend line, and a row in stops.jsonl."""
    records, proto, run_dir = s.ledger.cell_records(), s.proto, s.run_dir
    latest = {r.cell_key: r.outcome for r in records}
    still_void = [k for k, o in latest.items() if o == Outcome.VOID]
    table = render(per_arm_rows(records, [a.name for a in proto.arms]))
    projection = None
    try:
        statefile.write_atomic(run_dir / "table.md", table + "\n")
        if pilot is not None:
            projection = pilot_mod.project(records, Counter(c.arm for c in run_order(proto)), workers)
            statefile.write_json(run_dir / "pilot.json", projection)
            statefile.write_atomic(run_dir / "pilot.md", pilot_mod.render(projection) + "\n")
    except OSError as exc:
        if not settle.stopped:
            settle.halt(RunStop.DISK, f"disk: could not write the run's tables ({exc}); the ledger is intact")
    not_run = None
    if settle.stopped:
        have = {r.cell_key for r in records}
        not_run = dict(Counter(c.arm for c in run_order(proto) if c.key not in have))
    spend_line = None
    if s.spend is not None:
        if settle.after_halt:
            s.spend.note_gate_overrun(settle.after_halt)
        spend_line = spend_mod.summary(s.spend.read())
    if settle.stopped:
        _note_stop(run_dir, settle, len(records), not_run)
    return RunOutcome(run_dir, records, still_void, table, wall_s, settle.executed, projection,
                      settle.stopped, not_run, spend_line, settle.stop_kind)


def _stopped_before_dispatch(s: _Session, exc: Exception, log, wall_s: float) -> RunOutcome:
    """The executor did not start: the run stops (``RunStop.EXECUTOR``, stops.jsonl, exit 4) with
    nothing dispatched, the cells not run counted per arm, and the resume command."""
    settle = _open_settler(s, {}, log)
    settle.halt(RunStop.EXECUTOR, f"executor: {exc}; nothing was dispatched, every record is kept; "
                f"try again with `harness run --resume {s.run_dir}`")
    return _finalize(s, settle, None, 1, wall_s)


def _note_stop(run_dir: Path, settle: "_Settler", records: int, not_run: dict | None) -> None:
    """One row in stops.jsonl: the stop's kind (a RunStop), its reason, when, and what is left."""
    try:
        runio.append_line(run_dir / "stops.jsonl", json.dumps({
            "kind": settle.stop_kind.value if settle.stop_kind else None, "reason": settle.stopped,
            "when": time.time(), "records": records, "not_run": not_run}))
    except (OSError, runio.UnsafeFile):
        pass


def _open_spend(proto: Protocol, meta: RunMeta, run_dir: Path, ex, raise_to) -> tuple:
    """The run's spend ledger (None without a ceiling) and the ceiling in force. With ``max_usd``,
    every call must have a price: a call nobody can price could not be booked (InputError)."""
    declared = spend_mod.Ceiling(proto.budget.max_usd, proto.budget.max_tokens)
    if not declared.active and not (raise_to and raise_to.active) and not (run_dir / "spend.json").exists():
        return None, None
    ledger_spend = spend_mod.SpendLedger(run_dir)
    current = ledger_spend.ceiling() if (run_dir / "spend.json").exists() else declared
    if (raise_to and raise_to.max_usd is not None) or current.max_usd is not None:
        _check_priced(proto, meta)
    for key, flag in (("max_usd", "--raise-budget-usd"), ("max_tokens", "--raise-budget-tokens")):
        new, old = getattr(raise_to, key) if raise_to else None, getattr(current, key)
        if new is not None and old is not None and new <= old:
            raise InputError(str(run_dir / "spend.json"), flag, f"expected a ceiling above the one in force ({key} = {old})")
    ceiling = ledger_spend.open_session(declared, raise_to)
    return ex.spend_ledger(ledger_spend), ceiling


def _check_priced(proto: Protocol, meta: RunMeta) -> None:
    """Under max_usd every call is booked at its price: a model with no [pricing] entry is an InputError."""
    run = RunEngines.of_run(meta)
    for arm in proto.arms:
        for levels in model_levels(proto.factors):
            roles = resolve_roles(arm, run, levels)
            for role in Role:
                b = roles.of(role)
                if spend_mod.call_price(proto.pricing, b.engine, b.model) is None:
                    raise InputError(str(proto.path), "budget.max_usd",
                                     f"the {role.value} model {b.model!r} of arm {arm.name} ({b.engine} engine) has no "
                                     "[pricing] entry, so its calls cannot be booked against the ceiling")


class _Settler:
    """Takes records as cells finish: appends scored ones to the ledger, queues voids for a rerun
    (the protocol's rerun policy), and stops the run when it must (credentials refused: the cell is
    unrun, not void, and nothing more is spent; a full disk: the ledger stays intact)."""

    def __init__(self, ledger, void_counts, voids_path, max_reruns, disabled, log, run_dir):
        self.ledger, self.void_counts, self.voids_path = ledger, void_counts, voids_path
        self.max_reruns, self.disabled, self.log, self.run_dir = max_reruns, disabled, log, run_dir
        self.rerun: list[Cell] = []
        self.executed = 0
        self.stopped: str | None = None
        self.stop_kind: RunStop | None = None
        self.halted_at: float | None = None
        self.after_halt: list[float] = []  # seconds past the ceiling halt at which in-flight cells finished

    def halt(self, kind: RunStop, why: str) -> None:
        """The run stops dispatching: ``kind`` (stops.jsonl) and ``why`` (the STOPPED line)."""
        self.stop_kind, self.stopped = kind, why

    def take(self, rec: CellRecord) -> bool:
        """Account one record; False when the run must stop (``stopped`` says why). At the spend
        ceiling the run stops dispatching but takes the cells already in flight: one refused a call
        (unrun, dropped), or finished its gate without another call (recorded; never cut short)."""
        kind = _stop_kind(rec)
        if kind is RunStop.BUDGET_CEILING:
            if not self.stopped:
                self.halted_at = time.time()
                self.halt(kind, f"{rec.stop_run}; unrun cells are not run (never void, never scored); raise it: "
                                f"`harness run --resume {self.run_dir} --raise-budget-usd X` (or --raise-budget-tokens N)")
                self.log(f"STOPPING: {rec.stop_run}")
            return True
        if self.halted_at is not None:
            self.after_halt.append(round(time.time() - self.halted_at, 3))
            rec = replace(rec, finished_after_ceiling_s=self.after_halt[-1])
        if kind is not None:  # this cell is unrun; cells still in flight are taken as they finish
            if not self.stopped:
                self.halt(kind, f"{rec.stop_run} (fix it, then `harness run --resume {self.run_dir}`)")
                self.log(f"STOPPING: {rec.stop_run}")
            return True
        self.executed += 1
        try:
            self._account(rec)
        except OSError as exc:
            self.halt(RunStop.DISK, f"disk: could not write to {self.run_dir} ({type(exc).__name__}: {exc}); the "
                      f"ledger is intact; free space, then `harness run --resume {self.run_dir}`")
            self.log(f"STOPPING: {self.stopped}")
            return False
        return True

    def _account(self, rec: CellRecord) -> None:
        if rec.nondeterministic_tests and rec.task not in self.disabled:
            self.disabled[rec.task] = f"spot-check mismatch in {rec.cell_key}"
            self.log(f"verdict cache DISABLED for task {rec.task}: a spot-check rerun disagreed with a cached "
                     f"verdict in cell {rec.cell_key}; its tests are nondeterministic")
        if rec.outcome is Outcome.VOID:
            k = rec.cell_key
            self.void_counts[k] = self.void_counts.get(k, 0) + 1
            runio.append_line(self.voids_path, json.dumps(VoidLine(k, rec.void_reason, self.void_counts[k]).to_json()))
            if self.void_counts[k] <= self.max_reruns:
                self.rerun.append(Cell.from_key(k))
                return
        self.ledger.append_record(rec)
        if len(self.ledger.records) % 50 == 0:
            self.log(f"  {len(self.ledger.records)} recorded ...")


def _stop_kind(rec: CellRecord) -> RunStop | None:
    """The run stop a record asks for (``stop_run``: its cell is unrun), from its ``void_kind``;
    a record without one (older producers, hand-made records) names the ceiling in its text."""
    if not rec.stop_run:
        return None
    if rec.void_kind is not None and rec.void_kind.stops_run:
        return RunStop.of_fault(rec.void_kind)
    legacy = VoidKind.of_reason(rec.stop_run)
    return RunStop.of_fault(legacy) if legacy is not None and legacy.stops_run else RunStop.AUTHENTICATION


read_run_meta = rundir.read_run_meta  # kept importable from here


def incomplete_denominators(records: list[CellRecord], still_void: list[str]) -> dict[str, str]:
    per: dict[str, list[int]] = {}
    for r in one_per_cell(records):  # a void superseded by its rerun, or repeated by a resume, is one cell
        a = per.setdefault(r.arm, [0, 0])
        a[1] += 1
        a[0] += r.scored
    return {arm: f"{s}/{n} scored" for arm, (s, n) in per.items()}
