"""Analysis stage: whole ``analyze`` (3 cluster bootstraps, FDR, figures) vs a per-resample pandas bootstrap.

Rows (full run; ``quick`` shrinks every size so the module finishes in seconds):
  * bootstrap_H1_9240: the H1 bootstrap alone, B=2000, vectorised (multinomial counts x cluster sums)
    vs the straightforward pandas version (draw clusters, concat their rows, take means) per resample.
  * analyze_9240: the whole analysis of the synthetic 9,240-cell paper file (load, validate, tables,
    H1/H2/H3 bootstraps B=2000, Fisher+BH, tidy CSV/Parquet, report, 6 figures); the baseline is the
    same pipeline with the pandas bootstrap substituted for the three contrasts.
  * analyze_1M: the same on a ~1,000,000-cell synthetic file. The pandas baseline is too slow to run
    at B=2000 here, so its bootstrap is timed at a smaller B and scaled linearly in B (stated in notes).
"""
from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import numpy as np


def _synthetic(path: Path, k: int, seed: int = 0) -> int:
    """5 arms x 24 tasks x 16 scenarios x k repeats; rare amplification, A4 lowest."""
    rng = np.random.default_rng(seed)
    arms = {"A1": 0.009, "A2": 0.010, "A2p": 0.017, "A3": 0.008, "A4": 0.001}
    tasks = [f"task{i:02d}" for i in range(24)]
    scen = ["null"] + [f"B{i}" for i in range(1, 16)]
    n = 0
    with path.open("w") as fh:
        for arm, p_amp in arms.items():
            for t in tasks:
                for sc in scen:
                    u = rng.random(k)
                    tok = rng.integers(100_000, 300_000, k)
                    wall = np.round(rng.uniform(20, 120, k), 1)
                    for r in range(k):
                        if sc == "null":
                            o, flags = ("completed", "true, true, true") if u[r] > 0.02 else ("false_stop", "false, true, false")
                        else:
                            o, flags = ("amplified", "true, false, true") if u[r] < p_amp else ("recovered", "true, true, true")
                        vis, hid, ship = flags.split(", ")
                        fh.write(f'{{"arm": "{arm}", "task": "{t}", "scenario": "{sc}", "repeat": {r + 1}, '
                                 f'"outcome": "{o}", "visible_pass": {vis}, "hidden_pass": {hid}, "shipped": {ship}, '
                                 f'"tokens_in": {int(tok[r])}, "tokens_out": {int(tok[r]) // 10}, "wall_s": {wall[r]}, '
                                 f'"cost_usd": null, "engine": "bench"}}\n')
                        n += 1
    return n


def _naive_contrast_factory(B_naive: int, B_target: int, spent: list):
    """A drop-in for analysis.tables.contrast using the per-resample pandas bootstrap."""
    from analysis.stats import naive_pandas_bootstrap
    from analysis.tables import cluster_ids, matched_pair

    def naive_contrast(tidy, h, B, seed, alpha=0.05):
        m = matched_pair(tidy, h.a, h.b, h.cells)
        m["cl"] = cluster_ids(m, h.cluster)
        t0 = time.perf_counter()
        est, lo, hi = naive_pandas_bootstrap(m, "cl", f"{h.endpoint}_a", f"{h.endpoint}_b", B=B_naive, seed=seed)
        dt = time.perf_counter() - t0
        spent.append(dt * (B_target / B_naive - 1))  # extra time the full-B run would have taken
        return {"id": h.id, "a": h.a, "b": h.b, "endpoint": h.endpoint, "cells": h.cells, "description": "",
                "n_matched": len(m), "rate_a": None, "rate_b": None, "estimate": est, "lo": lo, "hi": hi,
                "excludes_zero": None, "method": {"kind": "naive", "B": B_naive, "seed": seed,
                                                  "cluster": h.cluster, "n_clusters": int(m["cl"].nunique())}}

    return naive_contrast


def _time_analyze(records: Path, out: Path, B: int) -> float:
    from analysis.pipeline import analyze

    t0 = time.perf_counter()
    analyze(records, out, B=B, seed=1)
    return time.perf_counter() - t0


