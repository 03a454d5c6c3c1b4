"""Paired cluster-bootstrap intervals for a difference in pooled rates, with honest small-sample output.

Data: per cluster c, the two arms' success counts s_a[c], s_b[c] over its m[c] matched cells; the
estimate is theta = sum(s_a - s_b) / sum(m) (a ratio of cluster totals). One bootstrap replicate
draws the C clusters with replacement (``analysis.stats.bootstrap_counts``: seeded integer draws,
platform-exact) and both arms of a cluster move together (paired). Two ways to turn the
replicates into an interval (Davison and Hinkley 1997, section 5.2-5.3):

* ``percentile``: the alpha/2 and 1 - alpha/2 quantiles of the replicate estimates (the paper's
  method; numpy linear interpolation).
* ``studentized`` (bootstrap-t): each replicate is divided by its own cluster-robust standard
  error, se^2 = C/(C-1) * sum_c (d_c - theta m_c)^2 / (sum_c m_c)^2 with d = s_a - s_b (the
  linearisation of a ratio estimator, CR1 scaling); the interval is
  [theta - q(1 - alpha/2) se, theta - q(alpha/2) se] with q the quantiles of the replicate t's.
  A replicate with no between-cluster variation (se* = 0) has t = 0 when it reproduces the
  estimate and +-infinity otherwise: the method then cannot bound that side, and the endpoint is
  clipped to the parameter space [-1, 1] (stated in ``notes``).
* ``studentized-symmetric`` (the default; Hall 1988, the symmetric bootstrap-t):
  theta +- q se with q the 1 - alpha quantile of |t*|. In the coverage study it held [93%, 97%]
  more often than the equal-tailed version with few clusters and rare events (docs/explanation/estimands.md). When the
  difference rests on one or two clusters (the paper's H1: 29 of 31 failures in one task), many
  resamples have almost no between-cluster variation, |t*| is huge and the interval is very wide;
  a warning then says so (that is the method being honest about a difference carried by one task).
* ``cluster-t`` (no bootstrap): theta +- t_{df, 1-alpha/2} se_CR2, the CR2 cluster-robust Wald
  interval with Bell-McCaffrey (Satterthwaite) degrees of freedom (``analysis.estimands.cr2``;
  Pustejovsky and Tipton 2018). With equal cluster sizes it is the CR1 interval with C - 1 df;
  void cells make sizes unequal, and then CR2 and its df differ from CR1's. Deterministic, so its
  endpoints have no Monte Carlo error.

No method clips: an interval that would leave the parameter space [-1, 1] is not given (lo and
hi are None, ``reason`` says why), because a clipped endpoint is a number the method did not
produce.

Every endpoint carries its Monte Carlo standard error (how much it moves with the bootstrap
seed): the Maritz-Jarrett standard error of the sample quantile (``scipy.stats.mstats.mjci``),
scaled by se for the studentized endpoints. Fewer than 2 clusters gives no interval ("n/a (1
cluster)"); for cluster-t and percentile, one cluster holding more than ``TOP_SHARE`` of the CR2
variance gives a warning (they stay narrow where the studentized methods go wide); fewer than
``MIN_CLUSTERS[method]`` gives a warning beside it (the smallest cluster
count at which the coverage study, ``python -m benchmarks coverage``, found the method within
[93%, 97%] on every setting it tried; see docs/explanation/estimands.md).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from analysis.stats import CHUNK_ELEMS, bootstrap_counts
from harness.core.interval_methods import BOOTSTRAP_METHODS

DEFAULT_METHOD = "stratified"  # the conditional estimand's score interval stratified by task (analysis.estimands.CONDITIONAL_HEADLINE)
CLUSTER_DEFAULT = "studentized-symmetric"  # cluster_interval's default (a bootstrap method)
# From the coverage study (docs/explanation/estimands.md, "Calibration"): the smallest cluster count of its grid (8, 24, 96)
# at which the method was within [93%, 97%] on (all but at most one) setting with task SD <= 1;
# below it the interval carries a warning.
MIN_CLUSTERS = {"studentized-symmetric": 24, "studentized": 96, "percentile": 96, "cluster-t": 96,
                "stratified": 1, "tango": 1, "newcombe": 1}
UNSTABLE = 0.1  # a resample whose s.e. is below this share of the observed one is "without variation"
TOP_SHARE = 0.5  # cluster-t / percentile: one cluster above this share of the CR1 variance -> a warning
T_CAP = 1e6  # |t*| beyond this is "unbounded" (a replicate without between-cluster variation)


@dataclass(frozen=True)
class ClusterInterval:
    """A paired cluster-bootstrap interval; ``lo``/``hi`` are None when no interval exists."""

    estimate: float | None
    lo: float | None
    hi: float | None
    method: str
    B: int
    seed: int
    alpha: float
    n_clusters: int
    n_matched: int
    k_a: int
    k_b: int
    lo_mcse: float | None = None
    hi_mcse: float | None = None
    se: float | None = None
    reason: str | None = None  # why lo/hi are None when an estimate exists
    df: float | None = None  # cluster-t: the Bell-McCaffrey degrees of freedom
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())

    @property
    def level(self) -> float:
        return 1.0 - self.alpha

    @property
    def status(self) -> str:
        """'ok', or why there is no interval: 'no matched cells', 'n/a (1 cluster)'."""
        if self.estimate is None:
            return "no matched cells"
        if self.lo is None:
            return f"n/a ({self.reason or f'{self.n_clusters} cluster' + ('s' if self.n_clusters != 1 else '')})"
        return "ok"

    def describe(self, cluster: str) -> dict:
        """The method block written beside every interval in summary.json and report.md."""
        if self.method == "cluster-t":  # deterministic: no resamples, seed or Monte Carlo error
            return {"kind": "cluster_robust_t", "interval": f"{self.method} {100 * self.level:.4g}%",
                    "method": self.method, "level": self.level, "B": None, "seed": None, "cluster": cluster,
                    "n_clusters": self.n_clusters, "paired": True, "min_clusters": MIN_CLUSTERS[self.method],
                    "status": self.status, "lo_mcse": self.lo_mcse, "hi_mcse": self.hi_mcse, "se": self.se,
                    "mcse_method": "none: no resampling (CR2 cluster-robust s.e., t with Bell-McCaffrey df)",
                    "df": self.df, "reason": self.reason,
                    "warnings": list(self.warnings), "notes": list(self.notes)}
        return {"kind": "cluster_bootstrap", "interval": f"{self.method} {100 * self.level:.4g}%",
                "method": self.method, "level": self.level, "B": self.B, "seed": self.seed,
                "cluster": cluster, "n_clusters": self.n_clusters, "paired": True,
                "min_clusters": MIN_CLUSTERS[self.method], "status": self.status,
                "lo_mcse": self.lo_mcse, "hi_mcse": self.hi_mcse, "se": self.se,
                "mcse_method": "Maritz-Jarrett s.e. of the bootstrap quantile (scipy.stats.mstats.mjci)",
                "warnings": list(self.warnings), "notes": list(self.notes), "reason": self.reason,
                "rng": f"numpy {np.__version__} Generator(PCG64(seed)).integers"}


def replicate_sums(d: np.ndarray, m: np.ndarray, B: int, seed: int, second_moments: bool) -> np.ndarray:
    """Per replicate, the resampled totals [sum d, sum m] (+ [sum d^2, sum d m, sum m^2]).

    Integer matrix products over the resample counts: exact, and the same stream as
    ``analysis.stats.paired_cluster_bootstrap`` for the same seed (chunking does not change it).
    """
    C = len(m)
    cols = [d, m] + ([d * d, d * m, m * m] if second_moments else [])
    S = np.stack(cols, axis=1).astype(np.int64)
    out = np.empty((B, S.shape[1]), dtype=np.int64)
    rng = np.random.Generator(np.random.PCG64(seed))
    chunk = max(1, min(B, CHUNK_ELEMS // max(C, 1)))
    for start in range(0, B, chunk):
        rows = min(chunk, B - start)
        out[start:start + rows] = bootstrap_counts(rng, C, rows) @ S
    return out


def cluster_se(d, m) -> float:
    """CR1 cluster-robust standard error of sum(d)/sum(m): sqrt(C/(C-1) sum (d - theta m)^2) / sum(m)."""
    d = np.asarray(d, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    C, M = len(m), m.sum()
    theta = d.sum() / M
    return float(np.sqrt(C / (C - 1) * np.sum((d - theta * m) ** 2)) / M)


def studentized_t(sums: np.ndarray, theta: float, C: int) -> np.ndarray:
    """Replicate t = (theta* - theta) / se*, from the replicate totals (see module docstring)."""
    sd, sm, sdd, sdm, smm = (sums[:, i].astype(np.float64) for i in range(5))
    th = sd / sm
    ss = np.maximum(sdd - 2 * th * sdm + th * th * smm, 0.0)  # sum w (d - th m)^2, rounding >= 0
    se = np.sqrt(C / (C - 1) * ss) / sm
    diff = th - theta
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff / se
    tiny = np.abs(diff) <= 1e-12 * max(1.0, abs(theta))
    with np.errstate(invalid="ignore"):
        t = np.where(se > 0, t, np.where(tiny, 0.0, np.sign(diff) * np.inf))
    return np.clip(t, -T_CAP, T_CAP)


def _mjse(x: np.ndarray, probs: list[float]) -> list[float]:
    from scipy.stats.mstats import mjci

    if np.ptp(x) == 0:
        return [0.0] * len(probs)
    with np.errstate(invalid="ignore"):  # C2 - C1^2 can round below 0 where the s.e. is 0
        se = mjci(x, prob=probs)
    return [0.0 if not np.isfinite(v) else float(v) for v in np.asarray(se)]


def _cluster_t(d, m, est: float, alpha: float) -> tuple[float, float, float, float, str]:
    """The cluster-t interval: the CR2 cluster-robust s.e. times the t quantile with Bell-McCaffrey
    df (no resampling). Returns lo, hi, the s.e., the df and the method's note."""
    from scipy.stats import t as t_dist

    from analysis.estimands import cr2

    fit = cr2(d, m)
    se, df = fit.se, fit.df
    q = float(t_dist.ppf(1 - alpha / 2, df)) if se > 0 else 0.0
    return (est - q * se, est + q * se, se, df,
            f"CR2 cluster-robust s.e. {se:.6g} x t quantile {q:.4f} ({df:.2f} Bell-McCaffrey df); no resampling")


