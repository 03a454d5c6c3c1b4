"""Simulation power for the primary contrast, and the pre-registered sizing (refusal) rule.

For each number of repeats k, ``sims`` data sets are simulated from the assumed per-arm rates:
tasks x scenarios clusters of k matched cells each (scenarios = 1 for the completion endpoint,
which lives on null cells), with an optional task random effect u ~ N(0, task_sd^2) on the logit
scale shared by both arms. The stated rates are *marginal* rates (over tasks, what a study
reports); with a task effect they are converted internally to the average-task logits l_a, l_b
with E_u[expit(l + u)] = rate (``analysis.marginal``), and both are printed. Each data set is
analysed exactly as ``analyze`` does (paired cluster bootstrap, the same cluster unit and interval
method, B resamples) and the power is the share of data sets whose 95% interval excludes zero.
Monte Carlo standard errors are reported beside every power value.

Sizing rule (paper section 9): when a planning band is pre-registered for the base (b-arm) rate and
the pilot's estimate falls outside it, the study is not sized: ``PowerRefused`` is raised and the
command exits non-zero.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from analysis.estimands import STRAT_MAX_TASKS_PER_CELL, stratified_headline_refusal
from analysis.intervals import DEFAULT_METHOD, MIN_CLUSTERS, cluster_interval
from analysis.marginal import marginal_intercept
from harness.core.interval_methods import CONDITIONAL_METHODS
from harness.core.wilson import wilson


class PowerRefused(Exception):
    def __init__(self, message: str, result: dict):
        super().__init__(message)
        self.result = result


def conditional_logit(p: float, task_sd: float) -> float:
    """The average-task logit whose marginal rate over tasks is p (+-inf for p = 1 or 0)."""
    if p <= 0:
        return -math.inf
    if p >= 1:
        return math.inf
    return marginal_intercept(p, task_sd)


def pilot_rates(pilot: str, a: str, b: str, endpoint: str) -> dict:
    from analysis.records import load_records
    from analysis.tables import matched_pair

    loaded = load_records(pilot)
    cells = "null" if endpoint == "completion" else "injected"
    m = matched_pair(loaded.tidy, a, b, cells)
    if len(m) == 0:
        raise ValueError(f"{pilot}: no matched {cells} cells for {a} and {b}; cannot estimate rates")
    pa = wilson(int(m[f"{endpoint}_a"].sum()), len(m))
    pb = wilson(int(m[f"{endpoint}_b"].sum()), len(m))
    return {"a": pa, "b": pb, "n_matched": len(m), "cells": cells}


def simulate_power(p_a: float, p_b: float, tasks: int, scenarios: int, k: int, task_sd: float,
                   sims: int, B: int, seed: int, cluster: str,
                   interval: str = DEFAULT_METHOD) -> tuple[float, float]:
    """Power for marginal rates p_a, p_b (see module docstring). The stratified interval is simulated only
    where ``analyze`` would head with it (``analysis.estimands.stratified_headline_refusal``); with fewer
    cells per task, the pooled Tango interval it heads with instead (the same simulated studies)."""
    if interval == "stratified" and stratified_headline_refusal(tasks, tasks * scenarios * k):
        interval = "tango"
    rng = np.random.Generator(np.random.PCG64([seed, k]))
    hits = 0
    strata: list[np.ndarray] = []  # "stratified": each study's per-task paired counts, one batch at the end
    la, lb = conditional_logit(p_a, task_sd), conditional_logit(p_b, task_sd)
    for s in range(sims):
        u = rng.normal(0.0, task_sd, size=tasks) if task_sd > 0 else np.zeros(tasks)
        pa_c = np.repeat(1 / (1 + np.exp(-(la + u))), scenarios)
        pb_c = np.repeat(1 / (1 + np.exp(-(lb + u))), scenarios)
        if interval == "stratified":
            strata.append(_paired_counts(pa_c, pb_c, k, rng).reshape(tasks, -1, 4).sum(axis=1))
            continue
        if interval in CONDITIONAL_METHODS:
            hits += _conditional_excludes_zero(pa_c, pb_c, k, interval, rng)
            continue
        if cluster == "cell":
            sa = rng.binomial(1, np.repeat(pa_c, k))
            sb = rng.binomial(1, np.repeat(pb_c, k))
            m = np.ones_like(sa)
        else:
            sa = rng.binomial(k, pa_c)
            sb = rng.binomial(k, pb_c)
            m = np.full(len(sa), k)
            if cluster == "task":
                sa = sa.reshape(tasks, scenarios).sum(1)
                sb = sb.reshape(tasks, scenarios).sum(1)
                m = m.reshape(tasks, scenarios).sum(1)
        r = cluster_interval(sa, sb, m, method=interval, B=B, seed=int(rng.integers(2**31)), mcse=False)
        if r.lo is not None and r.hi is not None and (r.lo > 0 or r.hi < 0):
            hits += 1
    if strata:
        from analysis.paired import stratified_score_intervals

        st = np.stack(strata)
        lo, hi = stratified_score_intervals(st[..., 1], st[..., 2], st.sum(axis=-1))
        hits = int(np.sum((lo > 0) | (hi < 0)))
    p = hits / sims
    return p, math.sqrt(p * (1 - p) / sims)


def _paired_counts(pa_c: np.ndarray, pb_c: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """Per (task, scenario) cluster, the counts of its k cells' pairs (1,1), (1,0), (0,1), (0,0), the arms
    independent given the cell: shape (clusters, 4)."""
    p11, p10, p01 = pa_c * pb_c, pa_c * (1 - pb_c), (1 - pa_c) * pb_c
    probs = np.stack([p11, p10, p01, np.maximum(1 - p11 - p10 - p01, 0.0)], axis=1)
    return rng.multinomial(k, probs / probs.sum(axis=1, keepdims=True))


def _conditional_excludes_zero(pa_c: np.ndarray, pb_c: np.ndarray, k: int, interval: str,
                               rng: np.random.Generator) -> bool:
    """One simulated study's pooled conditional interval (Tango or Newcombe) over its k cells per cluster."""
    from analysis.paired import newcombe_interval, tango_interval

    counts = _paired_counts(pa_c, pb_c, k, rng).sum(axis=0)
    n, both, b, c = int(counts.sum()), int(counts[0]), int(counts[1]), int(counts[2])
    ci = tango_interval(n, b, c) if interval == "tango" else newcombe_interval(n, b, c, both + b, both + c)
    return ci is not None and (ci[0] > 0 or ci[1] < 0)


