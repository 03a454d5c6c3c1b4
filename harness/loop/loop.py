"""One bounded loop (Bounded Loops paper, Fig. 1 and Fig. 2): a worker, a gate the worker cannot
write to, and a declared budget.

Each attempt: the worker (any engine: simulated, replay, anthropic, openai) proposes writes; the
controller authorizes each one (only the loop's artifact ``target`` may be written; a write to the
gate, one of its anchors or any other path is refused and logged, never merely discouraged);
the gate judges the workspace; one ledger row records the attempt and the verdict. The verdict,
not the worker, routes the loop (Theorem 4.1's trichotomy):

- ``accept``     -> DONE. A terminal row names the seq and hash of the accepting verdict row;
- ``reject``     -> retry with the gate's message, within the hard ceiling ``max_attempts``;
- ``incapacity`` -> HALT with the gate's reason (retrying cannot help: the gate could not judge).

The gate's digest (its files and anchors) is re-read after every verdict: a gate that changed
during the loop (a pytest or command gate executes the artifact, whose code could rewrite the
gate's files) halts it with incapacity, so no verdict of an altered gate routes to DONE.

The soft no-progress bound ``soft_bound`` = s halts the loop once the gate has returned the same
reject message s times in a row, before the hard ceiling (paper Table 2: with k productive
attempts the loop halts after k + s attempts). At the ceiling the loop halts rather than borrowing
an (N+1)-th attempt (Table 1); the terminal row is flagged ``spent = false`` so that utilisation
read from the ledger counts attempts, not rows (Fig. 5, Definition 13.1).

What the worker says about itself (its reply text, a ``claim_done`` call) is stored in the ledger
row as ``worker_claim`` and read by no branch below (Lemma 7.1, Fig. 3).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Callable

from corpus.gates import Gate, Judgement, Verdict, judge
from harness.core.engine import Engine, EngineFault, EngineRequest, Message, ToolSpec
from harness.core.outcomes import LoopEnding
from harness.engines.replay import ReplayExhausted, ReplayMismatch
from harness.ledger.ledger import Ledger
from harness.loop.rows import LoopRow, PassKey, rows_of

DONE, HALT = "done", "halt"
CLAIM_CHARS = 500
REASON_CHARS = 600

TOOLS = [
    ToolSpec("write_file", "Write the artifact. Only the artifact's own path may be written.",
             {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
              "required": ["path", "content"]}),
    ToolSpec("delete_file", "Delete a file you wrote.",
             {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec("claim_done", "Say you are finished (recorded; the gate alone decides).",
             {"type": "object", "properties": {"note": {"type": "string"}}}),
]
SYSTEM = ("You are the worker of a bounded loop. Write the artifact {target!r} so that it meets the requirement, "
          "with the write_file tool (path {target!r}). An independent gate judges the artifact after every "
          "attempt; you cannot read or change the gate, and your own statement that you are done is not read.")


@dataclass(frozen=True)
class LoopBudget:
    """The declared budget of one loop: the hard ceiling N (attempts per pass) and the soft
    no-progress bound s (the same reject s times in a row halts; None = no soft bound)."""

    max_attempts: int
    soft_bound: int | None = None

    def __post_init__(self):
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError(f"max_attempts must be an integer >= 1, got {self.max_attempts!r}")
        if self.soft_bound is not None and (not isinstance(self.soft_bound, int) or self.soft_bound < 1):
            raise ValueError(f"soft_bound must be an integer >= 1 or absent, got {self.soft_bound!r}")

    def predicted(self, productive: int, accepts: bool) -> tuple[int, str]:
        """Closed-form attempts and how the loop ends, for a worker whose first ``productive``
        attempts each draw a new reject message and which then either is accepted on the next
        attempt (``accepts``) or repeats one reject message for ever.

        Table 1 (accepts, workload k = productive + 1): attempts = min(k, N), "done" if k <= N else
        "ceiling". Table 2 (never accepts): attempts = min(productive + s, N), "no-progress" if
        productive + s <= N else "ceiling" (with no soft bound: N, "ceiling")."""
        n = self.max_attempts
        if accepts:
            k = productive + 1
            return (k, DONE) if k <= n else (n, "ceiling")
        if self.soft_bound is not None and productive + self.soft_bound <= n:
            return productive + self.soft_bound, "no-progress"
        return n, "ceiling"


@dataclass
class LoopSpec:
    """What one loop is: the requirement in words, the artifact path, the gate, and the files the
    workspace starts with (companions the gate reads: anchors, never writable by the worker)."""

    node: str
    requirement: str
    target: str
    gate: Gate
    seed_dir: Path | None = None

    def anchors(self) -> list[Path]:
        """Every file the gate's verdict depends on (corpus.gates.Gate.files)."""
        return self.gate.files()


