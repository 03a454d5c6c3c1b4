"""Mutants judged per second: serial (baseline) vs a 2-worker pool (subject), for a command gate
and a pytest gate from the catalogue; and, for the pytest gate, the cold path (whole suite, a new
interpreter per mutant) vs the fast path (coverage-selected tests forked from a pre-imported
pytest), with identical verdicts. ratio = subject throughput / baseline throughput."""
from __future__ import annotations

import os

from corpus.catalogue import load_catalogue
from corpus.measure import measure

CASES = (("command gate (runbook-complete)", "runbook-complete", "gate.toml"),
         ("pytest gate (tax-calc-module)", "tax-calc-module", "gate.toml"))


def run(quick: bool = False) -> list[dict]:
    families = ("v1",) if quick else ("v1", "v2")
    workers = min(2, os.cpu_count() or 1) if quick else max(2, min(4, os.cpu_count() or 2))
    rows = []
    for label, loop_id, gate_file in CASES:
        lp = load_catalogue(only=loop_id)[0]
        gate = [g for g in lp.gates() if g.path.name == gate_file]
        serial = measure([lp], families=families, tier2=not quick, workers=1, gates={lp.id: gate})
        par = measure([lp], families=families, tier2=not quick, workers=workers, gates={lp.id: gate})
        n = len(serial.rows)
        assert n == len(par.rows)
        assert sorted((r.mutant, r.verdict) for r in serial.rows) == sorted((r.mutant, r.verdict) for r in par.rows)
        base_tp, subj_tp = n / serial.wall_s, n / par.wall_s
        rows.append({"name": f"corpus judge: {label}", "baseline": f"serial {base_tp:.1f}/s",
                     "baseline_s": serial.wall_s, "subject": f"{workers} workers {subj_tp:.1f}/s",
                     "subject_s": par.wall_s, "ratio": subj_tp / base_tp, "unit": "x throughput (mutants/s)",
                     "notes": f"{n} judgments (incl. control), families {'+'.join(families)}"
                              f"{'' if quick else '+tier2'}; verdicts identical serial vs parallel"})
    if not quick:
        rows.append(_cold_vs_fast(workers))
    return rows


def _cold_vs_fast(workers: int) -> dict:
    lp = load_catalogue(only="tax-calc-module")[0]
    kw = dict(families=("v1", "v2", "fine"), tier2=True, workers=workers)
    cold = measure([lp], fast=False, **kw)
    fast = measure([lp], fast=True, **kw)
    same = [(r.mutant, r.verdict) for r in cold.rows] == [(r.mutant, r.verdict) for r in fast.rows]
    assert same, "the fast path must give the cold path's verdicts"
    n = sum(r.verdict != "not-judged" for r in cold.rows)
    base_tp, subj_tp = n / cold.wall_s, n / fast.wall_s
    return {"name": "corpus judge: pytest gate (tax-calc-module), cold vs fast path",
            "baseline": f"cold {base_tp:.1f}/s", "baseline_s": cold.wall_s,
            "subject": f"fast {subj_tp:.1f}/s", "subject_s": fast.wall_s, "ratio": subj_tp / base_tp,
            "unit": "x throughput (mutants/s)",
            "notes": f"{n} judgments (incl. control), families v1+v2+fine+tier2, {workers} workers each; "
                     f"verdicts identical cold vs fast"}
