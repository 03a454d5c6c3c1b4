"""Matched-cell tables: per-arm (Table 11), contrasts (H1-H3), per-scenario (Table 17), Table 13.

Matched-cell invariant.
  * A contrast between arms a and b uses exactly the match keys (task|scenario|repeat|factors)
    for which both a and b have a scored record, inside the contrast's cell set.
  * The per-arm table sets arms side by side, so it uses the common cell set: a match key is kept
    only if *every arm applicable to its stratum* (scenario + factors) has a scored record for it.
    An arm is applicable to a stratum when it has at least one record there, scored or void. An
    arm that has no record at all in a stratum (A1 on the three scenarios that need a second
    attempt) is not padded; ``coverage_gaps`` lists every such stratum so an accidentally
    missing scenario is visible, never silent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.estimands import CONDITIONAL_HEADLINE, conditional_block, population_block
from analysis.intervals import DEFAULT_METHOD, cluster_interval
from analysis.paired import PairedCounts
from analysis.pairs import Col
from analysis.stats import bh_adjust, cluster_sums, fisher_two_sided
from harness.core.interval_methods import CONDITIONAL_METHODS, METHODS
from harness.core.outcomes import Outcome
from harness.core.wilson import wilson

ENDPOINTS = {
    "completion": "outcome in {completed, recovered}",
    "amplified": "outcome = amplified (shipped, hidden oracle fails)",
    "not_amplified": "outcome in {recovered, safe_stop}",
}
CELLSETS = {"injected": "injected (non-null) cells", "null": "null (no-injection) cells", "all": "all cells"}
CLUSTERS = ("task", "task x scenario", "cell")
# The default cluster is the outermost unit of the design that shares outcomes: a task's cells share
# its difficulty across scenarios, repeats and factor levels, so clustering on anything finer
# understates the variance when outcomes concentrate in a task (docs/explanation/estimands.md, "Calibration").
DEFAULT_CLUSTER = "task"
ARM_ORDER = ("A1", "A2", "A2p", "A3", "A4")
COUNT_OUTCOMES = tuple(o.value for o in (Outcome.RECOVERED, Outcome.SAFE_STOP, Outcome.FALSE_STOP, Outcome.ACCEPTANCE_FAIL,
                                          Outcome.UNSAFE))  # the tidy column holds strings


def scenario_sort_key(s: str):
    if s == "null":
        return (0, 0, "")
    m = re.fullmatch(r"([A-Za-z]*)(\d+)", s)
    return (1, int(m.group(2)), m.group(1)) if m else (2, 0, s)


def arm_sort_key(a: str):
    return (ARM_ORDER.index(a), "") if a in ARM_ORDER else (len(ARM_ORDER), a)


def factor_cols(tidy: pd.DataFrame) -> list[str]:
    return [c for c in tidy.columns if c.startswith("factor_")]


def select_cells(df: pd.DataFrame, cells: str) -> pd.DataFrame:
    if cells == "injected":
        return df[df["injected"]]
    if cells == "null":
        return df[~df["injected"]]
    if cells == "all":
        return df
    raise ValueError(f"cells must be one of {', '.join(CELLSETS)}; got {cells!r}")


# ---------------------------------------------------------------------------------------------
# pairwise matching


def matched_pair(tidy: pd.DataFrame, a: str, b: str, cells: str) -> pd.DataFrame:
    """One row per match key both arms have scored, with both arms' endpoint indicators.

    Columns: match_key, task, scenario, factor_*, and for x in (a, b) the suffixes _a/_b of
    completion, amplified, not_amplified, outcome.
    """
    sub = select_cells(tidy, cells)
    keep = ["match_key", "task", "scenario", *factor_cols(tidy)]
    vals = ["completion", "amplified", "not_amplified", "outcome"]
    da = sub.loc[sub[Col.ARM] == a, keep + vals].set_index("match_key")
    db = sub.loc[sub[Col.ARM] == b, ["match_key", *vals]].set_index("match_key")
    m = da.merge(db, left_index=True, right_index=True, how="inner", suffixes=("_a", "_b"))
    return m.reset_index().sort_values("match_key", kind="mergesort").reset_index(drop=True)


def cluster_ids(m: pd.DataFrame, cluster: str) -> pd.Series:
    if cluster == "task":
        return m[Col.TASK]
    if cluster == "task x scenario":
        return m[Col.TASK] + "|" + m[Col.SCENARIO]
    if cluster == "cell":
        return m["match_key"]
    raise ValueError(f"cluster must be one of {', '.join(CLUSTERS)}; got {cluster!r}")


@dataclass(frozen=True)
class Hypothesis:
    id: str
    a: str
    b: str
    endpoint: str = "not_amplified"
    cells: str = "injected"
    cluster: str = DEFAULT_CLUSTER
    description: str = ""
    interval: str = DEFAULT_METHOD

    def check(self) -> None:
        if self.interval not in METHODS:
            raise ValueError(f"hypothesis {self.id}: interval must be one of {', '.join(METHODS)}")
        if self.endpoint not in ENDPOINTS:
            raise ValueError(f"hypothesis {self.id}: endpoint must be one of {', '.join(ENDPOINTS)}")
        if self.cells not in CELLSETS:
            raise ValueError(f"hypothesis {self.id}: cells must be one of {', '.join(CELLSETS)}")
        if self.cluster not in CLUSTERS:
            raise ValueError(f"hypothesis {self.id}: cluster must be one of {', '.join(CLUSTERS)}")


PAPER_HYPOTHESES = (
    Hypothesis("H1", "A4", "A2p", "not_amplified", "injected", DEFAULT_CLUSTER,
               "A4 not-amplified rate > A2p (compute-budgeted control), injected cells (primary)"),
    Hypothesis("H2", "A4", "A2p", "completion", "null", DEFAULT_CLUSTER,
               "A4 completion >= A2p, null cells"),
    Hypothesis("H3", "A4", "A3", "not_amplified", "injected", DEFAULT_CLUSTER,
               "A4 > A3 (does the bounded loop add value beyond one review?), injected cells (exploratory)"),
)
# The paper's own interval scheme (section 5.2): what `reproduce paper` names to reproduce its numbers.
PAPER_SCHEME: dict[str, Any] = {"cluster": "task x scenario", "interval": "percentile", "B": 2000}


def paired_by_cluster(ids: pd.Series, ya, yb) -> tuple[list[str], list[PairedCounts]]:
    """Per cluster (sorted, as ``cluster_sums``), the paired 2x2 counts of its matched cells."""
    df = pd.DataFrame({"c": ids.to_numpy(), "a": np.asarray(ya, dtype=np.int64), "b": np.asarray(yb, dtype=np.int64)})
    df["a_only"] = (df["a"] == 1) & (df["b"] == 0)
    df["b_only"] = (df["a"] == 0) & (df["b"] == 1)
    g = df.groupby("c", sort=True).agg(n=("a", "size"), b=("a_only", "sum"), c=("b_only", "sum"),
                                       k_a=("a", "sum"), k_b=("b", "sum"))
    return [str(x) for x in g.index], [PairedCounts(int(r.n), int(r.b), int(r.c), int(r.k_a), int(r.k_b))
                                       for r in g.itertuples()]


def contrast(tidy: pd.DataFrame, h: Hypothesis, B: int, seed: int, alpha: float = 0.05) -> dict:
    """One hypothesis: both named estimands (``estimands``: conditional and population, each with its
    own method) and the headline interval (``lo``/``hi``/``method``): the conditional estimand's for
    ``stratified`` (the default; strata = tasks, whatever ``h.cluster``; pooled Tango when the tasks are
    too small, ``analysis.estimands.stratified_headline_refusal``)/``tango``/``newcombe``, the same
    interval as ``estimands.conditional``'s lo/hi; else the named cluster method (e.g. the paper's scheme)."""
    m = matched_pair(tidy, h.a, h.b, h.cells)
    ya, yb = m[f"{h.endpoint}_a"].to_numpy(), m[f"{h.endpoint}_b"].to_numpy()
    ids = cluster_ids(m, h.cluster)
    s_a, s_b, n = cluster_sums(ids, ya, yb)
    pa, pb = wilson(int(ya.sum()), len(m)), wilson(int(yb.sum()), len(m))
    labels, per = paired_by_cluster(ids, ya, yb)
    per_task = per if h.cluster == "task" else paired_by_cluster(cluster_ids(m, "task"), ya, yb)[1]
    head = h.interval if h.interval in CONDITIONAL_METHODS else CONDITIONAL_HEADLINE
    cond = conditional_block(PairedCounts.from_outcomes(ya, yb), alpha, per_task, head)
    pop = population_block(s_a - s_b, n, labels, per, h.cluster, alpha)
    out: dict[str, Any] = {"id": h.id, "a": h.a, "b": h.b, "endpoint": h.endpoint, "cells": h.cells,
           "description": h.description, "n_matched": len(m), "rate_a": pa.as_dict(), "rate_b": pb.as_dict(),
           "estimands": {"conditional": cond, "population": pop}, "headline": "conditional"}
    if h.interval in CONDITIONAL_METHODS:
        lo, hi, used = cond["lo"], cond["hi"], cond["interval"]  # the conditional block's headline: one interval
        method = {"kind": "paired_score", "method": used, "n_strata": len(per_task), "interval": f"{used} {100 * (1 - alpha):.4g}%",
                  "level": 1 - alpha, "estimand": "conditional", "n_clusters": len(n), "cluster": h.cluster,
                  "status": "ok" if lo is not None else "no matched cells", "warnings": [],
                  "notes": [cond["headline_note"]] if cond["headline_note"] else [], "mcnemar_p": cond["mcnemar_p"]}
        out.update(estimate=cond["estimate"], lo=lo, hi=hi, method=method)
    else:
        r = cluster_interval(s_a, s_b, n, method=h.interval, B=B, seed=seed, alpha=alpha)
        out.update(estimate=r.estimate, lo=r.lo, hi=r.hi, method=r.describe(h.cluster), headline="cluster")
    lo, hi = out["lo"], out["hi"]
    out["excludes_zero"] = None if lo is None or hi is None else bool(lo > 0 or hi < 0)
    return out


# ---------------------------------------------------------------------------------------------
# per-arm table over the common (applicability-matched) cell set


def common_cells(tidy: pd.DataFrame, void_keys: pd.DataFrame, arms: list[str]) -> tuple[pd.DataFrame, list[dict]]:
    """Rows of ``tidy`` (arms only) whose match key every applicable arm has scored; plus coverage gaps."""
    strata = [Col.SCENARIO.value, *factor_cols(tidy)]  # the names (a stratum's dict is keyed by them)
    t = tidy[tidy[Col.ARM].isin(arms)]
    v = void_keys[void_keys[Col.ARM].isin(arms)] if len(void_keys) else void_keys
    present = pd.concat([t[[Col.ARM, *strata]], v.reindex(columns=[Col.ARM, *strata])], ignore_index=True)
    present = present.drop_duplicates()
    n_app = present.groupby(strata, sort=False).size().rename("n_applicable")
    per_key = t.groupby("match_key", sort=False).size().rename("n_scored")
    key_stratum = t.drop_duplicates("match_key").set_index("match_key")[strata]
    ks = key_stratum.join(per_key).reset_index().merge(n_app.reset_index(), on=strata, how="left")
    keep = set(ks.loc[ks["n_scored"] == ks["n_applicable"], "match_key"])
    gaps: list[dict[str, Any]] = []  # {"stratum": {column: value}, "arms_without_records": [arm]}
    all_arms = set(arms)
    for st, grp in present.groupby(strata, sort=False):
        missing = sorted(all_arms - set(grp[Col.ARM]), key=arm_sort_key)
        if missing:
            st = st if isinstance(st, tuple) else (st,)
            gaps.append({"stratum": dict(zip(strata, st)), "arms_without_records": missing})
    gaps.sort(key=lambda g: (scenario_sort_key(g["stratum"][Col.SCENARIO]), str(g["stratum"])))
    return t[t["match_key"].isin(keep)], gaps


def _mean(x: pd.Series) -> float | None:
    x = x.dropna()
    return float(x.mean()) if len(x) else None


def per_arm_table(tidy: pd.DataFrame, void: dict[str, int], void_keys: pd.DataFrame,
                  arms: list[str] | None = None) -> tuple[dict, list[dict], int]:
    """Per-arm rows over the common cell set. An arm whose every cell is void has no scored cell
    to match: it is listed (rates n/a, its void count, ``all_void``) but left out of the common
    set, which it would otherwise empty for every other arm."""
    arms = sorted(arms or set(tidy[Col.ARM].unique()) | set(void), key=arm_sort_key)
    scored_arms = [a for a in arms if (tidy[Col.ARM] == a).any()]
    common, gaps = common_cells(tidy, void_keys, scored_arms)
    out = {}
    for arm in arms:
        d = common[common[Col.ARM] == arm]
        own = tidy[tidy[Col.ARM] == arm]
        nul, inj = d[~d["injected"]], d[d["injected"]]
        amp = wilson(int(inj["amplified"].sum()), len(inj))
        row = {
            "cells_matched": len(d), "cells_scored": len(own),
            "unmatched_excluded": len(own) - len(d),
            "completion": wilson(int(nul["completion"].sum()), len(nul)).as_dict(),
            "amplified": amp.as_dict(),
            "amplified_per_1000": None if amp.rate is None else 1000 * amp.rate,
            "not_amplified": wilson(int(inj["not_amplified"].sum()), len(inj)).as_dict(),
        }
        for o in COUNT_OUTCOMES:
            row[o] = wilson(int((d[Col.OUTCOME] == o).sum()), len(d)).as_dict()
        row["void"] = int(void.get(arm, 0))
        row["mean_tokens_in"] = _mean(d[Col.TOKENS_IN])
        row["mean_tokens_out"] = _mean(d[Col.TOKENS_OUT])
        row["mean_tokens"] = _mean(d[Col.TOKENS_IN] + d[Col.TOKENS_OUT])
        row["tokens_known"] = int((d[Col.TOKENS_IN] + d[Col.TOKENS_OUT]).notna().sum())  # null tokens: usage unknown
        row["mean_wall_s"] = _mean(d[Col.WALL_S])
        row["mean_cost_usd"] = _mean(d[Col.COST_USD])
        row["cost_known"] = int(d[Col.COST_USD].notna().sum())
        row["scenarios"] = int(d[Col.SCENARIO].nunique())
        row["all_void"] = arm not in scored_arms
        out[arm] = row
    n_common = int(common["match_key"].nunique())
    return out, gaps, n_common


# ---------------------------------------------------------------------------------------------
# per-scenario Fisher + BH (Table 17's last column)


def per_scenario(tidy: pd.DataFrame, a: str, b: str, alpha: float = 0.05,
                 endpoint: str = "not_amplified") -> list[dict]:
    m = matched_pair(tidy, a, b, "injected")
    keyed = []  # (scenario, its row): sorted by the scenario's order
    for sc, g in m.groupby(Col.SCENARIO, sort=False):
        n = len(g)
        k_a, k_b = int(g[f"{endpoint}_a"].sum()), int(g[f"{endpoint}_b"].sum())
        keyed.append((sc, {"scenario": sc, "a": a, "b": b, "endpoint": endpoint, "k_a": k_a, "n_a": n,
                           "k_b": k_b, "n_b": n, "p": fisher_two_sided(k_a, n, k_b, n)}))
    keyed.sort(key=lambda t: scenario_sort_key(t[0]))
    rows = [r for _, r in keyed]
    ps = [r["p"] for r in rows if r["p"] is not None]
    qs = iter(bh_adjust(ps).tolist())
    for r in rows:
        if r["p"] is None:
            r["q"], r["rejected"] = None, False
        else:
            r["q"] = next(qs)
            r["rejected"] = bool(r["q"] <= alpha)
        for side in ("a", "b"):
            w = wilson(r[f"k_{side}"], r[f"n_{side}"])
            r[f"rate_{side}"], r[f"lo_{side}"], r[f"hi_{side}"] = w.rate, w.lo, w.hi
        r["method"] = "Fisher exact two-sided (scipy); BH-FDR q across scenarios; Wilson 95%"
    return rows


# ---------------------------------------------------------------------------------------------
# task concentration (Table 13)


def task_concentration(tidy: pd.DataFrame, h: Hypothesis) -> dict:
    amplified = Outcome.AMPLIFIED.value  # the endpoint (and the tidy table's column) of the outcome amplified
    endpoint = amplified if h.endpoint in ("not_amplified", amplified) else h.endpoint
    m = matched_pair(tidy, h.a, h.b, h.cells)
    ya, yb = f"{endpoint}_a", f"{endpoint}_b"

    def counts(g: pd.DataFrame) -> dict:
        return {"a": [int(g[ya].sum()), len(g)], "b": [int(g[yb].sum()), len(g)]}

    out: dict[str, Any] = {"a": h.a, "b": h.b, "endpoint": endpoint, "cells": h.cells, "hypothesis": h.id,
                           "method": "counts over matched cells; top task = largest |k_b - k_a|, ties by task name",
                           "all": counts(m)}
    if len(m) == 0:
        out.update({"top_task": None, "top": None, "excluding": None})
        return out
    per = m.groupby(Col.TASK, sort=True)[[ya, yb]].sum()
    diff = (per[yb] - per[ya]).abs()
    top = sorted(diff.index[diff == diff.max()])[0]
    out["top_task"] = str(top)
    out["top"] = counts(m[m[Col.TASK] == top])
    out["excluding"] = counts(m[m[Col.TASK] != top])
    return out