@dataclass
class Attempt:
    n: int
    verdict: str | None
    reason: str
    artifact_digest: str | None
    writes: list[str] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    claim: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    model_id: str = ""
    seq: int | None = None


@dataclass
class LoopResult:
    node: str
    state: str              # DONE or HALT
    reason: str
    attempts: list[Attempt]
    wall_s: float
    verdict_seq: int | None = None   # the ledger seq of the accepting verdict row (DONE only)
    final_digest: str | None = None  # sha256 of the artifact the gate judged last (None: absent)
    final_content: bytes | None = None  # that artifact (a repaired re-run of the node starts from it)
    pass_no: int = 1
    end: LoopEnding | None = None  # how the pass ended; None: rebuilt from a ledger row (see ``ending``)

    @property
    def ending(self) -> LoopEnding:
        """DONE, or why the loop halted (a LoopEnding: no-progress, ceiling, incapacity, engine
        fault). A result rebuilt from a terminal ledger row reads it from the row's reason text."""
        if self.end is not None:
            return self.end
        return LoopEnding.DONE if self.state == DONE else LoopEnding(self.reason.split(":", 1)[0])

    @property
    def spent(self) -> int:
        return len(self.attempts)

    @property
    def attempts_to_done(self) -> int | None:
        return self.spent if self.state == DONE else None


def content_digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def authorize_write(path: object, target: str, workspace: Path, anchors: list[Path]) -> str | None:
    """None if the worker may write ``path``, else why not. The write set is exactly the target:
    the gate, its anchors and every other path are refused (Definitions 3.3 and 3.6)."""
    if not isinstance(path, str) or not path.strip():
        return "no path given"
    raw = Path(path)
    resolved = Path(os.path.normpath(raw if raw.is_absolute() else workspace / raw))
    anchor_set = {Path(os.path.normpath(a)) for a in anchors}
    if resolved in anchor_set or any(a.parent == resolved or resolved in a.parents for a in anchor_set):
        return "the gate or one of its anchors (the worker can never write the gate)"
    if workspace not in resolved.parents:  # even a declared target that climbs out is never writable
        return "outside the workspace (the worker writes only the artifact)"
    if PurePosixPath(os.path.normpath(path)).as_posix() == PurePosixPath(target).as_posix() and not raw.is_absolute():
        return None
    if resolved == Path(os.path.normpath(workspace / target)):
        return None
    inside = workspace == resolved or workspace in resolved.parents
    return ("a workspace file the gate reads (an anchor), not the artifact" if inside
            else "outside the workspace (the worker writes only the artifact)")


def prepare_workspace(spec: LoopSpec, dest: Path, start: bytes | None = None) -> Path:
    """A fresh workspace: the seed directory's companions (never the target: the worker writes it)
    plus, for a re-run of a finished node, the artifact it left (``start``)."""
    if spec.seed_dir is not None and Path(spec.seed_dir).is_dir():
        shutil.copytree(spec.seed_dir, dest, symlinks=False)
        tgt = dest / spec.target
        if tgt.exists():
            tgt.unlink()
    else:
        dest.mkdir(parents=True)
    if start is not None:
        (dest / spec.target).parent.mkdir(parents=True, exist_ok=True)
        (dest / spec.target).write_bytes(start)
    return dest


def build_request(spec: LoopSpec, workspace: Path, feedback: str | None, n: int, max_tokens: int) -> EngineRequest:
    """The worker's prompt for attempt n: the requirement, the current artifact, the gate's last
    message. Never the gate itself."""
    tgt = workspace / spec.target
    current = tgt.read_text(errors="replace") if tgt.is_file() else None
    parts = [f"Requirement:\n{spec.requirement}", f"Artifact path: {spec.target}",
             f"Attempt {n}."]
    parts.append("Current artifact:\n" + current if current is not None else "The artifact does not exist yet.")
    if feedback is not None:
        parts.append(f"The gate rejected the previous attempt:\n{feedback}")
    return EngineRequest("worker", SYSTEM.format(target=spec.target), [Message("user", "\n\n".join(parts))],
                         list(TOOLS), max_tokens)


JudgeFn = Callable[[Gate, Path, str], Judgement]


