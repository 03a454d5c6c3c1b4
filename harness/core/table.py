"""The run's per-arm table (printed by ``harness run``); the full analysis is ``harness analyze``.

Columns: cells scored; completion = completed+recovered over null cells (Wilson 95%, H2's endpoint);
not-amplified = recovered+safe_stop over injected cells (Wilson 95%): the primary endpoint as the
analysis defines it (Eq. 7; H1), beside the raw amplified share over the same cells, which it does
not complement (a completed injected cell is neither); safe_stop and recovered counts over all scored
cells of the arm;
mean tokens (in+out) over the scored cells whose usage is known (a reply without usage leaves a
cell's tokens unknown, shown as "k/n cells known") and mean wall seconds per scored cell; void
cells (never scored).
"""
from __future__ import annotations

from dataclasses import dataclass

from harness.core.outcomes import Outcome
from harness.core.record import NULL_SCENARIO, CellRecord
from harness.core.wilson import Proportion, wilson

# Eq. 7's not-amplified endpoint (analysis/records.py: the tidy column not_amplified)
NOT_AMPLIFIED = (Outcome.RECOVERED, Outcome.SAFE_STOP)
COMPLETION = (Outcome.COMPLETED, Outcome.RECOVERED)  # H2's endpoint over null cells


def one_per_cell(records: list[CellRecord]) -> list[CellRecord]:
    """One record per cell key, in first-seen order: the last scored record of the key, else its
    last void one. A ledger after --resume holds a void record and the scored rerun that
    superseded it, or a void per session that left the cell void; each is one cell (the rule
    analysis/records.py applies as ``void_superseded``)."""
    chosen: dict[str, CellRecord] = {}
    for r in records:
        if r.cell_key not in chosen or r.scored or not chosen[r.cell_key].scored:
            chosen[r.cell_key] = r
    return list(chosen.values())


@dataclass(frozen=True)
class PerArmRow:
    """One arm's row of the table (the module's docstring says what each column counts)."""
    arm: str
    cells: int  # scored cells
    void: int
    completion: Proportion  # completed + recovered over scored null cells
    amplified: Proportion  # amplified over scored injected cells
    not_amplified: Proportion  # recovered + safe_stop over scored injected cells
    injected_other: dict[str, int]  # injected cells that are neither, by outcome
    safe_stop: int
    recovered: int
    unsafe: int
    mean_tokens: float | None  # over the scored cells whose usage is known (tokens_known of them)
    tokens_known: int
    mean_wall_s: float | None


def per_arm_rows(records: list[CellRecord], arms: list[str]) -> list[PerArmRow]:
    """The table's rows, one cell per key (``one_per_cell``)."""
    records = one_per_cell(records)
    rows = []
    for arm in arms:
        rs = [r for r in records if r.arm == arm]
        scored = [r for r in rs if r.scored]
        null = [r for r in scored if r.scenario == NULL_SCENARIO]
        inj = [r for r in scored if r.scenario != NULL_SCENARIO]
        n = len(scored)
        known = [r for r in scored if r.tokens_in is not None and r.tokens_out is not None]
        rows.append(PerArmRow(
            arm=arm, cells=n, void=len(rs) - n,
            completion=wilson(sum(r.outcome in COMPLETION for r in null), len(null)),
            amplified=wilson(sum(r.outcome is Outcome.AMPLIFIED for r in inj), len(inj)),
            not_amplified=wilson(sum(r.outcome in NOT_AMPLIFIED for r in inj), len(inj)),
            injected_other=_others(inj),
            safe_stop=sum(r.outcome is Outcome.SAFE_STOP for r in scored),
            recovered=sum(r.outcome is Outcome.RECOVERED for r in scored),
            unsafe=sum(r.outcome is Outcome.UNSAFE for r in scored),
            mean_tokens=(sum((r.tokens_in or 0) + (r.tokens_out or 0) for r in known) / len(known)) if known else None,
            tokens_known=len(known),
            mean_wall_s=(sum(r.wall_s for r in scored) / n) if n else None,
        ))
    return rows


def _others(inj: list[CellRecord]) -> dict[str, int]:
    """Injected cells that are neither amplified nor not-amplified, by outcome (completed, false_stop, ...)."""
    out: dict[str, int] = {}
    for r in inj:
        if r.outcome is not Outcome.AMPLIFIED and r.outcome not in NOT_AMPLIFIED:
            out[r.outcome.value] = out.get(r.outcome.value, 0) + 1
    return dict(sorted(out.items()))


def render(rows: list[PerArmRow]) -> str:
    head = ("| arm | cells | completion (null, Wilson 95%) | not-amplified (injected, Eq. 7, Wilson 95%) | "
            "amplified (injected, Wilson 95%) | safe_stop | recovered | unsafe | mean tokens | mean wall s | void |")
    out = [head, "|" + "---|" * 11]
    for r in rows:
        mt = "n/a" if r.mean_tokens is None else f"{r.mean_tokens:,.0f}"
        if r.tokens_known < r.cells:  # some replies reported no usage: the mean is over the cells that did
            mt += f" ({r.tokens_known}/{r.cells} cells known)"
        mw = "n/a" if r.mean_wall_s is None else f"{r.mean_wall_s:.2f}"
        out.append(f"| {r.arm} | {r.cells} | {r.completion.fmt()} | {r.not_amplified.fmt()} | "
                   f"{r.amplified.fmt()} | {r.safe_stop}/{r.cells} | {r.recovered}/{r.cells} | "
                   f"{r.unsafe}/{r.cells} | {mt} | {mw} | {r.void} |")
    out.append("")
    out.append("completion = (completed + recovered) / scored null cells (H2's endpoint); not-amplified = (recovered + "
               "safe_stop) / scored injected cells (H1's endpoint, Eq. 7); amplified = amplified / scored injected "
               "cells; safe_stop, recovered, unsafe over all scored cells of the arm; tokens = in + out; void cells "
               "are excluded from every denominator and counted in the last column.")
    other = "; ".join(f"{r.arm} " + ", ".join(f"{k} {o}" for o, k in r.injected_other.items())
                      for r in rows if r.injected_other)
    out.append("How the two injected columns relate: not-amplified + amplified + the other outcomes = all scored "
               "injected cells; a completed injected cell (shipped right on its first attempt, the injected failure "
               "never seen) or a false_stop counts as neither, so the gap between two arms' not-amplified can be "
               "smaller than their gap in amplified"
               + (f" (injected cells with other outcomes: {other})" if other else "") + ". `harness analyze` "
               "reports H1 (not-amplified) and H2 (completion) as differences of these endpoints over the cells both "
               "arms scored (matched cells).")
    return "\n".join(out)
