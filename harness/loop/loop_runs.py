"""``harness loop run corpus/catalogue/<loop>``: one corpus loop run by a worker engine, summarised.

- Simulated (``CorpusWorker``): ``runs`` seeded runs per gate of the loop and per tier (the
  drafts come from the conforming artifact plus the tier-1 v1 mutants, or plus the tier-2
  mutants). Run r uses the same seed for every gate of the loop, so a planted gate and its
  repaired twin face the same sequence of drafts (a matched comparison). The report per gate and
  tier is the **false-DONE rate** = runs that reached DONE with a *destroying* artifact / runs
  that reached DONE (Wilson 95%; "n/a" when no run reached DONE): the corpus's false accepts, seen
  from the loop. Gate verdicts are
  memoised per (gate file, artifact bytes) within the command, because the simulated worker
  resubmits the same candidates across runs; every attempt still gets its ledger row.
- Replay and live engines (anthropic, openai): one run per model (``--model`` repeated), through
  the real SDK; the report is Table 8's layout (terminal, attempts to done, wall time per loop and
  model), letters assigned within each loop by ascending wall time, with the paper's caution.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from corpus.catalogue import Loop
from corpus.gates import Gate, Judgement, judge
from harness.core import runio
from harness.core.runio import NoSpace, exists_regular, is_no_space, write_atomic
from harness.core.wilson import wilson
from harness.engines import EngineContext, make_engine
from harness.ledger.ledger import Ledger
from harness.loop.loop import DONE, Attempt, LoopBudget, LoopResult, LoopSpec, content_digest, run_loop
from harness.loop.loop_workers import CorpusWorker, corpus_pool
from harness.loop.rows import LoopRow, PassKey

FALSE_DONE_METHOD = ("false-DONE = runs that reached DONE with a destroying artifact (a mutant of the tier's pool "
                     "labelled destroying) / runs that reached DONE, per gate and tier; Wilson 95%; n/a when no run "
                     "reached DONE; drafts drawn without replacement from a seeded permutation of the conforming "
                     "artifact and the tier's mutants, the same seeds for every gate of a loop. The rate belongs to "
                     "the gate under this draw distribution (it moves with the share of conforming drafts in the "
                     "pool); 0 means no destroying draft it accepted was ever drawn first")
TABLE8_CAUTION = ("Letters are assigned within each loop by ascending wall time and do NOT identify a model across "
                  "rows. So few observations support no product comparison (paper Table 8): wall time shows only "
                  "that the arms differ in something while agreeing on everything the gate decides.")


def loop_spec(loop: Loop, gate: Gate) -> LoopSpec:
    """A corpus loop as a bounded loop: its requirement, its target, one of its gates, and its
    artifact directory's companions (the target itself is left for the worker to write)."""
    return LoopSpec(node=loop.id, requirement=loop.requirement, target=loop.target, gate=gate,
                    seed_dir=loop.artifact_dir)


def select_gates(loop: Loop, names: tuple[str, ...], every: bool) -> list[Gate]:
    """The named gates; else every gate (simulated) or the first gate that is not planted."""
    gates = loop.gates()
    if names:
        known = {g.name: g for g in gates}
        missing = [n for n in names if n not in known]
        if missing:
            raise ValueError(f"{loop.dir / 'loop.toml'}: gates: no gate named {missing[0]!r} "
                             f"(the loop has {', '.join(known)})")
        return [known[n] for n in names]
    return gates if every else [next((g for g in gates if g.status != "planted"), gates[0])]


class MemoJudge:
    """corpus.gates.judge, memoised per (gate file, artifact bytes): companions are anchors the
    worker cannot change, so the artifact's bytes are the only input that varies."""

    def __init__(self):
        self.cache: dict[tuple[str, str | None], Judgement] = {}
        self.hits = 0

    def __call__(self, gate: Gate, ws: Path, target: str) -> Judgement:
        p = ws / target
        key = (str(gate.path), content_digest(p.read_bytes() if p.is_file() else None))
        if key in self.cache:
            self.hits += 1
        else:
            self.cache[key] = judge(gate, ws, target)
        return self.cache[key]


@dataclass
class GateSummary:
    loop: str
    gate: str
    kind: str
    status: str
    planted: str | None
    tier: int
    path: str = ""                 # the gate file (a planted gate's repaired_by names its twin's)
    repaired_by: str | None = None
    pool: int = 0
    runs: int = 0
    done: int = 0
    false_done: int = 0
    endings: Counter = field(default_factory=Counter)
    attempts: int = 0
    detail: list[dict] = field(default_factory=list)   # per run: how it ended and the last draft judged

    @property
    def rate(self):
        return wilson(self.false_done, self.done)

    def as_dict(self) -> dict:
        return {"loop": self.loop, "gate": self.gate, "kind": self.kind, "status": self.status,
                "planted": self.planted, "tier": self.tier, "pool": self.pool, "runs": self.runs, "done": self.done, "false_done": self.false_done,
                "false_done_rate": self.rate.as_dict(), "endings": dict(self.endings), "attempts": self.attempts,
                "method": FALSE_DONE_METHOD, "runs_detail": self.detail}