def plan(rates: dict[str, float], pilot: str | None, a: str, b: str, endpoint: str, tasks: int,
         scenarios: int, ks: list[int], task_sd: float, sims: int, B: int, seed: int, cluster: str,
         target: float, band: tuple[float, float] | None, interval: str = DEFAULT_METHOD) -> dict:
    """Power of a design per number of repeats k (``harness power``): the rates assumed or read from a
    pilot, the sizing rule's band (refused outside it), the warning when clusters are few, one
    simulated row per k and the smallest k reaching ``target``; the document and its text."""
    lines: list[str] = []
    p_a, p_b, base, source = _rates(rates, pilot, a, b, endpoint, lines)
    conditional = None
    if task_sd > 0:
        la, lb = conditional_logit(p_a, task_sd), conditional_logit(p_b, task_sd)
        conditional = {a: _expit(la), b: _expit(lb)}
        lines.append(f"task SD {task_sd} on the logit scale: these marginal rates are average-task rates "
                     f"{a} = {_expit(la):.4g}, {b} = {_expit(lb):.4g} (logits {la:.3f}, {lb:.3f}); "
                     f"marginal difference {p_a - p_b:+.4g}")
    result: dict[str, Any]  # the JSON document of `harness power --json-out` (rows and warnings appended below)
    result = {"a": a, "b": b, "endpoint": endpoint, "source": source, "band": list(band) if band else None,
              "rates": {"scale": "marginal (over tasks)", a: p_a, b: p_b, "average_task": conditional},
              "design": {"tasks": tasks, "scenarios": 1 if endpoint == "completion" else scenarios,
                         "cluster": cluster, "interval": interval, "task_sd": task_sd, "sims": sims,
                         "B": B, "seed": seed},
              "rows": [], "recommended_k": None, "target": target}
    if band is not None:
        _check_band(band, base, p_b, b, lines, result)
    result["refused"] = False
    n_sc = 1 if endpoint == "completion" else scenarios
    n_clusters = {"task": tasks, "task x scenario": tasks * n_sc, "cell": tasks * n_sc * min(ks)}[cluster]
    if n_clusters < 2 and interval not in CONDITIONAL_METHODS:
        raise ValueError(f"--tasks {tasks} with --cluster {cluster}: {n_clusters} cluster, so no interval exists "
                         "(n/a (1 cluster)) and the power is n/a; a design needs at least 2 clusters")
    result["warnings"] = []
    if n_clusters < MIN_CLUSTERS[interval]:
        result["warnings"].append(f"WARNING: {n_clusters} clusters (< {MIN_CLUSTERS[interval]}): the coverage study "
                                  f"found {interval} coverage can fall outside [93%, 97%] with this few, so this "
                                  "power is for an interval that may not hold its level")
        lines.extend(result["warnings"])
    how = (f"{interval} paired score interval on the matched cells (conditional estimand)"
           if interval in CONDITIONAL_METHODS else f"{interval} {cluster} cluster bootstrap B={B}")
    lines.append(f"design: {tasks} tasks x {n_sc} scenario(s) x k repeats per arm; {how}; {sims} simulated "
                 "studies per k; power = share whose 95% interval excludes 0")
    lines.append("| k | cells per arm | power (studies excluding 0 / studies) | MC s.e. (binomial) |")
    lines.append("|---|---|---|---|")
    _power_rows(result, lines, p_a, p_b, tasks, n_sc, ks, task_sd, sims, B, seed, cluster, interval, target)
    result["text"] = "\n".join(lines)
    return result