def run_loop(spec: LoopSpec, worker: Engine, budget: LoopBudget, ledger: Ledger, *, run_id: str,
             pass_no: int = 1, start: bytes | None = None, judge_fn: JudgeFn = judge,
             max_tokens: int = 8192, extra: dict | None = None, inputs: dict[str, bytes] | None = None,
             feedback: str | None = None) -> LoopResult:
    """Run one pass of one loop until the gate routes it to DONE or HALT (module docstring).

    ``start``: the artifact a re-run begins from; ``inputs``: upstream artifacts placed in the
    workspace (relative path -> bytes; read-only to the worker: only the target is writable);
    ``feedback``: the message the first attempt sees (a repair says which downstream node failed)."""
    t0 = time.monotonic()
    gate_digest = spec.gate.digest()
    anchors = spec.anchors()
    attempts: list[Attempt] = []
    pass_key = PassKey(run_id, spec.node, pass_no)
    base = {"run_id": run_id, "node": spec.node, "pass": pass_no, "gate": spec.gate.name,
            "gate_digest": gate_digest, **(extra or {})}
    with tempfile.TemporaryDirectory(prefix="loop-ws-") as tmp:
        ws = prepare_workspace(spec, Path(tmp) / "workspace", start)
        for rel, data in (inputs or {}).items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_bytes(data)
        last_reject, same = None, 0
        for n in range(1, budget.max_attempts + 1):
            att = Attempt(n=n, verdict=None, reason="", artifact_digest=None)
            attempts.append(att)
            try:
                reply = worker.complete(build_request(spec, ws, feedback, n, max_tokens))
            except (EngineFault, ReplayExhausted, ReplayMismatch) as exc:
                att.reason = f"engine fault: {exc}"
                _attempt_row(ledger, base, pass_key, att)
                return _terminal(ledger, base, pass_key, spec, attempts, LoopEnding.ENGINE_FAULT, att.reason, t0, ws)
            att.claim = (reply.text or "")[:CLAIM_CHARS]
            att.tokens_in, att.tokens_out, att.model_id = reply.usage.input_tokens, reply.usage.output_tokens, reply.model_id
            _apply(reply.tool_calls, spec, ws, anchors, att)
            j = judge_fn(spec.gate, ws, spec.target)
            now = spec.gate.digest()
            if now != gate_digest:  # e.g. artifact code a pytest/command gate ran rewrote the gate's files
                j = Judgement(Verdict.INCAPACITY, f"the gate changed during the loop (digest {gate_digest[:12]} -> "
                              f"{now[:12]}): no verdict of an altered gate is trusted")
            tgt = ws / spec.target
            att.artifact_digest = content_digest(tgt.read_bytes() if tgt.is_file() else None)
            att.verdict, att.reason = j.verdict.value, j.reason[-REASON_CHARS:]
            row = _attempt_row(ledger, base, pass_key, att)
            if j.verdict is Verdict.ACCEPT:
                return _terminal(ledger, base, pass_key, spec, attempts, LoopEnding.DONE, "the gate accepted", t0, ws,
                                 row)
            if j.verdict is Verdict.INCAPACITY:
                return _terminal(ledger, base, pass_key, spec, attempts, LoopEnding.INCAPACITY,
                                 f"incapacity: {j.reason[-200:]}", t0, ws)
            key = reject_key(j.reason)
            same = same + 1 if key == last_reject else 1
            last_reject, feedback = key, j.reason[-REASON_CHARS:]
            if budget.soft_bound is not None and same >= budget.soft_bound:
                return _terminal(ledger, base, pass_key, spec, attempts, LoopEnding.NO_PROGRESS,
                                 f"no-progress: the same reject {same} times in a row (soft bound {budget.soft_bound})",
                                 t0, ws)
        return _terminal(ledger, base, pass_key, spec, attempts, LoopEnding.CEILING,
                         f"ceiling: {budget.max_attempts} attempts spent without an accept", t0, ws)


_DURATION = re.compile(r"\b\d+(?:\.\d+)?s\b")
_TEMP_DIR = re.compile(r"(?:corpus-gate-|loop-ws-|tmp)[A-Za-z0-9_]{4,}")


def reject_key(reason: str) -> str:
    """What the no-progress bound compares: the gate's reject without what changes from one run of
    the same judgement to the next (a pytest summary's '1 failed in 0.19s', the temporary copy's
    directory name), so the same reject of the same artifact reads as the same."""
    return _TEMP_DIR.sub("<tmp>", _DURATION.sub("<t>", reason))


