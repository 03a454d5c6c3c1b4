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
from analysis.wilson import wilson

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