def _studentized(d, m, est: float, se: float, method: str, B: int, seed: int, alpha: float,
                 mcse: bool) -> tuple[float, float, Sequence[float | None], str | None]:
    """The studentized (equal-tailed or symmetric) cluster-bootstrap interval: lo, hi, the Monte
    Carlo s.e. of each endpoint, and a warning when too many resamples have almost no
    between-cluster variation (the difference rests on few clusters)."""
    C = len(m)
    probs = [alpha / 2, 1 - alpha / 2]
    sums = replicate_sums(d, m, B, seed, second_moments=True)
    t = studentized_t(sums, est, C)
    # MC s.e. on the scale of the endpoint itself (each resample's candidate endpoint, clipped
    # to [-1, 1]), so a quantile next to unbounded resamples gives a finite, honest s.e.
    mc: Sequence[float | None]
    if method == "studentized":
        q_lo, q_hi = np.quantile(t, probs)
        cand = np.clip(est - t * se, -1, 1)  # decreasing in t: t's upper quantile is the lower endpoint
        mc = _mjse(cand, probs) if mcse else [None, None]
    else:
        q_hi = float(np.quantile(np.abs(t), 1 - alpha))
        q_lo = -q_hi
        mc = [_mjse(np.clip(est + np.abs(t) * se, -1, 1), [1 - alpha])[0]] * 2 if mcse else [None, None]
    lo, hi = est - q_hi * se, est - q_lo * se
    sm = sums[:, 1].astype(np.float64)
    th = sums[:, 0] / sm
    ss = np.maximum(sums[:, 2] - 2 * th * sums[:, 3] + th * th * sums[:, 4], 0.0)
    flat = float(np.mean(np.sqrt(C / (C - 1) * ss) / sm < UNSTABLE * se))
    warning = None
    if flat > alpha / 2:
        share = float(np.max(np.abs(d)) / max(np.sum(np.abs(d)), 1))
        warning = (f"{100 * flat:.0f}% of resamples have almost no between-cluster variation (s.e. < "
                   f"{UNSTABLE:g} x the observed): the difference rests on few clusters (the largest "
                   f"holds {100 * share:.0f}% of the per-cluster differences |s_a - s_b|), so the "
                   "studentized interval is wide; see the task concentration table")
    return float(lo), float(hi), mc, warning


