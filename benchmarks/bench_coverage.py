"""Coverage study of the interval methods, and the peeking simulation of the confidence sequence.

``python -m benchmarks coverage`` runs the estimand study (issue 24, ``estimand_study``): the paper's
shape (24 tasks x 15 scenarios x 5 repeats, paired arms, rare events: arm b at 0.983), task SD
0, 0.5, 1, 2, no effect and the paper's effect, and one task holding about 90% of the events; every
method's coverage of both estimands (conditional and population), its share of n/a, and its width
(median, p95, share wider than 50 pp), 500 studies per setting by default (a few minutes on 2
cores; ``--sims`` for more or fewer); it writes results/bench/coverage-estimands.{json,md} (with a
table of the population estimand alone: coverage when printed, refusal rate, median width) and the
peeking table.

``python -m benchmarks coverage --calibrate`` runs the population methods alone on ``CALIBRATION``, the
grid (other task counts, SDs, base rates, effects, rare-task shares and seed) on which the population
rule of ``analysis.estimands`` was chosen, separate from the reported settings; it writes
results/bench/coverage-calibration.{json,md}.

``python -m benchmarks coverage --grid`` runs the earlier full grid: clusters (8, 24, 96) x task SD (0, 0.5, 1, 2)
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

from analysis.coverage import (
    ABSURD_PP,
    PAIR_METHODS,
    TARGET,
    PairSetting,
    PeekSetting,
    RareTaskSetting,
    Setting,
    coverage,
    coverage_rare_task,
    estimand_coverage,
    peeking,
)
from analysis.intervals import CLUSTER_DEFAULT
from analysis.tables import DEFAULT_CLUSTER

PAPER = ("percentile", "task x scenario")
DEFAULT = (CLUSTER_DEFAULT, DEFAULT_CLUSTER)  # the earlier default, the grid study's reference
PAPER_EFFECT = 2.85  # log-odds: A4 0.999 against A2p 0.983 (the paper's not-amplified rates)
PAIR_SETTINGS = [PairSetting(f"task SD {sd}, {'no effect' if eff == 0 else 'paper effect'}", sd, 0.983, eff)
                 for sd in (0.0, 0.5, 1.0, 2.0) for eff in (0.0, PAPER_EFFECT)] + \
    [PairSetting("one task holds ~90% of events", p_bad=1 / 24)]
METHOD_LABEL = {("tango", "cell"): "Tango, pooled (conditional)",
                ("stratified", "task"): "stratified paired score, strata = tasks (conditional)",
                ("stratified", "task x scenario"): "stratified paired score, strata = task x scenario (conditional)",
                ("newcombe", "cell"): "Newcombe hybrid (conditional)",
                ("population", "task"): "population: Hall-transformed CR2, t on min(BM df, 2 G*), with its n/a rules",
                ("cr2-bm", "task"): "CR2 + BM df, earlier n/a rules (before the G* df and informative-task rule)",
                ("cr2-bm-het", "task"): "rejected candidate: CR2 + BM df, earlier rules, n/a when CR2 variance > 2x within-task",
                ("studentized-symmetric", "task"): "studentized-symmetric / task (earlier default)",
                ("percentile", "task"): "percentile / task",
                ("percentile", "task x scenario"): "percentile / task x scenario (the paper's)"}
SCHEMES = [DEFAULT] + [s for s in [("studentized-symmetric", "task"), ("cluster-t", "task"), ("studentized", "task"),
                                    ("percentile", "task")] if s != DEFAULT] + [PAPER]
# The calibration grid on which the population rule (analysis.estimands.pop_refusal, population_df) was
# chosen: separate from PAIR_SETTINGS (other task counts, task SDs, base rates, effects, rare-task shares
# and seed), so the reported table is not the one it was tuned on.
CALIBRATION_SEED = 7
CALIBRATION = [PairSetting(f"{C} tasks, task SD {sd}, base {base}, effect {eff}", sd, base, eff, tasks=C)
               for C in (16, 40) for sd in (0.25, 0.75, 1.5) for base in (0.95, 0.983) for eff in (1.5, PAPER_EFFECT)] + \
    [PairSetting(f"{C} tasks, one bad task in {k} expected", p_bad=1 / k, tasks=C) for C in (16, 40) for k in (16, 40)]
POPULATION_METHODS = [("population", "task"), ("cr2-bm", "task")]
CALIBRATION_METHODS = POPULATION_METHODS + [("cr2-bm-het", "task")]  # with the rejected candidate
# The conditional methods compared on the calibration grid (issue 24's stratified interval): the pooled
# Tango interval and the stratified score interval with strata = tasks (strata = task x scenario, 5 pairs
# each, can be run by name with --methods stratified/"task x scenario": ten times slower, and it under-covers).
CONDITIONAL_METHODS = [("tango", "cell"), ("stratified", "task")]
CONDITIONAL_NAMES = ("tango", "stratified", "newcombe")  # the methods of the conditional table
# The rule, fixed before the reported table was re-run: the stratified interval (strata = tasks) is the
# conditional headline if it covers in [93%, 97%] (point estimate) in every CALIBRATION setting at 2,000
# studies; otherwise the pooled Tango interval stays the headline.
# Outcome (results/samples/coverage-calibration.md): in the band in 27 of 28 settings, 97.7% [96.9, 98.3]
# at 16 tasks with one bad task in 40 expected, so Tango stayed the headline; on PAIR_SETTINGS the
# stratified interval covered 94.2-96.2%, Tango 94.4-98.0%. Superseded by PREREGISTERED_HEADLINE_RULE below.
# The confirmatory rule of 2026-12-03, committed before any run at its seeds (PREREGISTERED_SEEDS).
# Why a new rule: the rule above judged one candidate against an absolute band on the calibration grid; the
# stratified interval over-covered in one of 28 settings (97.7%) where pooled Tango over-covered more
# (99.0%), and Tango was outside the band in 5 settings (4 calibration, 1 reported) where the stratified one
# was outside in 1. The decision is a choice between the two, so the new rule compares them. It was formed
# after seeing those data, so it is tested on seeds neither interval has been run on; the earlier outcome
# stays reported beside it. Applied mechanically by ``headline_decision``.
# Outcome (results/samples/coverage-preregistered-2026-12-03.md): every clause held, so the stratified
# interval is the headline (analysis.estimands.CONDITIONAL_HEADLINE, analysis.intervals.DEFAULT_METHOD):
# reported settings 94.4-96.0% (Tango 94.8-98.4%); calibration in the band in 27 of 28, and 98.0% against
# Tango's 99.2% in the 28th (16 tasks, one bad task in 40 expected); no absurd interval.
PREREGISTERED_SEEDS = {"reported": 20261203, "calibration": 20261204}
PREREGISTERED_SIMS = 2000
PREREGISTERED_HEADLINE_RULE = (
    "The stratified paired score interval (strata = tasks) becomes the conditional headline if, at "
    "2,000 studies per setting on the fresh seeds, (a) its coverage (point estimate) is in [93%, 97%] in "
    "every reported setting (PAIR_SETTINGS), (b) in every calibration setting (CALIBRATION) it is in "
    "[93%, 97%] or strictly nearer that band than the pooled Tango interval's coverage, and (c) no setting "
    "has an absurd interval (wider than 50 pp or outside [-1, 1]). Otherwise pooled Tango stays the headline.")


def _band_distance(coverage: float) -> float:
    """How far a coverage lies outside TARGET (0 inside it)."""
    return max(TARGET[0] - coverage, coverage - TARGET[1], 0.0)


def headline_decision(reported: list[dict], calibration: list[dict]) -> tuple[str, list[str]]:
    """``PREREGISTERED_HEADLINE_RULE`` applied to estimand_coverage rows of ("tango", "cell") and
    ("stratified", "task"): the headline method's name and one line per setting saying why."""
    def by_setting(rows):
        out: dict[str, dict] = {}
        for r in rows:
            out.setdefault(r["name"], {})[r["method"]] = r["conditional"]
        return out
    lines, ok = [], True
    for name, m in by_setting(reported).items():
        st = m["stratified"]
        good = _band_distance(st["coverage"]) == 0 and st["absurd_share"] == 0
        ok &= good
        lines.append(f"reported | {name}: stratified {100 * st['coverage']:.1f}% "
                     f"({st['hits']}/{st['given']}), absurd {100 * st['absurd_share']:.0f}%: {'ok' if good else 'FAILS (a)/(c)'}")
    for name, m in by_setting(calibration).items():
        st, tg = m["stratified"], m["tango"]
        d_st, d_tg = _band_distance(st["coverage"]), _band_distance(tg["coverage"])
        good = (d_st == 0 or d_st < d_tg) and st["absurd_share"] == 0
        ok &= good
        lines.append(f"calibration | {name}: stratified {100 * st['coverage']:.1f}% ({st['hits']}/{st['given']}), "
                     f"Tango {100 * tg['coverage']:.1f}%: {'ok' if good else 'FAILS (b)/(c)'}")
    return ("stratified" if ok else "tango"), lines


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


