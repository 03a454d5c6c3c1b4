"""The run driver: protocol -> ordered cells -> pool of cell runners -> ledger (single writer).

Run directory layout:
  run.json          what was run: protocol path and digest, pre-registered or exploratory, engine
  records.jsonl     one hash-chained record per cell key (records.head mirrors the head hash)
  voids.jsonl       every void attempt (accounting; a cell is rerun per the protocol's rerun policy)
  cells/*.events.jsonl  each cell's event log
  table.md          the per-arm table
Resuming (``--resume DIR``) repairs a torn last line, skips cell keys already in the ledger
and runs the rest, so a kill at any moment ends, after resume, with one record per key.
"""
from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from harness import executors, verdict_cache
from harness import pilot as pilot_mod
from harness import protocol as protocol_mod
from harness.cellrun import CellSpec
from harness.errors import InputError
from harness.ledger import Ledger, LedgerRefused
from harness.matrix import Cell, run_order
from harness.progress import Progress
from harness.protocol import Protocol, load_protocol
from harness.table import per_arm_rows, render
from harness.tasks import load_task


@dataclass
class RunOutcome:
    run_dir: Path
    records: list[dict]
    still_void: list[str]
    table: str
    wall_s: float
    executed: int
    projection: dict | None = None  # --pilot: projected cost and time of the full design

    @property
    def exit_code(self) -> int:
        return 0 if not self.still_void else 3


def _expected_digests(proto: Protocol, lock: dict) -> dict[str, dict]:
    out = {}
    for tid in proto.tasks:
        task = load_task(proto.tasks_dir / tid)
        rel = lambda p: f"{tid}/{p.relative_to(task.root).as_posix()}"  # noqa: E731
        out[tid] = {"acceptance": lock["files"].get(rel(task.acceptance)), "oracle": lock["files"].get(rel(task.oracle))}
    return out