def _twin_path(gate: Gate) -> str | None:
    twin = gate.spec.get("repaired_by")
    return str((gate.dir / twin).resolve()) if twin else None


def open_ledger(out: Path, resume: bool = False, *, hold, target: str):
    """A new loop ledger in ``out``; with ``resume``, the one a killed run left there, verified and
    crash-repaired as ``harness run --resume`` does (a torn last line moved aside, a head caught up)
    and wrapped so that passes which reached a terminal row are not run again (``ResumeLedger``).

    The ledger has one writer, as a run's does: ``out/loop.lock`` (``runio.DirLock``, an exclusive
    flock) is taken before the ledger is read and handed to ``hold`` (the command's
    ``click.Context.with_resource``: released when the command ends, however it ends), so a second
    ``loop run`` on ``out`` (a ``--resume`` while the loop still runs, two resumes at once) is
    refused naming the holder's PID, and a kill releases it with the process."""
    from harness.core.errors import InputError
    from harness.core.runio import DirLock, make_dir
    from harness.ledger.ledger import LedgerRefused
    path = out / "ledger.jsonl"
    if (path.exists() or path.is_symlink()) and not exists_regular(path):  # a FIFO or a link: never opened
        runio.open_regular(path, "loop ledger")
    if resume and not (path.is_file() and path.stat().st_size):
        raise InputError(str(out), "--resume", "no loop ledger here to continue (ledger.jsonl); start with --out DIR")
    rerun = resume_command(target, out)
    try:
        make_dir(out, rerun)
        hold(DirLock(out, "loop.lock", f"continue with `{rerun}`"))
    except OSError as exc:
        raise InputError(str(out), "--out", f"cannot create or write the loop directory: {exc.strerror or exc}") from None
    if not resume and path.exists() and path.stat().st_size:
        raise InputError(str(path), "--out", f"already holds a loop ledger: continue it with `{rerun}` (the same "
                         "options), or give a new --out directory")
    try:
        ledger = Ledger(path)
    except LedgerRefused as exc:
        raise InputError(str(path), "ledger", "does not verify; refusing to continue it (nothing was changed):\n  "
                         + "\n  ".join(exc.problems)) from None
    except OSError as exc:
        if is_no_space(exc):
            raise NoSpace(path, exc, rerun) from None
        raise InputError(str(out), "--out", f"cannot create or write the loop directory: {exc.strerror or exc}") from None
    return ResumeLedger(ledger) if resume else ledger