def render_peeking(peeks: list[dict]) -> str:
    out = ["\n# Peeking: coverage of the mean over the units run so far, looked at after every unit\n",
           "| tasks | task SD | base | effect | units | sequence, every look | fixed-time Wald, every look "
           "from unit 10 | fixed-time Wald, last unit only |", "|---|---|---|---|---|---|---|---|"]
    for p in peeks:
        out.append(f"| {p['tasks']} | {p['task_sd']} | {p['base']} | {p['effect']} | {p['units']} | "
                   f"{_pct(p['sequence_all_looks'])} | {_pct(p['fixed_time_peeked'])} | {_pct(p['fixed_time_final'])} |")
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
    by: dict[tuple, dict] = {}
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
    out.append(render_peeking(res["peeking"]))
    text = "\n".join(out) + "\n"
    return text + render_rare(res["rare_task"]) if res.get("rare_task") else text


def estimand_study(sims: int, B: int, seed: int, log=print, methods=None, setting: str | None = None) -> list[dict]:
    """``estimand_coverage`` on PAIR_SETTINGS (those whose name contains ``setting``), every method of
    PAIR_METHODS or the ``methods`` given (the same simulated studies whichever methods run: the
    simulation's generator is seeded by the setting alone)."""
    rows = []
    t0 = time.perf_counter()
    for ps in [p for p in PAIR_SETTINGS if setting is None or setting in p.name]:
        rows.extend(estimand_coverage(ps, sims, B, seed, methods=methods or PAIR_METHODS))
        log(f"{ps.name}: done ({time.perf_counter() - t0:.0f}s)")
    return rows