def _rates(rates: dict[str, float], pilot: str | None, a: str, b: str, endpoint: str,
           lines: list[str]) -> tuple[float, float, Any, dict]:
    """The two arms' rates (from the pilot's records, else assumed with --rate), the base arm's
    Wilson proportion when from a pilot (None when assumed), and the source as the document says it."""
    source: dict
    if pilot:
        pr = pilot_rates(pilot, a, b, endpoint)
        p_a, p_b = pr["a"].rate, pr["b"].rate
        base = pr["b"]
        source = {"kind": "pilot", "file": pilot, "n_matched": pr["n_matched"], "cells": pr["cells"],
                  "a": pr["a"].as_dict(), "b": pr["b"].as_dict()}
        lines.append(f"pilot {pilot}: {endpoint} over {pr['n_matched']} matched {pr['cells']} cells: "
                     f"{a} {pr['a'].fmt()}, {b} {pr['b'].fmt()} (Wilson 95%)")
    else:
        missing = [x for x in (a, b) if x not in rates]
        if missing:
            raise ValueError(f"need --rate for {', '.join(missing)} (or --pilot FILE)")
        p_a, p_b = rates[a], rates[b]
        base = None
        source = {"kind": "assumed", "a": p_a, "b": p_b}
        lines.append(f"assumed marginal {endpoint} rates (over tasks): {a} = {p_a}, {b} = {p_b}")
    return p_a, p_b, base, source


def _check_band(band: tuple[float, float], base, p_b: float, b: str, lines: list[str], result: dict) -> None:
    """The sizing rule: the base arm's rate must lie inside the pre-registered planning band, else the
    study is not sized (PowerRefused carrying the document)."""
    lo, hi = band
    shown = base.fmt(pct=False) if base is not None else f"{p_b}"
    if not lo <= p_b <= hi:
        lines.append(f"sizing rule: base rate ({b}) {shown} is outside the pre-registered planning band "
                     f"[{lo}, {hi}]: the study is NOT sized (refused).")
        result["refused"] = True
        result["text"] = "\n".join(lines)
        raise PowerRefused(f"base rate {p_b:.3f} outside planning band [{lo}, {hi}]", result)
    lines.append(f"sizing rule: base rate ({b}) {shown} is inside the planning band [{lo}, {hi}]")


def _power_rows(result: dict, lines: list[str], p_a: float, p_b: float, tasks: int, n_sc: int, ks: list[int],
                task_sd: float, sims: int, B: int, seed: int, cluster: str, interval: str, target: float) -> None:
    """One simulated row per k (the stratified headline gives way to Tango where analyze would) and
    the smallest k reaching ``target``."""
    notes = []
    for k in ks:
        used = interval
        if interval == "stratified" and stratified_headline_refusal(tasks, tasks * n_sc * k):
            used = "tango"
            notes.append(f"k = {k}: {n_sc * k} matched cells per task (fewer than {1 / STRAT_MAX_TASKS_PER_CELL:.0f}): "
                         "analyze heads with the pooled Tango interval there, so that is the one simulated")
        pw, se = simulate_power(p_a, p_b, tasks, n_sc, k, task_sd, sims, B, seed, cluster, interval)
        hits = round(pw * sims)
        result["rows"].append({"k": k, "cells_per_arm": tasks * n_sc * k, "power": pw, "hits": hits, "sims": sims,
                               "mc_se": se, "interval": used})
        lines.append(f"| {k} | {tasks * n_sc * k} | {hits}/{sims} = {pw:.3f} | {se:.3f} |")
        if result["recommended_k"] is None and pw >= target:
            result["recommended_k"] = k
    lines.extend(notes)
    if result["recommended_k"] is None:
        lines.append(f"no k in {ks} reaches power {target}")
    else:
        lines.append(f"smallest k reaching power {target}: {result['recommended_k']}")