class ResumeLedger:
    """A loop ledger being continued after a kill. A pass (run id, node, pass) that reached its
    terminal row is finished: replaying it (the simulated worker is seeded, so it makes the same
    rows) writes nothing and returns the rows already there; ``finished_result`` rebuilds a live
    engine's result without calling it again. A pass the kill cut short gets an ``abandoned`` row
    (its attempt rows stay: they were spent) and runs again from attempt 1."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        rows = [(LoopRow.from_json(r), r) for r in ledger.records]  # each typed, and as the ledger holds it
        self.finished = {t.key for t, _ in rows if t.kind == "terminal"}
        self.partial = {t.key for t, _ in rows if t.kind == "attempt"} - self.finished
        self.existing = {t.cell_key: r for t, r in rows if t.key in self.finished}
        self.run_rows = {t.cell_key: r for t, r in rows if t.node is None}  # a graph's repair rows
        self.repaired = bool(ledger.repair or ledger.head_repaired)
        self.abandoned = Counter(t.key for t, _ in rows if t.kind == "abandoned")

    @property
    def records(self) -> list[dict]:
        return self.ledger.records

    def append(self, rec: dict) -> dict:
        """Write ``rec``, unless a finished pass (or a graph's repair) already wrote it: a replay
        returns that row, after checking the replay made the same row (``_same_replay``)."""
        new = LoopRow.from_json(rec)
        key = new.key
        if key in self.finished:
            return _same_replay(self.existing.get(new.cell_key), rec, new.cell_key)
        if new.node is None and new.cell_key in self.run_rows:
            return _same_replay(self.run_rows[new.cell_key], rec, new.cell_key)
        if key in self.partial:  # each abandonment of a pass (one per kill) its own key: abandoned, abandoned#2, ...
            self.partial.discard(key)
            self.abandoned[key] += 1
            nth = "" if self.abandoned[key] == 1 else f"#{self.abandoned[key]}"
            self.ledger.append({**new.pass_fields(), "kind": "abandoned",
                                "cell_key": f"{new.run_id}|{new.node}|{new.pass_no}|abandoned{nth}",
                                "spent": False, "reason": "a kill cut this pass short; it reruns from attempt 1 "
                                "(its earlier attempt rows are kept: they were spent)"})
        return self.ledger.append(rec)

    def finished_result(self, run_id: str, node: str, pass_no: int = 1) -> LoopResult | None:
        """The result of a finished pass, from its rows (None when it did not finish)."""
        if (run_id, node, pass_no) not in self.finished:
            return None
        rows = [t for t in map(LoopRow.from_json, self.ledger.records) if t.key == PassKey(run_id, node, pass_no)]
        end = next(r for r in rows if r.kind == "terminal")
        atts = [Attempt(n=r.attempt, verdict=r.verdict, reason=r.reason,  # type: ignore[arg-type]
                        artifact_digest=r.artifact_digest, model_id=r.model_id or "",
                        tokens_in=r.tokens_in or 0, tokens_out=r.tokens_out or 0, seq=r.seq)
                for r in rows if r.kind == "attempt"]
        return LoopResult(node, end.state, end.reason, atts, float(end.wall_s or 0.0),  # type: ignore[arg-type]
                          end.verdict_seq, atts[-1].artifact_digest if atts else None, None, pass_no)


REPLAYED = ("kind", "attempt", "verdict", "artifact_digest", "state", "failed", "rerun", "budget_left")


def _same_replay(old: dict | None, new: dict, cell_key: str | None) -> dict:
    """The ledger's row for a replayed step, when the replay (a seeded simulated or replay worker)
    made the same one; otherwise the resumed run is not the run that was killed (another target,
    options or engine): refused, nothing written."""
    from harness.core.errors import InputError
    diff = [k for k in REPLAYED if old is None or old.get(k) != new.get(k)]
    if diff:
        raise InputError(str(cell_key), "--resume", f"replaying the killed run gave a different row "
                         f"({', '.join(diff)}) than the ledger's: resume with the same TARGET, engine and options, "
                         "or start again with a new --out")
    return old  # type: ignore[return-value]


def run_simulated(loop: Loop, gates: list[Gate], ledger: Ledger, budget: LoopBudget, runs: int,
                  seed: int, tiers: tuple[int, ...] = (1, 2)) -> list[GateSummary]:
    memo = MemoJudge()
    out = []
    for tier in tiers:
        pool = corpus_pool(loop, tier)
        for gate in gates:
            s = GateSummary(loop.id, gate.name, gate.kind, gate.status, gate.spec.get("planted"), tier,
                            str(gate.path), _twin_path(gate), len(pool))
            for r in range(1, runs + 1):
                worker = CorpusWorker(pool, loop.target, f"{seed}|{loop.id}|tier{tier}|{r}")
                run_id = f"{loop.id}|{gate.name}|t{tier}#{r}"
                res = run_loop(loop_spec(loop, gate), worker, budget, ledger, run_id=run_id,
                               judge_fn=memo, extra={"loop": loop.id, "engine": "simulated", "seed": seed,
                                                     "tier": tier})
                s.runs += 1
                s.attempts += res.spent
                s.endings[res.ending] += 1
                last = worker.drawn[-1]
                s.detail.append({"run_id": run_id, "ending": res.ending,
                                 "attempts": res.spent, "last_draft": last.id, "label": last.label,
                                 "artifact_digest": res.final_digest})
                if res.state == DONE:
                    s.done += 1
                    s.false_done += last.label == "destroying"
            out.append(s)
    return out


def start_engine(engine: str, model: str | None, options: dict, seed: int):
    """A worker engine for a loop (no task: the loop's prompt is its own). An SDK that cannot
    start (no key, no model) is bad input, said in one line, never a traceback."""
    try:
        return make_engine(engine, EngineContext(role="worker", task=None, scenario={}, seed=str(seed),
                                                 model=model, options=dict(options)))
    except (KeyError, ValueError):
        raise
    except Exception as exc:  # e.g. the SDK refusing to start without a key
        raise ValueError(f"--engine {engine}: cannot start the engine: {type(exc).__name__}: {exc}") from None


@dataclass
class ModelRun:
    loop: str
    gate_kind: str
    model: str
    result: LoopResult


def run_engine(loop: Loop, gate: Gate, ledger: Ledger, budget: LoopBudget, engine: str,
               models: tuple[str | None, ...], options: dict, seed: int) -> list[ModelRun]:
    out = []
    for model in models or (None,):
        spec, run_id = loop_spec(loop, gate), f"{gate.name}@{model or engine}"
        done = ledger.finished_result(run_id, spec.node) if isinstance(ledger, ResumeLedger) else None
        if done is not None:  # finished before the kill: never called (nor billed) again
            out.append(ModelRun(loop.id, gate.kind, model or engine, done))
            continue
        worker = start_engine(engine, model, options, seed)
        res = run_loop(spec, worker, budget, ledger, run_id=run_id,
                       extra={"loop": loop.id, "engine": engine, "model": model})
        out.append(ModelRun(loop.id, gate.kind, model or engine, res))
    return out


def render_false_done(summaries: list[GateSummary], budget: LoopBudget) -> str:
    lines = [f"Simulated worker, N = {budget.max_attempts} attempts, soft bound s = {budget.soft_bound}",
             "| loop | gate | status | tier (drafts) | runs | DONE | false-DONE (k/n, rate, Wilson 95%) | halts |",
             "|---|---|---|---|---|---|---|---|"]
    for s in summaries:
        status = s.status + (f" ({s.planted})" if s.planted else "")
        halts = ", ".join(f"{k} {v}" for k, v in sorted(s.endings.items()) if k != DONE) or "0"
        lines.append(f"| {s.loop} | {s.gate} | {status} | {s.tier} ({s.pool}) | {s.runs} | {s.done} | {s.rate.fmt()} "
                     f"| {halts} |")
    lines += _twins(summaries)
    lines.append(f"Method: {FALSE_DONE_METHOD}.")
    return "\n".join(lines)


def _twins(summaries: list[GateSummary]) -> list[str]:
    """Each planted gate beside its repaired twin (the gate its ``repaired_by`` names), per tier."""
    out = []
    for p in summaries:
        if p.status != "planted" or not p.repaired_by:
            continue
        twin = next((s for s in summaries if s.loop == p.loop and s.tier == p.tier and s.path == p.repaired_by), None)
        if twin is not None:
            out.append(f"planted {p.loop}/{p.gate} ({p.planted}) vs repaired twin {twin.gate}, tier {p.tier}: "
                       f"false-DONE {p.false_done}/{p.done} vs {twin.false_done}/{twin.done}")
    return ["", *out] if out else []


@dataclass(frozen=True)
class Table8Row:
    """One row of Table 8's layout: a loop's model (lettered), how its pass ended, attempts to DONE, wall time."""
    loop: str
    gate_kind: str
    letter: str
    terminal: str
    attempts_to_done: int | None
    wall_s: float

    def as_dict(self) -> dict:
        """The row as summary.json holds it (its keys in this order)."""
        return dataclasses.asdict(self)


def table8(runs: list[ModelRun]) -> list[Table8Row]:
    """Rows of Table 8's layout: per loop, models lettered A, B, ... by ascending wall time."""
    rows = []
    for loop in dict.fromkeys(r.loop for r in runs):
        mine = sorted((r for r in runs if r.loop == loop), key=lambda r: r.result.wall_s)
        for i, r in enumerate(mine):
            rows.append(Table8Row(loop=loop, gate_kind=r.gate_kind, letter=chr(ord("A") + i),
                                  terminal=r.result.state if r.result.state == DONE else f"halt ({r.result.ending})",
                                  attempts_to_done=r.result.attempts_to_done, wall_s=round(r.result.wall_s, 1)))
    return rows


def render_table8(rows: list[Table8Row]) -> str:
    lines = ["| loop | gate kind | provider | terminal | attempts to done | wall (s) |", "|---|---|---|---|---|---|"]
    last = None
    for r in rows:
        head = (r.loop, r.gate_kind) if r.loop != last else ("", "")
        last = r.loop
        atd = r.attempts_to_done if r.attempts_to_done is not None else "n/a"
        lines.append(f"| {head[0]} | {head[1]} | {r.letter} | {r.terminal} | {atd} | {r.wall_s:.1f} |")
    lines.append(TABLE8_CAUTION)
    return "\n".join(lines)


def resume_command(target: str, out: Path) -> str:
    """The command that continues the loop run in ``out``: the TARGET the user gave, never the word
    "TARGET" (every hint, lock refusal and full-disk line names it)."""
    return runio.typed_command({"--out": "--resume"}) or f"harness loop run {target} --resume {out}"


def write_summary(out: Path, payload: dict, text: str, target: str) -> None:
    """summary.json and table.md, each written atomically (rewritten on --resume: never left torn);
    a full disk is ``NoSpace`` (exit 4) naming the resume command."""
    rerun = resume_command(target, out)
    write_atomic(out / "summary.json", json.dumps(payload, indent=1, default=str) + "\n", rerun)
    write_atomic(out / "table.md", text + "\n", rerun)