def _time_naive_analyze(records: Path, out: Path, B_naive: int, B_target: int) -> float:
    import analysis.pipeline as pl

    spent: list[float] = []
    orig = pl.contrast
    pl.contrast = _naive_contrast_factory(B_naive, B_target, spent)
    try:
        import analysis.report as rp
        from analysis.report import render_report  # noqa: F401  (report needs full contrast dicts)

        orig_render = rp.render_report
        rp.render_report = lambda s: json.dumps(s["contrasts"], default=str)
        t0 = time.perf_counter()
        pl.analyze(records, out, B=B_target, seed=1)
        dt = time.perf_counter() - t0
    finally:
        pl.contrast = orig
        rp.render_report = orig_render
    return dt + sum(spent)


def run(quick: bool) -> list[dict]:
    from analysis.paper import synthetic_paper_records
    from analysis.records import load_records
    from analysis.stats import cluster_sums, naive_pandas_bootstrap, paired_cluster_bootstrap
    from analysis.tables import cluster_ids, matched_pair

    rows = []
    B = 200 if quick else 2000
    with tempfile.TemporaryDirectory() as td:
        td = Path(td)
        paper = td / "paper.jsonl"
        synthetic_paper_records(paper)

        # 1. bootstrap alone, H1 on the 9,240-cell file
        tidy = load_records(paper).tidy
        m = matched_pair(tidy, "A4", "A2p", "injected")
        m["cl"] = cluster_ids(m, "task x scenario")
        t0 = time.perf_counter()
        s_a, s_b, n = cluster_sums(m["cl"], m["not_amplified_a"], m["not_amplified_b"])
        fast = paired_cluster_bootstrap(s_a, s_b, n, B=B, seed=1)
        t_fast = time.perf_counter() - t0
        t0 = time.perf_counter()
        naive = naive_pandas_bootstrap(m, "cl", "not_amplified_a", "not_amplified_b", B=B, seed=1)
        t_naive = time.perf_counter() - t0
        rows.append({"name": "bootstrap_H1_9240", "baseline": f"pandas per-resample concat, B={B}",
                     "baseline_s": t_naive, "subject": f"vectorised resample counts x cluster sums, B={B}",
                     "subject_s": t_fast, "ratio": t_naive / t_fast, "unit": "x faster",
                     "notes": f"{len(m)} matched cells, 360 task x scenario clusters; CI fast "
                              f"[{fast.lo:.4f}, {fast.hi:.4f}] vs pandas [{naive[1]:.4f}, {naive[2]:.4f}] "
                              "(different RNG streams)"})

        # 2. whole analysis, 9,240 cells
        t_sub = _time_analyze(paper, td / "o1", B)
        t_base = _time_naive_analyze(paper, td / "o2", B, B)
        rows.append({"name": "analyze_9240", "baseline": f"same pipeline, pandas bootstrap x3 (B={B})",
                     "baseline_s": t_base, "subject": f"harness analyze (3 bootstraps B={B}, FDR, figures)",
                     "subject_s": t_sub, "ratio": t_base / t_sub, "unit": "x faster",
                     "notes": "synthetic paper-count file, 9,317 lines incl. 77 restart duplicates"})

        # 3. whole analysis, ~1M cells
        k = 3 if quick else 521  # 1920 cells per repeat -> 1,000,320 cells
        big = td / "big.jsonl"
        n_cells = _synthetic(big, k)
        t_sub = _time_analyze(big, td / "o3", B)
        B_naive = 5 if quick else 40
        t_base = _time_naive_analyze(big, td / "o4", B_naive, B)
        rows.append({"name": f"analyze_{n_cells}", "baseline": f"same pipeline, pandas bootstrap x3 (B={B})",
                     "baseline_s": t_base, "subject": f"harness analyze (3 bootstraps B={B}, FDR, figures)",
                     "subject_s": t_sub, "ratio": t_base / t_sub, "unit": "x faster",
                     "notes": f"{n_cells} cells; pandas bootstrap timed at B={B_naive} and scaled linearly "
                              f"to B={B} (the rest of the pipeline timed in full)"})
    return rows
