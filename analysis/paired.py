"""Intervals for the *conditional* estimand of a paired contrast: the mean difference over the matched
cells actually run, P(a succeeds) - P(b succeeds) averaged over those cells (their tasks, scenarios
and repeats fixed, not drawn from a population).

Data: n matched pairs with discordant counts ``b`` (arm a succeeded, arm b failed) and ``c`` (arm a
failed, arm b succeeded); the estimate is (b - c) / n.

* ``tango_interval``: Tango's asymptotic score interval (Tango 1998, Stat Med 17:891, eq. 3): the
  set of Delta with |Z(Delta)| <= z_{1 - alpha/2},
      Z(Delta) = (b - c - n Delta) / sqrt(n (2 q(Delta) + Delta (1 - Delta))),
  q(Delta) the constrained maximum-likelihood estimate of the cell probability p21 given Delta,
      q = (sqrt(W^2 + 8 n c Delta (1 - Delta)) - W) / (4 n),  W = (2n - b + c) Delta - b - c
  (the positive root of 2n q^2 + W q - c Delta (1 - Delta) = 0, from the score equation of the
  multinomial likelihood with p12 = p21 + Delta). Its endpoints lie inside [-1, 1] by construction.
  Stratification: when the design is stratified (scenarios, tasks), the pooled statistic's variance
  is the unstratified multinomial one, which is at least the conditional variance given the strata
  (law of total variance), so the pooled interval is valid and conservative for the conditional
  estimand weighted by matched cells per stratum (what the pooled difference estimates).
* ``newcombe_interval``: Newcombe's hybrid score interval for paired data (Newcombe 1998, Stat Med
  17:2635, method 10): Wilson intervals for the two marginal rates combined with the phi correction
  for their correlation (phi's numerator AD - BC is reduced by n/2 when above n/2 and set to 0 in
  [0, n/2], as Newcombe specifies). Offered for comparison; both are checked against published values.
* ``mcnemar_exact_p``: the exact (conditional binomial) McNemar test on the discordant cells,
  two-sided p = min(1, 2 P(Bin(b + c, 1/2) <= min(b, c))), as statsmodels computes it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp
from scipy.stats import binom, norm

from harness.core.wilson import wilson

EDGE = 1e-12  # Delta is searched on [-1 + EDGE, 1 - EDGE]: Z is undefined at exactly +-1


@dataclass(frozen=True)
class PairedCounts:
    """A paired 2x2 table: n pairs, b = a-only successes, c = b-only successes, k_a / k_b the arms'
    success counts (k_a - k_b = b - c)."""

    n: int
    b: int
    c: int
    k_a: int
    k_b: int

    @property
    def estimate(self) -> float | None:
        return None if self.n == 0 else (self.b - self.c) / self.n

    @classmethod
    def from_outcomes(cls, ya, yb) -> PairedCounts:
        ya = [int(x) for x in ya]
        yb = [int(x) for x in yb]
        return cls(len(ya), sum(x == 1 and y == 0 for x, y in zip(ya, yb)),
                   sum(x == 0 and y == 1 for x, y in zip(ya, yb)), sum(ya), sum(yb))


def tango_q(delta: float, n: int, b: int, c: int) -> float:
    """Constrained MLE of p21 (b-only pairs' probability) given p12 - p21 = delta (module docstring)."""
    w = (2 * n - b + c) * delta - b - c
    disc = w * w + 8 * n * c * delta * (1 - delta)
    return (math.sqrt(max(disc, 0.0)) - w) / (4 * n)


def tango_z(delta: float, n: int, b: int, c: int) -> float:
    """Tango's score statistic Z(delta); +-inf where its variance is 0 and the numerator is not."""
    q = max(tango_q(delta, n, b, c), 0.0)
    var = n * (2 * q + delta * (1 - delta))
    num = b - c - n * delta
    if var <= 0:
        return 0.0 if num == 0 else math.copysign(math.inf, num)
    return num / math.sqrt(var)


def tango_interval(n: int, b: int, c: int, alpha: float = 0.05) -> tuple[float, float] | None:
    """Tango's (1 - alpha) score interval for the paired difference (b - c)/n; None when n = 0."""
    if n == 0:
        return None
    z = float(norm.ppf(1 - alpha / 2))
    est = (b - c) / n
    lo_edge, hi_edge = -1 + EDGE, 1 - EDGE

    def side(target: float, a: float, bnd: float) -> float:
        f = lambda d: tango_z(d, n, b, c) - target  # noqa: E731  (Z decreases in delta)
        if f(bnd) * f(a) > 0:
            return bnd  # the statistic never reaches z on this side: the bound is the parameter space's
        return float(brentq(f, min(a, bnd), max(a, bnd), xtol=1e-14, rtol=1e-14))

    lo = -1.0 if est <= lo_edge else side(z, est, lo_edge)
    hi = 1.0 if est >= hi_edge else side(-z, est, hi_edge)
    return max(-1.0, lo), min(1.0, hi)


def newcombe_interval(n: int, b: int, c: int, k_a: int, k_b: int,
                      alpha: float = 0.05) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval (1998, method 10) for k_a/n - k_b/n from paired data."""
    if n == 0:
        return None
    z = float(norm.ppf(1 - alpha / 2))
    p1, p2 = k_a / n, k_b / n
    w1, w2 = wilson(k_a, n, z=z), wilson(k_b, n, z=z)
    assert w1.lo is not None and w1.hi is not None and w2.lo is not None and w2.hi is not None  # n > 0
    l1, u1, l2, u2 = w1.lo, w1.hi, w2.lo, w2.hi
    both = k_a - b  # pairs where both arms succeeded
    neither = n - both - b - c
    margins = (both + b) * (c + neither) * (both + c) * (b + neither)
    phi = 0.0 if margins == 0 else _phi_star(both * neither - b * c, n) / math.sqrt(margins)
    est = p1 - p2
    dl = math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    du = math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return est - dl, est + du


def _phi_star(cross: float, n: int) -> float:
    """Newcombe's (1998) numerator for phi: AD - BC shrunk by n/2 when positive, 0 in [0, n/2]."""
    if cross > n / 2:
        return cross - n / 2
    return 0.0 if cross >= 0 else cross


def mcnemar_exact_p(b: int, c: int) -> float | None:
    """Two-sided exact McNemar p on the discordant pairs; None when there are none."""
    if b + c == 0:
        return None
    return float(min(1.0, 2 * binom.cdf(min(b, c), b + c, 0.5)))


# A paired table as `harness compare` names it (two runs joined cell by cell): e = yes in both runs,
# f = yes in the first only, g = yes in the second only, h = no in both. The estimand is the
# difference of the margins, (f - g)/n over the matched cells: the conditional estimand above with
# b = f and c = g.

@dataclass(frozen=True)
class PairedTable:
    """Counts of a paired yes/no endpoint: e both yes, f first only, g second only, h both no."""

    e: int
    f: int
    g: int
    h: int

    @property
    def n(self) -> int:
        return self.e + self.f + self.g + self.h


@dataclass(frozen=True)
class PairedDifference:
    """(f - g)/n with a Newcombe interval; ``lo``/``hi`` None (and ``why`` set) when n = 0."""

    estimate: float | None
    lo: float | None
    hi: float | None
    level: float
    why: str | None = None


def mcnemar_exact(t: PairedTable) -> float | None:
    """``mcnemar_exact_p`` on a table's discordant cells; None when there are none (f = g = 0)."""
    return mcnemar_exact_p(t.f, t.g)


def mcnemar_log10(t: PairedTable) -> float | None:
    """log10 of ``mcnemar_exact``'s p, summed in log space (lgamma, logsumexp) so that a p below
    double precision (2 * 0.5^1100 for 1,100 discordant pairs one way) is not 0; None as there."""
    d = t.f + t.g
    if d == 0:
        return None
    i = np.arange(min(t.f, t.g) + 1)
    log_pmf = gammaln(d + 1) - gammaln(i + 1) - gammaln(d - i + 1) - d * math.log(2)
    return min(0.0, float((math.log(2) + logsumexp(log_pmf)) / math.log(10)))


def newcombe_paired(t: PairedTable, alpha: float = 0.05) -> PairedDifference:
    """``newcombe_interval`` for p1 - p2 = (f - g)/n, as a ``PairedDifference``."""
    if t.n == 0:
        return PairedDifference(None, None, None, 1.0 - alpha, "no matched cells")
    ci = newcombe_interval(t.n, t.f, t.g, t.e + t.f, t.e + t.g, alpha)
    assert ci is not None  # n > 0
    return PairedDifference((t.f - t.g) / t.n, ci[0], ci[1], 1.0 - alpha)