def _expit(x: float) -> float:
    return 1.0 if x == math.inf else 0.0 if x == -math.inf else 1.0 / (1.0 + math.exp(-x))


# ---------------------------------------------------------------------------------------------
# units to power for a monitored study (``harness power --monitor``)


def _paired_stream(p_a: float, p_b: float, sims: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """sims x n matched-unit differences D = y_a - y_b, arms independent given the unit, every unit
    alike (task SD 0): P(D = 1) = p_a (1 - p_b), P(D = -1) = (1 - p_a) p_b."""
    up, dn = p_a * (1 - p_b), (1 - p_a) * p_b
    u = rng.random((sims, n))
    return np.where(u < up, 1.0, np.where(u < up + dn, -1.0, 0.0))


def fixed_n_power(p_a: float, p_b: float, n: int, sims: int, rng: np.random.Generator,
                  alpha: float = 0.05) -> dict:
    """Simulated power at n units of the fixed-n tests: Tango's interval excludes 0 exactly when the score
    statistic at 0, |b - c| / sqrt(b + c) (McNemar's asymptotic statistic), exceeds z; and the exact
    McNemar test at level alpha. (``exact_fixed_n_power`` gives both without simulation.)"""
    from scipy.stats import binom, norm

    up, dn = p_a * (1 - p_b), (1 - p_a) * p_b
    counts = rng.multinomial(n, [up, dn, 1 - up - dn], size=sims)
    b, c = counts[:, 0], counts[:, 1]
    z = np.abs(b - c) / np.sqrt(np.maximum(b + c, 1))
    exact = np.minimum(1.0, 2 * binom.cdf(np.minimum(b, c), b + c, 0.5))
    return {"tango": float(np.mean(z > norm.ppf(1 - alpha / 2))),
            "mcnemar_exact": float(np.mean((b + c > 0) & (exact <= alpha)))}


def _rejection_given_discordant(m_max: int, q: float, alpha: float) -> dict[str, np.ndarray]:
    """For m = 0..m_max discordant pairs, P(reject | m) when each discordant pair favours a with
    probability q: the exact McNemar test (two-sided binomial, p = min(1, 2 F(min(b, m - b); m, 1/2)) <= alpha)
    rejects for b <= k(m) or b >= m - k(m), k(m) the largest k with 2 F(k; m, 1/2) <= alpha; the score test
    (Tango at 0) for |2b - m| / sqrt(m) > z. Both regions are symmetric in b, so each probability is two
    binomial tails."""
    from scipy.stats import binom, norm

    m = np.arange(m_max + 1)
    k = binom.ppf(alpha / 2, m, 0.5)  # smallest k with F(k) >= alpha/2
    k = np.where(2 * binom.cdf(k, m, 0.5) <= alpha, k, k - 1)  # largest k with 2 F(k) <= alpha (-1: none)
    exact = np.where(k >= 0, binom.cdf(k, m, q) + binom.sf(m - k - 1, m, q), 0.0)
    z = norm.ppf(1 - alpha / 2)
    # |2b - m| > z sqrt(m)  <=>  b < (m - z sqrt(m)) / 2  or  b > (m + z sqrt(m)) / 2
    half = z * np.sqrt(m) / 2
    lo = np.ceil(m / 2 - half) - 1  # largest b strictly below m/2 - half
    hi = np.floor(m / 2 + half) + 1  # smallest b strictly above m/2 + half
    score = np.where(m > 0, binom.cdf(lo, m, q) + binom.sf(hi - 1, m, q), 0.0)
    return {"mcnemar_exact": exact, "tango": score}


def exact_fixed_n_power(p_a: float, p_b: float, ns, alpha: float = 0.05) -> dict[str, np.ndarray]:
    """Analytic power at each n in ``ns`` of the fixed-n exact McNemar test and of Tango's score test at 0:
    the discordant count M ~ Binomial(n, p10 + p01), and given M = m, b ~ Binomial(m, p10 / (p10 + p01));
    power(n) = sum_m P(M = m) P(reject | m) (``_rejection_given_discordant``). No simulation, no Monte Carlo
    error. Arms independent given the unit: p10 = p_a (1 - p_b), p01 = (1 - p_a) p_b."""
    from scipy.stats import binom

    ns = np.atleast_1d(np.asarray(ns, dtype=np.int64))
    up, dn = p_a * (1 - p_b), (1 - p_a) * p_b
    pd_ = up + dn
    out = {"mcnemar_exact": np.zeros(len(ns)), "tango": np.zeros(len(ns))}
    if pd_ <= 0 or len(ns) == 0:
        return out
    rej = _rejection_given_discordant(int(ns.max()), up / pd_, alpha)
    for i, n in enumerate(ns):
        w = binom.pmf(np.arange(n + 1), n, pd_)
        for name in out:
            out[name][i] = float(w @ rej[name][: n + 1])
    return out


def eb_first_exclusion(d: np.ndarray, alpha: float, v_opt: float) -> np.ndarray:
    """First unit count at which the empirical-Bernstein sequence (``analysis.sequence``, as the
    monitor runs it) excludes 0, per row; n + 1 if never. The boundary u(V) is evaluated on a grid of
    1,000 V values and interpolated linearly (u is smooth and increasing in V)."""
    from analysis.sequence import boundary, rho_for

    sims, n = d.shape
    t = np.arange(1, n + 1)
    mean = np.cumsum(d, axis=1) / t
    xhat = np.concatenate([np.zeros((sims, 1)), mean[:, :-1]], axis=1)
    V = np.cumsum((d - xhat) ** 2, axis=1)
    grid = np.linspace(0.0, float(V.max()) + 1.0, 1000)
    u = np.interp(V, grid, boundary(grid, alpha / 2, rho_for(v_opt, alpha / 2), 2.0))
    hit = np.abs(mean) > u / t
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, n + 1)


