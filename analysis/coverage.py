"""Coverage study of the paired cluster-bootstrap intervals on simulated clustered paired binary data.

Model (the design of a powered ablation): C tasks (the clusters), each with S scenarios x k
repeats matched cells. Task t has a random effect u_t ~ N(0, task_sd^2) on the logit scale,
shared by both arms (what makes a task's cells, in both arms, succeed or fail together); given
u_t every cell's outcome is an independent Bernoulli draw:
    P(y_b = 1 | u) = expit(l_b + u),    P(y_a = 1 | u) = expit(l_b + effect + u).
``base`` is the *marginal* rate of arm b (averaged over tasks): l_b solves
E_u[expit(l_b + u)] = base (Gauss-Hermite quadrature). ``effect`` is the arm's log-odds shift.
The estimand is the marginal difference E_u[expit(l_b + effect + u) - expit(l_b + u)], the
quantity the pooled difference over a random sample of tasks estimates.

Each simulated study is analysed with ``analysis.intervals.cluster_interval``, the same function
``harness analyze`` uses; coverage = share of studies whose interval contains the estimand,
reported with its Wilson 95% interval over the simulated studies.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from scipy.special import expit

from analysis.intervals import cluster_interval
from analysis.marginal import marginal_intercept, marginal_rate
from harness.core.wilson import wilson

TARGET = (0.93, 0.97)  # acceptance band for a nominal 95% interval


@dataclass(frozen=True)
class Setting:
    clusters: int
    task_sd: float
    base: float
    effect: float  # log-odds shift of arm a
    scenarios: int = 15
    repeats: int = 3

    @property
    def logits(self) -> tuple[float, float]:
        lb = marginal_intercept(self.base, self.task_sd)
        return lb + self.effect, lb

    def true_difference(self) -> float:
        la, lb = self.logits
        return marginal_rate(la, self.task_sd) - marginal_rate(lb, self.task_sd)


def simulate(setting: Setting, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n studies: success counts of arms a and b per (task, scenario), shape (n, C, S), k cells each."""
    la, lb = setting.logits
    u = rng.normal(0.0, setting.task_sd, size=(n, setting.clusters, 1)) if setting.task_sd > 0 \
        else np.zeros((n, setting.clusters, 1))
    shape = (n, setting.clusters, setting.scenarios)
    s_a = rng.binomial(setting.repeats, np.broadcast_to(expit(la + u), shape))
    s_b = rng.binomial(setting.repeats, np.broadcast_to(expit(lb + u), shape))
    return s_a, s_b


def cluster_totals(s_a: np.ndarray, s_b: np.ndarray, repeats: int, cluster: str):
    """One study's (C, S) counts -> per-cluster (s_a, s_b, m) for cluster 'task' or 'task x scenario'."""
    if cluster == "task":
        return s_a.sum(axis=1), s_b.sum(axis=1), np.full(s_a.shape[0], s_a.shape[1] * repeats)
    if cluster == "task x scenario":
        return s_a.ravel(), s_b.ravel(), np.full(s_a.size, repeats)
    raise ValueError(f"cluster must be 'task' or 'task x scenario'; got {cluster!r}")


def coverage(setting: Setting, schemes: list[tuple[str, str]], n_sims: int, B: int, seed: int,
             alpha: float = 0.05) -> list[dict]:
    """Coverage of each (method, cluster) scheme over the same n_sims simulated studies."""
    rng = np.random.Generator(np.random.PCG64([seed, setting.clusters, int(1000 * setting.task_sd),
                                               int(1e4 * setting.base), int(1000 * setting.effect)]))
    truth = setting.true_difference()
    s_a, s_b = simulate(setting, n_sims, rng)
    boot_seeds = rng.integers(0, 2**31, size=n_sims)
    out = []
    for method, cluster in schemes:
        hits = no_interval = 0
        widths = []
        for i in range(n_sims):
            a, b, m = cluster_totals(s_a[i], s_b[i], setting.repeats, cluster)
            r = cluster_interval(a, b, m, method=method, B=B, seed=int(boot_seeds[i]), alpha=alpha, mcse=False)
            if r.lo is None or r.hi is None:
                no_interval += 1
                continue
            hits += r.lo <= truth <= r.hi
            widths.append(r.hi - r.lo)
        w = wilson(hits, n_sims)
        out.append({**asdict(setting), "method": method, "cluster": cluster, "truth": truth,
                    "hits": hits, "n": n_sims, "coverage": w.rate, "lo": w.lo, "hi": w.hi,
                    "no_interval": no_interval, "mean_width": float(np.mean(widths)) if widths else None,
                    "B": B, "seed": seed,
                    "in_target": None if w.rate is None else TARGET[0] <= w.rate <= TARGET[1]})
    return out