def prepare(proto_path: Path, out_dir: Path, *, engine: str | None, reviewer_engine: str | None, model: str | None,
            exploratory: bool, engine_options: dict | None = None) -> dict:
    """Validate and write run.json for a new run. Refuses an unlocked or drifted protocol."""
    proto = load_protocol(proto_path)
    if exploratory:
        lock = protocol_mod.compute_lock(proto)
    else:
        changes = protocol_mod.drift(proto)
        if changes:
            raise InputError(str(proto.path), "lock", "digests drifted since freeze:\n  " + "\n  ".join(changes)
                             + "\nre-freeze (a new pre-registration) or pass --exploratory")
        lock = json.loads(proto.lock_path.read_text())
    out_dir.mkdir(parents=True, exist_ok=True)
    if (out_dir / "records.jsonl").exists():
        raise InputError(str(out_dir), "--out", "already holds a run; use --resume to continue it")
    meta = {"run_id": uuid.uuid4().hex[:12], "protocol_path": str(proto.path), "protocol": proto.name,
            "protocol_digest": lock["digest"], "preregistered": not exploratory,
            "engine": engine or proto.engine, "reviewer_engine": reviewer_engine or engine or proto.engine,
            "model": model, "engine_options": engine_options or {}, "lock": lock, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (out_dir / "run.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return meta


def execute(run_dir: Path, *, workers: int = 1, log=print, limit_cells: int | None = None, pilot: int | None = None,
            progress_stream=None, executor: str = "local", address: str | None = None, cache: bool = True,
            cache_dir: Path | None = None, spot_rate: float | None = None, executor_options: dict | None = None
            ) -> RunOutcome:
    """Run (or resume) every cell of the run in run_dir that has no record yet.

    ``executor``: "local" (this process or a pool of ``workers``) or "ray" (``address`` of an
    existing cluster, else a local one); see harness/executors.py. ``cache``: reuse test verdicts
    (harness/verdict_cache.py) in ``cache_dir`` (default: run_dir/verdict-cache)."""
    t0 = time.perf_counter()
    run_dir = Path(run_dir).resolve()
    meta = json.loads((run_dir / "run.json").read_text())
    proto = load_protocol(meta["protocol_path"])
    if meta["preregistered"]:
        changes = protocol_mod.drift(proto)
        if changes:
            raise InputError(str(proto.path), "lock", "digests drifted since this run started:\n  " + "\n  ".join(changes))
    elif protocol_mod.compute_lock(proto)["digest"] != meta["protocol_digest"]:
        raise InputError(str(proto.path), "digest", "the protocol or its tasks changed since this exploratory run started")
    try:
        ledger = Ledger(run_dir / "records.jsonl")
    except LedgerRefused as exc:  # a ledger that fails verify is never resumed, and no byte of it changes
        raise InputError(str(exc.path), "ledger", "does not verify; refusing to resume (nothing was changed):\n  "
                         + "\n  ".join(exc.problems)) from exc
    if ledger.head_repaired:
        log("caught records.head up with the last record (a kill between a line's fsync and the head update)")
    if ledger.repair:
        log(f"repaired a torn last line ({ledger.repair.torn_bytes} bytes moved to {ledger.repair.moved_to.name})")
    expected = _expected_digests(proto, meta["lock"])
    done = ledger.keys()
    cells = [c for c in run_order(proto) if c.key not in done]
    if pilot is not None:
        cells = pilot_mod.select(cells, pilot)
    if limit_cells is not None:
        cells = cells[:limit_cells]
    run_meta = {"protocol": proto.name, "protocol_digest": meta["protocol_digest"],
                "preregistered": meta["preregistered"], "run_id": meta["run_id"]}

    def spec(c: Cell) -> CellSpec:
        return CellSpec(cell=c, arm=proto.arm(c.arm), tasks_dir=proto.tasks_dir, run_dir=run_dir,
                        engine=meta["engine"], reviewer_engine=meta["reviewer_engine"], model=meta.get("model"),
                        seed=proto.seed, expected=expected[c.task], limits=proto.limits, run_meta=run_meta,
                        pricing=proto.pricing, engine_options={"providers": proto.raw.get("providers", {}),
                                                               **meta.get("engine_options", {})},
                        hide_extra=(Path(cache_dir).resolve(),) if cache and cache_dir else ())

    # verdict cache: tasks proved nondeterministic (earlier records of this run, markers in the cache dir)
    disabled: dict[str, str] = {}
    for r in ledger.records:
        if (r.get("verdict_cache") or {}).get("nondeterministic"):
            disabled.setdefault(r["task"], f"spot-check mismatch in {r['cell_key']}")
    if cache:
        for d in {Path(cache_dir).resolve() if cache_dir else run_dir / "verdict-cache"}:
            if d.is_dir():
                for t, info in verdict_cache.VerdictCache(d).nondeterministic().items():
                    disabled.setdefault(t, f"marked in {d / 'nondeterministic' / (t + '.json')}")
    for t, why in sorted(disabled.items()):
        log(f"verdict cache DISABLED for task {t}: its tests proved nondeterministic ({why})")

    def cache_cfg() -> dict:
        return {"enabled": cache, "dir": str(Path(cache_dir).resolve()) if cache_dir else None,
                "spot_rate": verdict_cache.DEFAULT_SPOT_RATE if spot_rate is None else spot_rate,
                "seed": f"{proto.seed}|{meta['run_id']}", "disabled_tasks": sorted(disabled)}

    requeues_path = run_dir / "requeues.jsonl"

    def on_requeue(key: str, reason: str) -> None:
        with requeues_path.open("a") as f:
            f.write(json.dumps({"cell_key": key, "reason": reason, "when": time.time()}) + "\n")
        log(f"re-queued {key}: {reason}")

    ex = executors.make_executor(executor, workers=workers, address=address, **(executor_options or {}))
    for note in ex.preflight(proto.tasks_dir, meta["lock"]["files"]):  # every node holds the locked corpus
        log(note)
    workers = ex.capacity

    voids_path = run_dir / "voids.jsonl"
    void_counts: dict[str, int] = {}
    if voids_path.exists():
        for i, line in enumerate(voids_path.read_text().splitlines(), 1):
            try:
                k = json.loads(line)["cell_key"]
            except (json.JSONDecodeError, KeyError, TypeError):  # a kill mid-write leaves a torn line
                if line.strip():
                    log(f"{voids_path.name}:{i}: ignoring a torn line")
                continue
            void_counts[k] = void_counts.get(k, 0) + 1
    max_reruns = int(proto.rerun.get("max_reruns", 2))
    still_void: list[str] = []
    executed = 0
    queue = list(cells)
    log(f"{proto.name}: {len(done)} cells already recorded, {len(queue)} to run, executor={ex.kind}, workers={workers}, "
        f"verdict cache={'off' if not cache else (cache_dir or 'run dir')}")
    progress = Progress(len(queue), workers, stream=progress_stream)
    while queue:
        rerun: list[Cell] = []
        progress.update(in_flight=min(workers, len(queue)))
        jobs = (executors.Job(spec(c), cache_cfg()) for c in queue)
        for i, rec in enumerate(ex.run(jobs, on_requeue), 1):
            executed += 1
            vc = rec.get("verdict_cache") or {}
            if vc.get("nondeterministic") and rec["task"] not in disabled:
                disabled[rec["task"]] = f"spot-check mismatch in {rec['cell_key']}"
                log(f"verdict cache DISABLED for task {rec['task']}: a spot-check rerun disagreed with a cached "
                    f"verdict in cell {rec['cell_key']}; its tests are nondeterministic")
            progress.update(rec, in_flight=min(workers, len(queue) - i))
            if rec["outcome"] == "void":
                k = rec["cell_key"]
                void_counts[k] = void_counts.get(k, 0) + 1
                with voids_path.open("a") as f:
                    f.write(json.dumps({"cell_key": k, "void_reason": rec["void_reason"], "attempt": void_counts[k]}) + "\n")
                if void_counts[k] <= max_reruns:
                    rerun.append(Cell.from_key(k))
                    continue
                still_void.append(k)
            ledger.append(rec)
            if executed % 50 == 0:
                log(f"  {len(ledger.records)} recorded ...")
        if rerun:
            log(f"rerunning {len(rerun)} void cell(s) (rerun policy: up to {max_reruns} reruns per cell)")
        queue = rerun
    progress.close()
    records = ledger.records
    # every void in the ledger, from this session or an earlier one, keeps the run incomplete
    still_void = [r["cell_key"] for r in records if r["outcome"] == "void"]
    arms = [a.name for a in proto.arms]
    table = render(per_arm_rows(records, arms))
    (run_dir / "table.md").write_text(table + "\n")
    projection = None
    if pilot is not None:
        projection = pilot_mod.project(records, Counter(c.arm for c in run_order(proto)), workers)
        (run_dir / "pilot.json").write_text(json.dumps(projection, indent=1, sort_keys=True) + "\n")
        (run_dir / "pilot.md").write_text(pilot_mod.render(projection) + "\n")
    return RunOutcome(run_dir, records, still_void, table, time.perf_counter() - t0, executed, projection)


def incomplete_denominators(records: list[dict], still_void: list[str]) -> dict[str, str]:
    per = {}
    for r in records:
        a = per.setdefault(r["arm"], [0, 0])
        a[1] += 1
        a[0] += r["outcome"] != "void"
    return {arm: f"{s}/{n} scored" for arm, (s, n) in per.items()}