def _heterogeneous_null(p_b: float, task_sd: float, sims: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """sims x n differences with no difference on any unit, units heterogeneous: 24 tasks with a logit
    random effect (SD task_sd) around the rate p_b, each unit a random task; both arms draw from the
    unit's own rate (the null the monitor's type-I guarantee is about, ``analysis.betting``)."""
    from scipy.special import expit, logit

    base = float(logit(min(max(p_b, 1e-6), 1 - 1e-6)))
    u = rng.normal(0.0, task_sd, size=(sims, 24))
    task = rng.integers(0, 24, size=(sims, n))
    p = expit(base + np.take_along_axis(u, task, axis=1))
    return (rng.random((sims, n)) < p).astype(float) - (rng.random((sims, n)) < p)


def monitor_power(p_a: float, p_b: float, alpha: float = 0.05, target: float = 0.8, sims: int = 1000,
                  max_units: int = 4000, seed: int = 1, v_opt: float | None = None,
                  null_task_sd: float = 2.0) -> dict:
    """Units to ``target`` power. Fixed-n tests (exact McNemar, Tango's score test at 0): analytic power
    (``exact_fixed_n_power``), the smallest n <= max_units reaching the target (exact power is not monotone
    in n; the first crossing is reported). The two confidence sequences looked at after every unit:
    simulated, the target quantile of the first unit count at which the sequence excludes 0 (a monitored
    study stopping there has that power by that many units), and each sequence's power at the exact
    McNemar units with its Monte Carlo standard error. Type-I error of each sequence under a heterogeneous
    null (``_heterogeneous_null``, task SD ``null_task_sd``), looked at after every unit up to max_units."""
    from analysis.betting import first_exclusion

    rng = np.random.Generator(np.random.PCG64([seed, 24]))
    d = _paired_stream(p_a, p_b, sims, max_units, rng)
    v_opt = v_opt if v_opt is not None else max(10.0, max_units / 20)
    seqs = {"betting": first_exclusion(d, alpha), "empirical_bernstein": eb_first_exclusion(d, alpha, v_opt)}
    ns = np.arange(1, max_units + 1)
    exact = exact_fixed_n_power(p_a, p_b, ns, alpha)
    out: dict[str, Any] = {"p_a": p_a, "p_b": p_b, "alpha": alpha, "target": target, "sims": sims,
                           "max_units": max_units, "seed": seed, "eb_tuned_for_v": v_opt, "units": {},
                           "fixed_n_method": "analytic: sum over the binomial number of discordant pairs of "
                                             "the exact conditional rejection probability"}
    for name in ("mcnemar_exact", "tango"):
        hit = np.flatnonzero(exact[name] >= target)
        out["units"][name] = None if hit.size == 0 else int(ns[hit[0]])
    for name, first in seqs.items():
        q = float(np.quantile(first, target, method="higher"))
        out["units"][name] = None if q > max_units else int(q)
    n_ref = out["units"]["mcnemar_exact"]
    out["at_mcnemar_units"] = None if n_ref is None else {
        "units": n_ref, "mcnemar_exact": float(exact["mcnemar_exact"][n_ref - 1]),
        **{name: _share(first <= n_ref, sims) for name, first in seqs.items()}}
    null = _heterogeneous_null(p_b, null_task_sd, sims, max_units, rng)
    out["type_one"] = {"task_sd": null_task_sd, "base_rate": p_b, "tasks": 24, "looks": max_units,
                       "betting": _share(first_exclusion(null, alpha) <= max_units, sims),
                       "empirical_bernstein": _share(eb_first_exclusion(null, alpha, v_opt) <= max_units, sims)}
    out["mc_se_at_target"] = math.sqrt(target * (1 - target) / sims)
    return out


def _share(hit: np.ndarray, sims: int) -> dict:
    """A simulated proportion with its numerator, denominator and binomial Monte Carlo standard error."""
    k = int(np.sum(hit))
    p = k / sims
    return {"hits": k, "sims": sims, "rate": p, "mc_se": math.sqrt(p * (1 - p) / sims)}


def render_monitor_power(r: dict, a: str, b: str) -> str:
    u = r["units"]

    def show(x):
        return "n/a (not reached within --max-units)" if x is None else str(x)

    ref = u["mcnemar_exact"]
    lines = [f"units to {100 * r['target']:.0f}% power at {a} = {r['p_a']}, {b} = {r['p_b']} (difference "
             f"{100 * (r['p_a'] - r['p_b']):+.2f} pp; matched units with independent arms, every unit alike; "
             f"alpha = {r['alpha']}). Fixed-n tests: exact analytic power (no simulation). Sequences: "
             f"{r['sims']} simulated studies (seed {r['seed']}), MC s.e. of a power near the target "
             f"{r['mc_se_at_target']:.3f}.",
             "| test | units to target power | x the exact McNemar units |", "|---|---|---|"]
    names = {"mcnemar_exact": "fixed-n exact McNemar test (read once at n; analytic)",
             "tango": "fixed-n Tango score interval (read once at n; analytic)",
             "betting": "betting confidence sequence (aGRAPA; looked at after every unit; the monitor's default)",
             "empirical_bernstein": f"empirical-Bernstein sequence (tuned for V = {r['eb_tuned_for_v']:g}; every unit)"}
    for k in ("mcnemar_exact", "tango", "betting", "empirical_bernstein"):
        ratio = "n/a" if u[k] is None or ref is None else f"{u[k] / ref:.2f}"
        lines.append(f"| {names[k]} | {show(u[k])} | {ratio} |")
    at = r.get("at_mcnemar_units")
    if at is not None:
        lines.append(f"power at the exact McNemar units (n = {at['units']}): exact McNemar "
                     f"{at['mcnemar_exact']:.4f} (analytic); " + "; ".join(
                         f"{nm.replace('_', '-')} sequence {at[nm]['hits']}/{at[nm]['sims']} = {at[nm]['rate']:.3f} "
                         f"(MC s.e. {at[nm]['mc_se']:.3f})" for nm in ("betting", "empirical_bernstein")))
    t = r["type_one"]
    lines.append(f"type-I error under a heterogeneous null (no difference on any unit; {t['tasks']} tasks, logit "
                 f"task SD {t['task_sd']:g} around {b}'s rate {t['base_rate']}; looked at after each of "
                 f"{t['looks']} units): " + "; ".join(
                     f"{nm.replace('_', '-')} {t[nm]['hits']}/{t[nm]['sims']} = {t[nm]['rate']:.3f} "
                     f"(MC s.e. {t[nm]['mc_se']:.3f})" for nm in ("betting", "empirical_bernstein")))
    return "\n".join(lines)
