"""The two named estimands of every paired contrast, each with its own interval.

* ``conditional`` ("on the tasks, scenarios and repeats run"): the mean over the matched cells run
  of each cell's own difference P(a succeeds) - P(b succeeds). Interval: Tango's paired score
  interval on the discordant cells (``analysis.paired``), with the exact McNemar p beside it. It is
  the headline by default: in the coverage study it holds its level in every setting, with no
  absurd intervals.
* ``population`` ("for tasks drawn like these"): the expected difference over tasks drawn like the
  ones run. Interval: the CR2 cluster-robust Wald interval with Bell-McCaffrey (Satterthwaite)
  degrees of freedom (Bell and McCaffrey 2002; Pustejovsky and Tipton 2018, JBES 36:672) for the
  ratio estimator sum(d)/sum(m) (``cr2``). It under-covers when the task effect is large and
  events are rare (coverage study), and it is refused (n/a, with the reason) when
    - fewer than ``POP_MIN_CLUSTERS`` clusters were run ("n/a (3 tasks)"),
    - one cluster holds more than ``DOMINANT_SHARE`` of the CR2 variance (the output then shows the
      split: that cluster alone and the others together, each with its own intervals),
    - the clusters show no variation in their differences (a zero-width interval would understate),
    - or the interval would leave the parameter space [-1, 1] (it is never clipped).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import t as t_dist

from analysis.paired import PairedCounts, mcnemar_exact_p, newcombe_interval, tango_interval

POP_MIN_CLUSTERS = 8  # the smallest cluster count of the coverage study's grid
DOMINANT_SHARE = 0.9  # one cluster's share of the CR2 variance above which no population interval is given
CONDITIONAL = ("the mean, over the matched cells run (these tasks, scenarios and repeats), of each cell's "
               "difference P(a succeeds) - P(b succeeds)")
POPULATION = "the expected difference over tasks drawn like these (a population of tasks the run sampled)"
POP_LIMIT = ("CR2 with Bell-McCaffrey df under-covers when the task effect is large and events are rare "
             "(coverage study at 24 tasks and the paper's effect: 89.9% at task SD 1, 78.7% at SD 2; "
             "README, Coverage and width by estimand)")
TANGO = "Tango score interval for the paired difference (Tango 1998), exact McNemar p on the discordant cells"


@dataclass(frozen=True)
class CR2:
    """CR2 cluster-robust variance of theta = sum(d)/sum(m) with Bell-McCaffrey degrees of freedom."""

    estimate: float
    se: float
    df: float
    shares: np.ndarray  # each cluster's share of the CR2 variance


def cr2(d, m) -> CR2:
    """CR2 for the intercept-only regression of the cell differences (Bell and McCaffrey 2002).

    theta is the OLS intercept of cell-level differences D over N = sum(m) cells, X = 1. Cluster c's
    hat block is H_cc = J/N, and (I - H_cc)^(-1/2) acts on the ones vector as (1 - m_c/N)^(-1/2), so
        V_CR2 = sum_c (d_c - theta m_c)^2 / (1 - m_c/N) / N^2.
    The Satterthwaite df of Bell and McCaffrey (working model: independent cells) is
    tr(M)^2 / tr(M^2) with M = diag(a) (diag(m) - m m'/N) diag(a), a_c = (1 - m_c/N)^(-1/2) / N
    (M_ck = g_c'g_k, g_c = (I - H) A_c' X_c (X'X)^-1). With equal m_c it is C - 1 and V_CR2 equals
    the CR1 variance C/(C-1) sum r_c^2 / N^2, so it reduces to the classic cluster-t there.
    """
    d = np.asarray(d, dtype=np.float64)
    m = np.asarray(m, dtype=np.float64)
    N = m.sum()
    theta = d.sum() / N
    adj = 1.0 / (1.0 - m / N)
    terms = (d - theta * m) ** 2 * adj
    var = terms.sum() / N**2
    a = np.sqrt(adj) / N
    M = a[:, None] * (np.diag(m) - np.outer(m, m) / N) * a[None, :]
    tr, tr2 = float(np.trace(M)), float(np.sum(M * M))
    df = tr * tr / tr2 if tr2 > 0 else float("nan")
    shares = terms / terms.sum() if terms.sum() > 0 else np.zeros_like(terms)
    return CR2(float(theta), math.sqrt(var), df, shares)


def conditional_block(pc: PairedCounts, alpha: float) -> dict:
    """The conditional estimand: Tango interval, Newcombe's hybrid beside it, exact McNemar p."""
    ci = tango_interval(pc.n, pc.b, pc.c, alpha)
    nc = newcombe_interval(pc.n, pc.b, pc.c, pc.k_a, pc.k_b, alpha)
    return {"estimand": "conditional", "definition": CONDITIONAL, "method": TANGO, "level": 1 - alpha,
            "n": pc.n, "discordant_a_only": pc.b, "discordant_b_only": pc.c, "k_a": pc.k_a, "k_b": pc.k_b,
            "estimate": pc.estimate, "lo": None if ci is None else ci[0], "hi": None if ci is None else ci[1],
            "reason": "no matched cells" if ci is None else None,
            "newcombe": None if nc is None else {"lo": nc[0], "hi": nc[1],
                                                   "method": "Newcombe 1998 hybrid score (method 10)"},
            "mcnemar_p": mcnemar_exact_p(pc.b, pc.c),
            "mcnemar_method": "exact conditional binomial on the discordant cells, two-sided"}


def _pop_refusal(C: int, unit: str, fit: CR2 | None, alpha: float) -> str | None:
    """Why no population interval is given, or None."""
    if C < POP_MIN_CLUSTERS:
        return (f"{C} {_plural(unit, C)}: fewer than {POP_MIN_CLUSTERS} {_plural(unit, 2)}, too few to estimate the "
                "between-cluster variation")
    assert fit is not None
    if fit.se == 0.0:
        return "no variation between clusters in their differences: a zero-width interval would understate"
    top = float(fit.shares.max())
    if top > DOMINANT_SHARE:
        return (f"one {unit} holds {100 * top:.1f}% of the CR2 variance (> {100 * DOMINANT_SHARE:.0f}%): "
                f"{C} {_plural(unit, C)} cannot support a claim about tasks like these; see the split")
    q = float(t_dist.ppf(1 - alpha / 2, fit.df))
    if fit.estimate - q * fit.se < -1 or fit.estimate + q * fit.se > 1:
        return (f"the CR2 interval ({fit.df:.1f} df) would leave the parameter space [-100, +100] pp: "
                "the data cannot bound this difference")
    return None


def _plural(unit: str, n: int) -> str:
    word = {"task": "task", "task x scenario": "task x scenario cluster", "cell": "cell"}.get(unit, unit)
    return word if n == 1 else word + "s"


def population_block(d, m, labels, per_cluster: list[PairedCounts], unit: str, alpha: float,
                     allow_split: bool = True) -> dict:
    """The population estimand over ``unit`` clusters: CR2 + Bell-McCaffrey interval or n/a with the
    reason; when one cluster dominates, the split (that cluster alone and the rest together)."""
    d = np.asarray(d, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    C, N = len(m), int(m.sum())
    out = {"estimand": "population", "definition": POPULATION, "cluster": unit, "n_clusters": C,
           "method": "CR2 cluster-robust s.e. with Bell-McCaffrey (Satterthwaite) df, t interval "
                     "(Pustejovsky and Tipton 2018)", "level": 1 - alpha, "limit": POP_LIMIT,
           "numerator": int(d.sum()), "denominator": N, "estimate": None if N == 0 else d.sum() / N,
           "lo": None, "hi": None, "se": None, "df": None, "top_share": None, "top_cluster": None,
           "reason": None, "split": None}
    if N == 0:
        out["reason"] = "no matched cells"
        return out
    fit = cr2(d, m) if C >= 2 else None
    if fit is not None:
        top = int(np.argmax(fit.shares))
        out.update(se=fit.se, df=fit.df, top_share=float(fit.shares[top]), top_cluster=str(labels[top]))
    reason = _pop_refusal(C, unit, fit, alpha)
    if reason is None:
        assert fit is not None
        q = float(t_dist.ppf(1 - alpha / 2, fit.df))
        out.update(lo=fit.estimate - q * fit.se, hi=fit.estimate + q * fit.se, t_quantile=q)
        return out
    out["reason"] = reason
    if allow_split and fit is not None and float(fit.shares.max()) > DOMINANT_SHARE:
        out["split"] = _split(d, m, labels, per_cluster, int(np.argmax(fit.shares)), unit, alpha)
    return out


def _split(d, m, labels, per_cluster: list[PairedCounts], top: int, unit: str, alpha: float) -> dict:
    """The dominant cluster alone (its conditional interval) and the other clusters together (their
    conditional and population intervals)."""
    rest = [i for i in range(len(m)) if i != top]
    pc_top = per_cluster[top]
    pc_rest = PairedCounts(sum(per_cluster[i].n for i in rest), sum(per_cluster[i].b for i in rest),
                           sum(per_cluster[i].c for i in rest), sum(per_cluster[i].k_a for i in rest),
                           sum(per_cluster[i].k_b for i in rest))
    return {"dominant": {"cluster": str(labels[top]), "conditional": conditional_block(pc_top, alpha)},
            "others": {"n_clusters": len(rest), "conditional": conditional_block(pc_rest, alpha),
                       "population": population_block(d[rest], m[rest], [labels[i] for i in rest],
                                                      [per_cluster[i] for i in rest], unit, alpha,
                                                      allow_split=False)}}
