"""Coverage study of the interval methods, and the peeking simulation of the confidence sequence.

``python -m benchmarks coverage`` runs the full grid: clusters (8, 24, 96) x task SD (0, 0.5, 1, 2)
x marginal base rate (0.5, 0.9, 0.99) x arm log-odds effect (0, 1, 2.5), 15 scenarios x 3
repeats per task, each interval scheme on the same simulated studies (``analysis.coverage``), and
writes results/bench/coverage.{json,md}. Every setting whose default-method coverage falls outside
[93%, 97%] is printed with a WARNING. The peeking table shows, for a monitored study looked at
after every matched unit, the confidence sequence's coverage of the mean over the units run so
far against the fixed-time Wald interval looked at the same way.

``make bench`` (``run(quick)``) runs one row: 24 tasks, task SD 1, the issue's setting, default
method against the paper's scheme, and one peeking row.
"""
from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

from analysis.coverage import TARGET, PeekSetting, RareTaskSetting, Setting, coverage, coverage_rare_task, peeking
from analysis.intervals import DEFAULT_METHOD
from analysis.tables import DEFAULT_CLUSTER

PAPER = ("percentile", "task x scenario")
DEFAULT = (DEFAULT_METHOD, DEFAULT_CLUSTER)
SCHEMES = [DEFAULT] + [s for s in [("studentized-symmetric", "task"), ("cluster-t", "task"), ("studentized", "task"),
                                    ("percentile", "task")] if s != DEFAULT] + [PAPER]
GRID = {"clusters": (8, 24, 96), "task_sd": (0.0, 0.5, 1.0, 2.0), "base": (0.5, 0.9, 0.99),
        "effect": (0.0, 1.0, 2.5)}
PEEK = [PeekSetting(24, 0.0, 0.7, 0.5), PeekSetting(24, 1.0, 0.7, 0.5), PeekSetting(24, 1.0, 0.98, 1.0),
        PeekSetting(24, 1.0, 0.9, 0.0)]


def _pct(r: dict) -> str:
    return f"{100 * r['coverage']:.1f}% [{100 * r['lo']:.1f}, {100 * r['hi']:.1f}]"


def study(sims: int, B: int, seed: int, grid: dict = GRID, peek_sims: int | None = None, log=print) -> dict:
    rows, warnings = [], []
    t0 = time.perf_counter()
    for C, sd, base, eff in itertools.product(grid["clusters"], grid["task_sd"], grid["base"], grid["effect"]):
        res = coverage(Setting(C, sd, base, eff), SCHEMES, n_sims=sims, B=B, seed=seed)
        rows.extend(res)
        d = res[0]
        line = (f"C={C:>3} sd={sd:<3} base={base:<4} effect={eff:<3} truth={100 * d['truth']:+.2f}pp  "
                + "  ".join(f"{r['method']}/{r['cluster']}: {_pct(r)}" for r in res))
        if not d["in_target"]:
            warnings.append(f"WARNING: {DEFAULT[0]} ({DEFAULT[1]} clusters) coverage {_pct(d)} is outside "
                            f"[{100 * TARGET[0]:.0f}%, {100 * TARGET[1]:.0f}%] at C={C}, task SD {sd}, base {base}, "
                            f"effect {eff}")
            line += "  <- WARNING: default outside target"
        log(f"{line}  ({time.perf_counter() - t0:.0f}s)")
    peeks = [peeking(p, peek_sims or sims, seed) for p in PEEK]
    return {"sims": sims, "B": B, "seed": seed, "grid": {k: list(v) for k, v in grid.items()},
            "schemes": [list(s) for s in SCHEMES], "target": list(TARGET), "rows": rows,
            "warnings": warnings, "peeking": peeks, "rare_task": rare_task(sims, B, seed)}


def rare_task(sims: int, B: int, seed: int) -> list[dict]:
    """The paper's H1 shape (RareTaskSetting): every task-cluster method of SCHEMES on the same studies."""
    return coverage_rare_task(RareTaskSetting(), [m for m, c in SCHEMES if c == "task"], sims, B, seed)


def render_rare(rows: list[dict]) -> str:
    r0 = rows[0]
    out = ["\n# A difference carried by rare tasks (the paper's H1 shape)\n",
           f"{r0['clusters']} tasks x {r0['cells']} cells; each task is 'bad' with probability {r0['p_bad']:.4g} "
           f"(per-cell rates a {r0['rate_a_bad']:.3f}, b {r0['rate_b_bad']:.3f}; elsewhere a {r0['rate_a_ok']:.3f}, "
           f"b {r0['rate_b_ok']:.5f}); truth = the marginal difference {100 * r0['truth']:+.2f} pp; "
           f"{r0['no_bad_task']} of {r0['n']} studies drew no bad task (no interval over tasks can cover there). "
           f"{r0['n']} studies, B = {r0['B']}, seed {r0['seed']}; Wilson 95% over studies.\n",
           "| method / cluster | coverage | median width pp |", "|---|---|---|"]
    out += [f"| {r['method']} / {r['cluster']} | {_pct(r)} | {100 * r['median_width']:.1f} |" for r in rows]
    return "\n".join(out) + "\n"