def cluster_interval(s_a, s_b, m, method: str = CLUSTER_DEFAULT, B: int = 2000, seed: int = 0,
                     alpha: float = 0.05, mcse: bool = True) -> ClusterInterval:
    """Difference in pooled rates (a - b) over matched cells with a paired cluster-bootstrap interval."""
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"cluster interval method must be one of {', '.join(BOOTSTRAP_METHODS)}; got {method!r}")
    s_a = np.asarray(s_a, dtype=np.int64)
    s_b = np.asarray(s_b, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    C, N = len(m), int(m.sum())
    empty = ClusterInterval(None, None, None, method=method, B=B, seed=seed, alpha=alpha, n_clusters=C,
                            n_matched=N, k_a=int(s_a.sum()), k_b=int(s_b.sum()))
    if C == 0 or N == 0:
        return empty
    d = s_a - s_b
    est = float(d.sum() / N)
    if C < 2:
        return replace(empty, estimate=est, warnings=(
            "1 cluster: the between-cluster variation cannot be estimated, so there is no interval",))
    warnings: list[str] = []
    notes: list[str] = []
    if C < MIN_CLUSTERS[method]:
        warnings.append(f"only {C} clusters (< {MIN_CLUSTERS[method]}): the coverage study found this "
                        f"method's coverage can fall outside [93%, 97%] with this few")
    probs = [alpha / 2, 1 - alpha / 2]
    se = cluster_se(d, m)
    mc: Sequence[float | None]  # Monte Carlo s.e. of (lo, hi); None when mcse=False
    df = None
    if method == "cluster-t":
        lo, hi, se, df, note = _cluster_t(d, m, est, alpha)
        mc = [0.0, 0.0]
        notes.append(note)
    elif method == "percentile":
        sums = replicate_sums(d, m, B, seed, second_moments=False)
        reps = sums[:, 0] / sums[:, 1]
        lo, hi = (float(x) for x in np.quantile(reps, probs))
        mc = _mjse(reps, probs) if mcse else [None, None]
    else:
        lo, hi, mc, flat_warning = _studentized(d, m, est, se, method, B, seed, alpha, mcse)
        warnings += [flat_warning] if flat_warning else []
    if method in ("cluster-t", "percentile") and se > 0.0:
        r2 = (d - est * m).astype(np.float64) ** 2 / (1 - m / N)  # each cluster's term of the CR2 variance
        top = float(r2.max() / r2.sum())
        if top > TOP_SHARE:
            warnings.append(f"one cluster contributes {100 * top:.0f}% of the cluster-robust variance: the interval "
                            "rests on few clusters, a shape where the coverage study found no interval over clusters "
                            "calibrated (README, Calibration: a difference carried by rare tasks); see the task "
                            "concentration table")
    if se == 0.0:
        warnings.append("no between-cluster variation in the differences: the interval has zero width "
                        "and understates the uncertainty")
    if not (-1.0 - 1e-12 <= lo and hi <= 1.0 + 1e-12):
        why = ("resamples without between-cluster variation leave a side unbounded" if method.startswith("studentized")
               else "the t quantile times the s.e. reaches past it")
        return replace(empty, estimate=est, se=se, df=df, warnings=tuple(warnings), notes=tuple(notes),
                       reason=f"the interval would leave the parameter space [-100, +100] pp: {why}")
    return replace(empty, estimate=est, lo=max(-1.0, lo), hi=min(1.0, hi), lo_mcse=mc[0], hi_mcse=mc[1], se=se,
                   df=df, warnings=tuple(warnings), notes=tuple(notes))