@dataclass(frozen=True)
class PeekSetting:
    """A running study monitored after every matched unit: tasks x scenarios x repeats units in a
    random order, each unit's propensities set by its task's random effect (as in ``Setting``)."""

    tasks: int
    task_sd: float
    base: float
    effect: float
    scenarios: int = 15
    repeats: int = 3
    first_look: int = 10  # the fixed-time interval needs a few units before it exists


def peeking(ps: PeekSetting, n_sims: int, seed: int, alpha: float = 0.05, v_opt: float | None = None,
            scale: float = 1.0) -> dict:
    """Coverage of the estimand mu~_t (the mean propensity difference of the units run so far) when
    the interval is looked at after every unit, for the confidence sequence (``analysis.sequence``)
    and for the fixed-time Wald interval mean +- z sd / sqrt(t) looked at the same way.

    A study "covers" when the interval contains mu~_t at every look t >= first_look (the sequence is
    also checked from t = 1). ``fixed_final`` is the Wald interval's coverage at the last unit alone:
    right at a fixed time, wrong when peeked. ``scale`` multiplies the sequence's half-width (a
    control: a sequence shrunk enough must lose coverage, or the check is vacuous)."""
    from scipy.stats import norm

    from analysis.sequence import boundary, rho_for

    rng = np.random.Generator(np.random.PCG64([seed, ps.tasks, int(1000 * ps.task_sd), int(1e4 * ps.base),
                                               int(1000 * ps.effect)]))
    lb = marginal_intercept(ps.base, ps.task_sd)
    la = lb + ps.effect
    per_task = ps.scenarios * ps.repeats
    n = ps.tasks * per_task
    task_of_unit = np.repeat(np.arange(ps.tasks), per_task)
    u = rng.normal(0.0, ps.task_sd, size=(n_sims, ps.tasks)) if ps.task_sd > 0 else np.zeros((n_sims, ps.tasks))
    order = np.argsort(rng.random((n_sims, n)), axis=1)  # a random run order per study
    uu = np.take_along_axis(u[:, task_of_unit], order, axis=1)
    pa, pb = expit(la + uu), expit(lb + uu)
    d = (rng.random((n_sims, n)) < pa).astype(np.float64) - (rng.random((n_sims, n)) < pb)
    t = np.arange(1, n + 1)
    truth = np.cumsum(pa - pb, axis=1) / t
    mean = np.cumsum(d, axis=1) / t
    xhat = np.concatenate([np.zeros((n_sims, 1)), mean[:, :-1]], axis=1)
    V = np.cumsum((d - xhat) ** 2, axis=1)
    rho = rho_for(v_opt if v_opt is not None else max(10.0, n / 20), alpha / 2)
    half = scale * boundary(V.ravel(), alpha / 2, rho, 2.0).reshape(V.shape) / t
    cs_in = (mean - half <= truth) & (truth <= mean + half)
    sd = np.sqrt(np.maximum(np.cumsum(d * d, axis=1) / t - mean ** 2, 0.0) * t / np.maximum(t - 1, 1))
    w = norm.ppf(1 - alpha / 2) * sd / np.sqrt(t)
    fx_in = (mean - w <= truth) & (truth <= mean + w)
    k = ps.first_look - 1
    out = {**asdict(ps), "units": n, "n": n_sims, "alpha": alpha, "rho": rho, "seed": seed}
    for name, hits in (("sequence_all_looks", cs_in.all(axis=1)),
                       ("sequence_from_first_look", cs_in[:, k:].all(axis=1)),
                       ("fixed_time_peeked", fx_in[:, k:].all(axis=1)),
                       ("fixed_time_final", fx_in[:, -1])):
        wl = wilson(int(hits.sum()), n_sims)
        out[name] = {"hits": wl.k, "n": wl.n, "coverage": wl.rate, "lo": wl.lo, "hi": wl.hi}
    out["mean_half_width_final"] = {"sequence": float(half[:, -1].mean()), "fixed_time": float(w[:, -1].mean())}
    return out


