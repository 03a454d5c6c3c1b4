"""``harness run --pilot N``: run N cells per arm, then project cost and time for the full design.

The pilot takes whole matched units (task x scenario x repeat x factors) in the protocol's
seeded run order until every arm has at least N cells, so its arms face the same units. The
projection scales each arm's mean cost and mean wall time per scored cell to the arm's cell
count in the full design, and divides cell-seconds by the worker count for the time (a lower
bound when a provider limiter will throttle: the pilot's limiter waits are reported too). The
pilot's records are ordinary records of the run: ``--resume`` continues the run to the full
design.
"""
from __future__ import annotations

import math
import statistics
from collections import Counter
from typing import Any

from harness.core.matrix import Cell
from harness.core.record import CellRecord


def select(order: list[Cell], per_arm: int) -> list[Cell]:
    groups: dict[str, list[Cell]] = {}
    for c in order:
        groups.setdefault(c.unit, []).append(c)
    arms = {c.arm for c in order}
    have: Counter = Counter()
    out: list[Cell] = []
    for unit, cells in groups.items():  # dicts keep the run order of first appearance
        if all(have[a] >= per_arm for a in arms):
            break
        if all(have[c.arm] >= per_arm for c in cells):
            continue
        out.extend(cells)
        have.update(c.arm for c in cells)
    return out


def _ci_mean(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, float("nan"), float("nan")
    half = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, max(0.0, m - half), m + half


def project(records: list[CellRecord], full_per_arm: Counter, workers: int) -> dict:
    per: dict[str, dict[str, Any]] = {}
    tot_cost, tot_cell_s, cost_known = 0.0, 0.0, True
    for arm, n_full in sorted(full_per_arm.items()):
        rs = [r for r in records if r.arm == arm]
        scored = [r for r in rs if r.scored]
        costs = [r.cost_usd for r in scored]
        walls = [float(r.wall_s or 0.0) for r in scored]
        priced = all(c is not None for c in costs) and bool(costs)
        cm = _ci_mean([float(c) for c in costs if c is not None]) if priced else None
        wm = _ci_mean(walls) if walls else None
        per[arm] = {"pilot_cells": len(rs), "pilot_void": len(rs) - len(scored), "full_cells": n_full,
                    "mean_cost_usd": cm[0] if cm else None, "cost_usd_95ci": [cm[1], cm[2]] if cm else None,
                    "projected_cost_usd": cm[0] * n_full if cm else None,
                    "mean_wall_s": wm[0] if wm else None, "projected_cell_s": wm[0] * n_full if wm else None,
                    "mean_tokens": statistics.fmean(known) if (known := [r.tokens_in + r.tokens_out for r in scored
                                                                         if r.tokens_in is not None
                                                                         and r.tokens_out is not None]) else None,
                    "limiter_wait_s": sum(float(r.limiter_wait_s or 0) for r in rs),
                    "retries": sum(int(r.engine_retries or 0) for r in rs)}
        if cm is None:
            cost_known = False
        else:
            tot_cost += cm[0] * n_full
        tot_cell_s += (wm[0] * n_full) if wm else 0.0
    return {"per_arm": per, "full_cells": sum(full_per_arm.values()), "workers": workers,
            "projected_cost_usd": tot_cost if cost_known else None,
            "projected_wall_s": tot_cell_s / max(1, workers),
            "void_rate": (sum(p["pilot_void"] for p in per.values()) / max(1, sum(p["pilot_cells"] for p in per.values())))}


def render(proj: dict) -> str:
    lines = ["| arm | pilot cells | void | mean $/cell [95% CI] | mean s/cell | full cells | projected $ |",
             "|---|---|---|---|---|---|---|"]
    for arm, p in proj["per_arm"].items():
        if p["mean_cost_usd"] is None:
            cost, proj_cost = "n/a (unpriced model)", "n/a"
        else:
            lo, hi = p["cost_usd_95ci"]
            ci = "" if math.isnan(lo) else f" [{lo:.4f}, {hi:.4f}]"
            cost, proj_cost = f"{p['mean_cost_usd']:.4f}{ci}", f"{p['projected_cost_usd']:,.2f}"
        wall = "n/a" if p["mean_wall_s"] is None else f"{p['mean_wall_s']:.1f}"
        lines.append(f"| {arm} | {p['pilot_cells']} | {p['pilot_void']} | {cost} | {wall} | {p['full_cells']} | {proj_cost} |")
    total = proj["projected_cost_usd"]
    hours = proj["projected_wall_s"] / 3600
    lines.append("")
    lines.append(f"full design: {proj['full_cells']} cells; projected cost "
                 + ("n/a (a model has no price in [pricing])" if total is None else f"${total:,.2f}")
                 + f"; projected time {hours:.2f} h at --workers {proj['workers']} "
                 "(mean cell wall time x cells / workers; rate limits can only make it longer); "
                 f"pilot void rate {proj['void_rate']:.1%}.")
    return "\n".join(lines)
