"""``harness reproduce bounded-loops``: the shapes of the Bounded Loops paper's Tables 1 and 2,
from scripted workers run through the real loop (harness.loop.loop), a real gate and the ledger.

Table 1 (bound utilisation against a declared ceiling N = 10): a worker that needs k attempts
(k - 1 productive rejects, then the accepted artifact). Predicted attempts = min(k, N), terminal
"done" if k <= N else "ceiling"; utilisation u = attempts / N. The paper shows 6 of its 9
workloads (1, 2, 3, 4, 6, 8); the other three here (10, 12, 16) are our choice, picked to cross
the ceiling, where u caps at exactly 1 because the loop halts rather than borrowing an
(N+1)-th attempt.

Table 2 (the soft bound, s = 3, N = 10): a worker with p productive attempts that then repeats one
rejected draft for ever. Predicted attempts = min(p + s, N), halted on "no-progress" when
p + s <= N; attempts saved = N - observed (against spending the full declared cap).

Observed attempts are read back from the ledger (rows flagged ``spent``), not from the loop's
return value, so the tables check the receipts the paper reads utilisation from (Fig. 5).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from corpus.gates import load_gate
from harness.core import runio
from harness.core.errors import ExitCode
from harness.ledger.ledger import Ledger
from harness.loop.loop import LoopBudget, LoopSpec, audit_done, run_loop, spent_attempts
from harness.loop.loop_workers import ScriptedWorker, write_scripted_gate

CEILING = 10
SOFT_BOUND = 3
TABLE1_WORKLOADS = (1, 2, 3, 4, 6, 8, 10, 12, 16)
TABLE2_PRODUCTIVE = (0, 1, 2, 4)
TARGET = "status.json"


@dataclass
class Row:
    table: int
    x: int                 # Table 1: workload k; Table 2: productive attempts p
    predicted: int
    observed: int
    predicted_end: str
    observed_end: str
    ceiling: int

    @property
    def agrees(self) -> bool:
        return self.predicted == self.observed and self.predicted_end == self.observed_end


def run(out: Path, ceiling: int = CEILING, soft_bound: int = SOFT_BOUND,
        workloads=TABLE1_WORKLOADS, productive=TABLE2_PRODUCTIVE) -> tuple[list[Row], list[str]]:
    """Run every scripted worker; returns the rows and the ledger's drift-audit problems."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ledger_path = out / "ledger.jsonl"
    for p in (ledger_path, ledger_path.with_suffix(".head")):
        if p.exists():
            p.unlink()  # a reproduction is a fresh run: the ledger holds this run only
    gate = load_gate(write_scripted_gate(out / "gate"))
    ledger = Ledger(ledger_path)
    spec = LoopSpec("scripted", 'The artifact is the JSON string "ACCEPT".', TARGET, gate)
    budget = LoopBudget(ceiling, soft_bound)
    rows: list[Row] = []
    cases = [(1, k, k - 1, True) for k in workloads] + [(2, p, p, False) for p in productive]
    for table, x, prod, accepts in cases:
        run_id = f"table{table}-{x}"
        res = run_loop(spec, ScriptedWorker(TARGET, prod, accepts), budget, ledger, run_id=run_id)
        pred, pred_end = budget.predicted(prod, accepts)
        observed = spent_attempts(ledger.records, run_id)
        rows.append(Row(table, x, pred, observed, pred_end, res.ending, ceiling))
    return rows, audit_done(ledger.records)


def render(rows: list[Row], soft_bound: int = SOFT_BOUND) -> str:
    t1 = [r for r in rows if r.table == 1]
    t2 = [r for r in rows if r.table == 2]
    n = t1[0].ceiling if t1 else (t2[0].ceiling if t2 else CEILING)
    out = [f"Table 1: bound utilisation against a declared ceiling of N = {n} (soft bound s = {soft_bound})",
           "| workload k | predicted | observed | terminal | u = observed / N |", "|---|---|---|---|---|"]
    for r in t1:
        out.append(f"| {r.x} | {r.predicted} | {r.observed} | {r.observed_end} | {r.observed}/{r.ceiling} = "
                   f"{r.observed / r.ceiling:.1f} |")
    out.append(f"Predicted equals observed in {sum(r.agrees for r in t1)} of {len(t1)} cases "
               f"(attempts and terminal). Predicted = min(k, N); observed = rows flagged spent in the ledger.")
    out += ["", f"Table 2: the soft bound with s = {soft_bound}, N = {n}",
            "| productive attempts p | predicted | observed | attempts saved | halted on |", "|---|---|---|---|---|"]
    for r in t2:
        out.append(f"| {r.x} | {r.predicted} | {r.observed} | {r.ceiling - r.observed} | {r.observed_end} |")
    out.append(f"Predicted equals observed in {sum(r.agrees for r in t2)} of {len(t2)} cases. Predicted = "
               f"min(p + s, N); attempts saved = N - observed. "
               f"{sum(r.observed_end == 'no-progress' for r in t2)} of {len(t2)} runs halted on no-progress "
               f"rather than on the hard ceiling.")
    return "\n".join(out)


def write(out: Path, rows: list[Row], problems: list[str], text: str) -> None:
    rerun = f"harness reproduce bounded-loops --out {out}"
    runio.write_atomic(Path(out) / "tables.md", text + "\n", rerun, ExitCode.BAD_INPUT)
    runio.write_atomic(Path(out) / "summary.json", json.dumps(
        {"rows": [asdict(r) | {"agrees": r.agrees} for r in rows], "drift_problems": problems,
         "method": __doc__}, indent=1) + "\n", rerun, ExitCode.BAD_INPUT)