def _apply(calls, spec: LoopSpec, ws: Path, anchors: list[Path], att: Attempt) -> None:
    """Authorize and execute the worker's tool calls; every refusal is kept for the ledger row."""
    for c in calls:
        args = c.arguments if isinstance(c.arguments, dict) else None
        if c.name == "claim_done":
            note = str(args.get("note", "")) if args else ""
            att.claim = (att.claim + f" [claim_done: {note}]")[:CLAIM_CHARS]
            continue
        if c.name not in ("write_file", "delete_file"):
            att.refused.append({"tool": c.name, "path": None, "why": "unknown tool"})
            continue
        if args is None:
            att.refused.append({"tool": c.name, "path": None, "why": "arguments are not a JSON object"})
            continue
        path = args.get("path")
        why = authorize_write(path, spec.target, ws, anchors)
        if why is None and c.name == "write_file" and not isinstance(args.get("content"), str):
            why = "content is not a string"
        if why is not None:
            att.refused.append({"tool": c.name, "path": str(path)[:300], "why": why})
            continue
        tgt = ws / spec.target
        if c.name == "write_file":
            tgt.parent.mkdir(parents=True, exist_ok=True)
            if tgt.is_symlink():
                tgt.unlink()
            tgt.write_text(args["content"])
        elif tgt.is_file() or tgt.is_symlink():
            tgt.unlink()
        att.writes.append(f"{c.name}:{spec.target}")


def _attempt_row(ledger: Ledger, base: dict, key: PassKey, att: Attempt) -> LoopRow:
    """Append the attempt's row (``base``: the pass's own keys, ``key`` their values); returns it as written."""
    row = ledger.append({**base, "kind": "attempt", "cell_key": f"{key.run_id}|{key.node}|{key.pass_no}|{att.n}",
                         "attempt": att.n, "spent": True, "verdict": att.verdict, "reason": att.reason,
                         "artifact_digest": att.artifact_digest, "writes": att.writes, "refused": att.refused,
                         "worker_claim": att.claim, "model_id": att.model_id, "tokens_in": att.tokens_in,
                         "tokens_out": att.tokens_out})
    written = LoopRow.from_json(row)
    att.seq = written.seq
    return written


def _terminal(ledger: Ledger, base: dict, key: PassKey, spec: LoopSpec, attempts: list[Attempt], end: LoopEnding,
              reason: str, t0: float, ws: Path, verdict_row: LoopRow | None = None) -> LoopResult:
    state = DONE if end is LoopEnding.DONE else HALT
    tgt = ws / spec.target
    final = tgt.read_bytes() if tgt.is_file() else None
    wall = time.monotonic() - t0
    ledger.append({**base, "kind": "terminal", "cell_key": f"{key.run_id}|{key.node}|{key.pass_no}|end",
                   "spent": False, "state": state, "reason": reason, "attempts": len(attempts),
                   "verdict_seq": verdict_row.seq if verdict_row else None,
                   "verdict_hash": verdict_row.hash if verdict_row else None, "wall_s": round(wall, 4)})
    return LoopResult(spec.node, state, reason, attempts, wall, verdict_row.seq if verdict_row else None,
                      content_digest(final), final, key.pass_no, end)


def audit_done(records: list[dict]) -> list[str]:
    """Problems with the drift guarantee in a loop ledger (Theorem 7.1): every DONE terminal row
    must name an earlier attempt row of the same run, node and pass whose verdict is accept and
    whose hash matches. Returns one line per violation (empty: every DONE has its verdict row)."""
    rows = rows_of(records)
    by_seq = {r.seq: r for r in rows}
    out = []
    for r in rows:
        if r.kind != "terminal" or r.state != DONE:
            continue
        v = by_seq.get(r.verdict_seq)
        if v is None or v.hash != r.verdict_hash or v.kind != "attempt" \
                or v.verdict != Verdict.ACCEPT.value or v.seq >= r.seq or v.key != r.key:  # type: ignore[operator]
            out.append(f"seq {r.seq}: node {r.node!r} is DONE without an accepting verdict row")
    return out


def spent_attempts(records: list[dict], run_id: str, node: str | None = None) -> int:
    """Attempts read back from the ledger's receipts: rows flagged spent (terminal rows are not)."""
    return sum(1 for r in rows_of(records) if r.run_id == run_id and r.spent is True
               and (node is None or r.node == node))