@dataclass(frozen=True)
class RareTaskSetting:
    """The paper's H1 shape (Table 13: 29 of A2p's 31 amplified cells in one task of 24): each of C
    tasks is, independently with probability ``p_bad``, a task where both arms fail at the given
    per-cell rates (a task random effect with a two-point, heavy-tailed distribution); elsewhere
    arm a never fails and arm b rarely does. The estimand is the marginal difference over tasks,
    p_bad (rate_a_bad - rate_b_bad) + (1 - p_bad) (rate_a_ok - rate_b_ok)."""

    clusters: int = 24
    p_bad: float = 1 / 24
    cells: int = 75  # per task: 15 scenarios x 5 repeats
    rate_a_bad: float = 73 / 75
    rate_b_bad: float = 46 / 75
    rate_a_ok: float = 1.0
    rate_b_ok: float = 1 - 2 / (23 * 75)

    def true_difference(self) -> float:
        return (self.p_bad * (self.rate_a_bad - self.rate_b_bad)
                + (1 - self.p_bad) * (self.rate_a_ok - self.rate_b_ok))


def coverage_rare_task(rs: RareTaskSetting, methods: list[str], n_sims: int, B: int, seed: int,
                       alpha: float = 0.05) -> list[dict]:
    """Coverage (Wilson 95% over studies) and median width of each method over task clusters when the
    difference is carried by rare tasks; ``no_bad_task`` counts the studies that drew none (there
    the data say nothing about the estimand, whatever the method)."""
    rng = np.random.Generator(np.random.PCG64([seed, rs.clusters, int(1e6 * rs.p_bad)]))
    truth = rs.true_difference()
    bad = rng.random((n_sims, rs.clusters)) < rs.p_bad
    s_a = rng.binomial(rs.cells, np.where(bad, rs.rate_a_bad, rs.rate_a_ok))
    s_b = rng.binomial(rs.cells, np.where(bad, rs.rate_b_bad, rs.rate_b_ok))
    m = np.full(rs.clusters, rs.cells)
    out = []
    for method in methods:
        hits, widths = 0, []
        for i in range(n_sims):
            r = cluster_interval(s_a[i], s_b[i], m, method=method, B=B, seed=i, alpha=alpha, mcse=False)
            if r.lo is None or r.hi is None:
                widths.append(np.nan)
                continue
            hits += r.lo <= truth <= r.hi
            widths.append(r.hi - r.lo)
        w = wilson(hits, n_sims)
        out.append({**asdict(rs), "method": method, "cluster": "task", "truth": truth, "hits": hits, "n": n_sims,
                    "coverage": w.rate, "lo": w.lo, "hi": w.hi, "median_width": float(np.nanmedian(widths)),
                    "no_bad_task": int((~bad.any(axis=1)).sum()), "B": B, "seed": seed})
    return out


# ---------------------------------------------------------------------------------------------
# coverage and width by estimand (issue 24): the paper's shape, paired arms, rare events