def render(res: dict) -> str:
    out = [f"# Coverage of nominal 95% intervals ({res['sims']} simulated studies per setting, B = {res['B']}, "
           f"seed {res['seed']}; Wilson 95% interval over the studies)\n",
           "Tasks are the clusters, 15 scenarios x 3 repeats each; a task random effect (logit scale, SD "
           "below) shared by both arms; base = arm b's marginal rate; effect = arm a's log-odds shift; "
           "truth = the marginal difference.\n"]
    head = ["C", "task SD", "base", "effect", "truth pp"] + [f"{m} / {c}" for m, c in SCHEMES]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    by = {}
    for r in res["rows"]:
        by.setdefault((r["clusters"], r["task_sd"], r["base"], r["effect"]), {})[(r["method"], r["cluster"])] = r
    for key, rs in by.items():
        first = rs[tuple(SCHEMES[0])] if tuple(SCHEMES[0]) in rs else next(iter(rs.values()))
        cells = []
        for s in SCHEMES:
            r = rs[tuple(s)]
            mark = "" if r["in_target"] else " (!)"
            cells.append(_pct(r) + mark)
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {100 * first['truth']:+.2f} | " + " | ".join(cells) + " |")
    out.append("\n(!) = outside [93%, 97%].\n")
    out.extend(f"- {w}" for w in res["warnings"])
    out.append("\n# Peeking: coverage of the mean over the units run so far, looked at after every unit\n")
    out.append("| tasks | task SD | base | effect | units | sequence, every look | fixed-time Wald, every look "
               "from unit 10 | fixed-time Wald, last unit only |")
    out.append("|---|---|---|---|---|---|---|---|")
    for p in res["peeking"]:
        out.append(f"| {p['tasks']} | {p['task_sd']} | {p['base']} | {p['effect']} | {p['units']} | "
                   f"{_pct(p['sequence_all_looks'])} | {_pct(p['fixed_time_peeked'])} | {_pct(p['fixed_time_final'])} |")
    text = "\n".join(out) + "\n"
    return text + render_rare(res["rare_task"]) if res.get("rare_task") else text


def main(out_dir: Path, sims: int, B: int, seed: int, peek_sims: int | None, rare_only: bool = False) -> int:
    if rare_only:
        rows = rare_task(sims, B, seed)
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "coverage-rare.json").write_text(json.dumps(rows, indent=1) + "\n")
        (out_dir / "coverage-rare.md").write_text(render_rare(rows))
        print(render_rare(rows))
        return 0
    res = study(sims, B, seed, peek_sims=peek_sims)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "coverage.json").write_text(json.dumps(res, indent=1) + "\n")
    text = render(res)
    (out_dir / "coverage.md").write_text(text)
    print(text)
    print(f"wrote {out_dir / 'coverage.json'} and {out_dir / 'coverage.md'}")
    return 0


def run(quick: bool) -> list[dict]:
    """The ``make bench`` row: default scheme vs the paper's at 24 tasks, task SD 1 (issue 13's case)."""
    sims = 200 if quick else 1000
    B = 299 if quick else 999
    s = Setting(24, 1.0, 0.9, 1.0)
    rows = []
    t0 = time.perf_counter()
    paper = coverage(s, [PAPER], n_sims=sims, B=B, seed=1)[0]
    t_paper = time.perf_counter() - t0
    t0 = time.perf_counter()
    new = coverage(s, [DEFAULT], n_sims=sims, B=B, seed=1)[0]
    t_new = time.perf_counter() - t0
    warn = "" if new["in_target"] else " WARNING: default outside [93%, 97%]"
    rows.append({"name": "coverage_24tasks_sd1", "baseline": f"paper scheme: {PAPER[0]} / {PAPER[1]}",
                 "baseline_s": t_paper, "subject": f"default: {DEFAULT[0]} / {DEFAULT[1]}", "subject_s": t_new,
                 "ratio": new["coverage"] / paper["coverage"], "unit": "x the paper scheme's coverage",
                 "notes": f"nominal 95%: default {_pct(new)}, paper scheme {_pct(paper)} over {sims} studies "
                          f"(base 0.9, effect 1.0 log-odds, B={B}){warn}"})
    t0 = time.perf_counter()
    p = peeking(PEEK[1], sims, seed=1)
    t_p = time.perf_counter() - t0
    rows.append({"name": "peeking_24tasks_sd1", "baseline": "fixed-time Wald interval, every look",
                 "baseline_s": t_p, "subject": "confidence sequence, every look", "subject_s": t_p,
                 "ratio": p["sequence_all_looks"]["coverage"] / p["fixed_time_peeked"]["coverage"],
                 "unit": "x the fixed-time interval's coverage when peeked",
                 "notes": f"{p['units']} units looked at after each: sequence {_pct(p['sequence_all_looks'])}, "
                          f"fixed-time {_pct(p['fixed_time_peeked'])} (last unit only {_pct(p['fixed_time_final'])}); "
                          "one simulation times both"})
    return rows