def _cov(e: dict) -> str:
    if e["coverage"] is None:
        return "n/a (no intervals)"
    return f"{100 * e['coverage']:.1f}% ({e['hits']}/{e['given']}) [{100 * e['lo']:.1f}, {100 * e['hi']:.1f}]"


def render_estimands(rows: list[dict]) -> str:
    r0 = rows[0]
    se = 100 * (0.95 * 0.05 / r0["n_sims"]) ** 0.5
    out = [f"# Coverage and width by estimand (nominal 95%; {r0['n_sims']} simulated studies per setting, "
           f"B = {r0['B']}, seed {r0['seed']}; Monte Carlo s.e. of a coverage near 95%: {se:.1f} pp)\n",
           f"{r0['tasks']} tasks x {r0['scenarios']} scenarios x {r0['repeats']} repeats, both arms on every cell; "
           "arm b's marginal rate 0.983 (rare events), arm a shifted by 0 or the paper's effect (2.85 log-odds: "
           "0.999 vs 0.983); a task random effect (logit SD) shared by both arms; the last setting draws each task "
           "'bad' with probability 1/24 (the paper's du-duration rates), so one task holds ~90% of the events. "
           "Conditional = coverage of each study's own cells' mean difference; population = coverage of the "
           "marginal difference over tasks. Coverage is over the studies where the method gives an interval "
           "(k/given) [Wilson 95% over those studies]; n/a = share of studies with no interval (the method refuses, with its reason); widths in "
           f"pp over given intervals; absurd = share of all studies with an interval wider than {ABSURD_PP:g} pp.\n",
           "| setting | method | conditional coverage | population coverage | n/a | median width | p95 width | absurd |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        c, p = r["conditional"], r["population"]
        p95 = "n/a" if c["p95_width_pp"] is None else f"{c['p95_width_pp']:.2f}"
        med = "n/a" if c["median_width_pp"] is None else f"{c['median_width_pp']:.2f}"
        out.append(f"| {r['name']} | {METHOD_LABEL[(r['method'], r['cluster'])]} | {_cov(c)} | {_cov(p)} | "
                   f"{100 * c['na_share']:.0f}% | {med} | {p95} | {100 * c['absurd_share']:.0f}% |")
    return "\n".join(out) + "\n"


def calibrate(sims: int, log=print, methods=None, seed: int = CALIBRATION_SEED) -> list[dict]:
    """The population and conditional methods (no bootstrap) on the CALIBRATION grid, seed CALIBRATION_SEED
    unless another is given (the confirmatory run of ``PREREGISTERED_HEADLINE_RULE`` uses a fresh one)."""
    rows = []
    t0 = time.perf_counter()
    for ps in CALIBRATION:
        rows.extend(estimand_coverage(ps, sims, 0, seed,
                                      methods=methods or CALIBRATION_METHODS + CONDITIONAL_METHODS))
        log(f"{ps.name}: done ({time.perf_counter() - t0:.0f}s)")
    return rows


def render_conditional(rows: list[dict], title: str) -> str:
    """The conditional estimand by setting, one column per conditional method: coverage (k/n) [Wilson
    95%] / median width pp; (!) marks a coverage outside [93%, 97%]. The conditional table of docs/explanation/estimands.md."""
    cond = [r for r in rows if r["method"] in CONDITIONAL_NAMES]
    if not cond:
        return ""
    keys = list(dict.fromkeys((r["method"], r["cluster"]) for r in cond))
    r0 = cond[0]
    out = [f"# {title} ({r0['n_sims']} simulated studies per setting, seed {r0['seed']})\n",
           "| setting | " + " | ".join(f"{METHOD_LABEL[k]}: coverage [Wilson 95%] / median width" for k in keys) + " |",
           "|---|" + "---|" * len(keys)]
    by: dict[str, dict] = {}
    for r in cond:
        by.setdefault(r["name"], {})[(r["method"], r["cluster"])] = r["conditional"]
    for name, cs in by.items():
        cells = []
        for k in keys:
            c = cs.get(k)
            mark = "" if c is None or TARGET[0] <= c["coverage"] <= TARGET[1] else " (!)"
            cells.append("" if c is None else f"{_cov(c)}{mark} / {c['median_width_pp']:.2f} pp")
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n\n(!) = outside [93%, 97%].\n"


def render_population(rows: list[dict], title: str) -> str:
    """Coverage of the population estimand when an interval is printed, the refusal rate, the median width."""
    r0 = rows[0]
    out = [f"# {title} ({r0['n_sims']} simulated studies per setting, seed {r0['seed']})\n",
           "| setting | method | population coverage when printed (k/printed) [Wilson 95%] | n/a | median width pp |",
           "|---|---|---|---|---|"]
    for r in rows:
        p = r["population"]
        w = "n/a" if p["given"] == 0 else f"{p['median_width_pp']:.2f}"
        out.append(f"| {r['name']} | {METHOD_LABEL[(r['method'], r['cluster'])]} | {_cov(p)} | "
                   f"{100 * p['na_share']:.0f}% | {w} |")
    return "\n".join(out) + "\n"


def main(out_dir: Path, sims: int, B: int, seed: int, peek_sims: int | None, rare_only: bool = False,
         grid: bool = False, calibration: bool = False, methods=None, setting: str | None = None,
         calibration_seed: int | None = None) -> int:
    if calibration:
        rows = calibrate(sims, methods=methods, seed=CALIBRATION_SEED if calibration_seed is None else calibration_seed)
        out_dir.mkdir(parents=True, exist_ok=True)
        pop = [r for r in rows if (r["method"], r["cluster"]) in CALIBRATION_METHODS]
        text = (render_population(pop, "Calibration of the population rule (settings separate from the reported ones)")
                if pop else "") + "\n" + render_conditional(rows, "Calibration of the conditional interval (the same settings)")
        (out_dir / "coverage-calibration.json").write_text(json.dumps(rows, indent=1, default=float) + "\n")
        (out_dir / "coverage-calibration.md").write_text(text)
        print(text)
        return 0
    if not grid and not rare_only:
        rows = estimand_study(sims, B, seed, methods=methods, setting=setting)
        full = methods is None and setting is None  # the peeking table belongs to the full study only
        peeks = [peeking(p, peek_sims or sims, seed) for p in PEEK] if full else []
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "coverage-estimands.json").write_text(json.dumps({"rows": rows, "peeking": peeks}, indent=1, default=float) + "\n")
        pop = [r for r in rows if (r["method"], r["cluster"]) in POPULATION_METHODS]
        text = (render_estimands(rows) + "\n" + render_conditional(rows, "The conditional estimand")
                + ("\n" + render_population(pop, "The population estimand") if pop else "")
                + (render_peeking(peeks) if peeks else ""))
        (out_dir / "coverage-estimands.md").write_text(text)
        print(text)
        print(f"wrote {out_dir / 'coverage-estimands.json'} and {out_dir / 'coverage-estimands.md'}")
        return 0
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
                 "baseline_s": t_paper, "subject": f"cluster default: {DEFAULT[0]} / {DEFAULT[1]}", "subject_s": t_new,
                 "ratio": new["coverage"] / paper["coverage"], "unit": "x the paper scheme's coverage",
                 "notes": f"nominal 95%: default {_pct(new)}, paper scheme {_pct(paper)} over {sims} studies "
                          f"(base 0.9, effect 1.0 log-odds, B={B}){warn}"})
    t0 = time.perf_counter()
    ps = PairSetting("task SD 1, paper effect", 1.0, 0.983, PAPER_EFFECT)
    est = estimand_coverage(ps, 100 if quick else 500, B, seed=1,
                            methods=[("percentile", "task x scenario"), ("tango", "cell")])
    t_est = time.perf_counter() - t0
    paper_c, tango_c = est[0]["population"], est[1]["conditional"]
    rows.append({"name": "estimand_coverage_24tasks_sd1", "baseline": "paper scheme, population estimand",
                 "baseline_s": t_est, "subject": "Tango, conditional estimand", "subject_s": t_est,
                 "ratio": tango_c["coverage"] / paper_c["coverage"], "unit": "x the paper scheme's coverage",
                 "notes": f"nominal 95%, rare events at the paper's effect: Tango covers its estimand "
                          f"{_cov(tango_c)} (median width {tango_c['median_width_pp']:.2f} pp), the paper's scheme "
                          f"covers the population difference {_cov(paper_c)}; one simulation times both"})
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