@dataclass(frozen=True)
class PairSetting:
    """The paper's design: ``tasks`` x ``scenarios`` x ``repeats`` matched cells, both arms run on each,
    outcomes independent given the task. Task t's per-cell rates: with ``p_bad`` None, a logit random
    effect u_t ~ N(0, task_sd^2) shared by both arms around marginal base rate ``base`` of arm b and
    a log-odds shift ``effect`` for arm a (as ``Setting``); with ``p_bad`` set, the two-point task
    distribution of ``RareTaskSetting`` (a task is 'bad' with probability p_bad, and there holds
    about 90% of the events)."""

    name: str
    task_sd: float = 1.0
    base: float = 0.983
    effect: float = 0.0
    p_bad: float | None = None
    tasks: int = 24
    scenarios: int = 15
    repeats: int = 5

    def task_rates(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Per study and task, the arms' per-cell rates (shape (n, tasks) each)."""
        if self.p_bad is not None:
            rs = RareTaskSetting(clusters=self.tasks, p_bad=self.p_bad, cells=self.scenarios * self.repeats)
            bad = rng.random((n, self.tasks)) < self.p_bad
            return np.where(bad, rs.rate_a_bad, rs.rate_a_ok), np.where(bad, rs.rate_b_bad, rs.rate_b_ok)
        lb = marginal_intercept(self.base, self.task_sd)
        u = rng.normal(0.0, self.task_sd, size=(n, self.tasks)) if self.task_sd > 0 else np.zeros((n, self.tasks))
        return expit(lb + self.effect + u), expit(lb + u)

    def population_difference(self) -> float:
        """The population estimand: the expected difference over tasks drawn like these."""
        if self.p_bad is not None:
            return RareTaskSetting(clusters=self.tasks, p_bad=self.p_bad,
                                   cells=self.scenarios * self.repeats).true_difference()
        lb = marginal_intercept(self.base, self.task_sd)
        return marginal_rate(lb + self.effect, self.task_sd) - marginal_rate(lb, self.task_sd)


PAIR_METHODS = (("tango", "cell"), ("stratified", "task"), ("newcombe", "cell"), ("population", "task"), ("cr2-bm", "task"),
                ("studentized-symmetric", "task"), ("percentile", "task"), ("percentile", "task x scenario"))
ABSURD_PP = 50.0  # an interval wider than this (pp) is "absurd" for differences of a few pp


def simulate_pairs(ps: PairSetting, n: int, rng: np.random.Generator):
    """n studies: per (study, task, scenario) counts of the pairs (a, b) = (1,1), (1,0), (0,1), (0,0)
    over ``repeats`` cells, shape (n, tasks, scenarios, 4); and each study's conditional estimand, the
    mean over its cells of pa - pb (shape (n,))."""
    pa, pb = ps.task_rates(n, rng)
    probs = np.stack([pa * pb, pa * (1 - pb), (1 - pa) * pb, (1 - pa) * (1 - pb)], axis=-1)
    probs = np.broadcast_to(probs[:, :, None, :], (n, ps.tasks, ps.scenarios, 4))
    counts = rng.multinomial(ps.repeats, probs)
    return counts, (pa - pb).mean(axis=1)


def _study_intervals(counts: np.ndarray, method: str, cluster: str, B: int, seed: int,
                     alpha: float) -> tuple[float, float] | None:
    """One study's interval by one method (None = the method gives no interval: n/a)."""
    from analysis.estimands import population_interval
    from analysis.paired import newcombe_interval, tango_interval

    tot = counts.sum(axis=(0, 1))
    n, both, b, c = int(tot.sum()), int(tot[0]), int(tot[1]), int(tot[2])
    if method == "tango":
        return tango_interval(n, b, c, alpha)
    if method == "newcombe":
        return newcombe_interval(n, b, c, both + b, both + c, alpha)
    per = counts.sum(axis=1) if cluster == "task" else counts.reshape(-1, 4)
    d, m = per[:, 1] - per[:, 2], per.sum(axis=1)
    if method == "population":  # the population estimand's method, with its refusals (analysis.estimands)
        return population_interval(d, m, int(np.count_nonzero(per[:, 1] + per[:, 2])), "task", alpha)[1]
    if method == "cr2-bm":  # the earlier population method: CR2 on Bell-McCaffrey df, earlier refusals
        return _cr2_bm_earlier(d, m, alpha)
    if method == "cr2-bm-het":  # the rejected candidate: the earlier method, n/a when heterogeneity is detected
        return None if _heterogeneity_ratio(per[:, 1], per[:, 2], m) > HET_RATIO else _cr2_bm_earlier(d, m, alpha)
    r = cluster_interval(per[:, 1], per[:, 2], m, method=method, B=B, seed=seed, alpha=alpha, mcse=False)
    return None if r.lo is None or r.hi is None else (r.lo, r.hi)


def _stratified_intervals(counts: np.ndarray, cluster: str, alpha: float) -> list[tuple[float, float]]:
    """Every study's stratified paired score interval at once (``analysis.paired.stratified_score_intervals``),
    strata = tasks (``cluster`` "task") or task x scenario cells; every stratum here has pairs."""
    from analysis.paired import stratified_score_intervals

    per = counts.sum(axis=2) if cluster == "task" else counts.reshape(counts.shape[0], -1, 4)
    lo, hi = stratified_score_intervals(per[..., 1], per[..., 2], per.sum(axis=-1), alpha)
    return [(float(a), float(b)) for a, b in zip(lo, hi)]


HET_RATIO = 2.0  # the rejected candidate's threshold: CR2 variance at least twice the within-task variance


def _heterogeneity_ratio(b, c, m) -> float:
    """The rejected refusal candidate's diagnostic: the CR2 variance over the within-cluster sampling
    variance sum_c [(b_c + c_c) - d_c^2 / m_c] m_c / (m_c - 1) / N^2 (about 1 + the between-task share
    of the variance; inf when there is no within-cluster variation)."""
    from analysis.estimands import cr2

    b, c, m = (np.asarray(x, dtype=np.float64) for x in (b, c, m))
    d = b - c
    within = float(np.sum(((b + c) - d * d / m) * m / np.maximum(m - 1, 1))) / m.sum() ** 2
    v = cr2(d, m).se ** 2
    return v / within if within > 0 else float("inf")


def _cr2_bm_earlier(d, m, alpha: float) -> tuple[float, float] | None:
    """The population method before the effective-cluster df and the informative-cluster rule (kept in
    the study for comparison): CR2 on Bell-McCaffrey df, n/a below 8 clusters, with no variation, one
    cluster above 0.9 of the variance, or an interval leaving [-1, 1]."""
    from scipy.stats import t as t_dist

    from analysis.estimands import DOMINANT_SHARE, POP_MIN_CLUSTERS, cr2

    if len(m) < POP_MIN_CLUSTERS:
        return None
    fit = cr2(d, m)
    if fit.se == 0.0 or float(fit.shares.max()) > DOMINANT_SHARE:
        return None
    q = float(t_dist.ppf(1 - alpha / 2, fit.df))
    lo, hi = fit.estimate - q * fit.se, fit.estimate + q * fit.se
    return None if lo < -1 or hi > 1 else (lo, hi)


def _summarise(ivs: list, truths: np.ndarray) -> dict:
    """Coverage of given intervals (Wilson 95% over studies that have one), n/a share, widths in pp."""
    given = [(iv, t) for iv, t in zip(ivs, truths) if iv is not None]
    hits = int(sum(lo <= t <= hi for (lo, hi), t in given))
    w = np.array([100 * (hi - lo) for (lo, hi), _ in given]) if given else np.array([np.nan])
    cov = wilson(hits, len(given))
    absurd = int(sum(100 * (hi - lo) > ABSURD_PP or lo < -1 or hi > 1 for (lo, hi), _ in given))
    return {"hits": hits, "given": len(given), "n": len(ivs), "coverage": cov.rate, "lo": cov.lo, "hi": cov.hi,
            "na_share": 1 - len(given) / len(ivs), "median_width_pp": float(np.median(w)) if given else None,
            "p95_width_pp": float(np.nanquantile(w, 0.95)) if given else None,
            "absurd_share": absurd / len(ivs)}


def estimand_coverage(ps: PairSetting, n_sims: int, B: int, seed: int, alpha: float = 0.05,
                      methods=PAIR_METHODS) -> list[dict]:
    """Per method, coverage of both estimands (conditional: each study's own cells; population: the
    setting's marginal difference), the share of studies with no interval, and widths."""
    rng = np.random.Generator(np.random.PCG64([seed, int(1000 * ps.task_sd), int(1e4 * ps.base),
                                               int(1000 * ps.effect), int(1e6 * (ps.p_bad or 0))]))
    counts, cond = simulate_pairs(ps, n_sims, rng)
    pop = np.full(n_sims, ps.population_difference())
    seeds = rng.integers(0, 2**31, size=n_sims)
    out = []
    for method, cluster in methods:
        ivs = _stratified_intervals(counts, cluster, alpha) if method == "stratified" else \
            [_study_intervals(counts[i], method, cluster, B, int(seeds[i]), alpha) for i in range(n_sims)]
        out.append({**asdict(ps), "method": method, "cluster": cluster, "population_truth": float(pop[0]),
                    "conditional": _summarise(ivs, cond), "population": _summarise(ivs, pop),
                    "n_sims": n_sims, "B": B, "seed": seed})
    return out
