"""Tests and intervals on a paired 2x2 table (two runs joined cell by cell): the exact McNemar test
and Newcombe's hybrid score interval for a difference of paired proportions.

A paired table over n matched cells counts, for a yes/no endpoint, e = yes in both runs, f = yes
in the first only, g = yes in the second only, h = no in both. The estimand is the difference of
the marginal proportions, (e + f)/n - (e + g)/n = (f - g)/n, over the matched cells.

* ``mcnemar_exact``: the two-sided exact (binomial) McNemar test on the discordant cells f and g:
  under H0 each discordant cell falls in f with probability 1/2, so p = min(1, 2 P(X <= min(f, g)))
  with X ~ Binomial(f + g, 1/2) (the convention of statsmodels' ``mcnemar(exact=True)``).
* ``newcombe_paired``: Newcombe (1998, Stat Med 17:2635, method 10), the square-and-add
  combination of the two margins' Wilson intervals with the continuity-corrected phi correlation;
  it stays inside [-1, 1] and is defined at zero cells, unlike the Wald interval.

Issue 24 adds paired intervals to analysis.intervals; this module's ``newcombe_paired`` is the one
``harness compare`` needs, named so that the two can be told apart (and deduplicated) later.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import binom, norm


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
    """Two-sided exact McNemar p over the discordant cells; None when there are none (f = g = 0)."""
    d = t.f + t.g
    if d == 0:
        return None
    return float(min(1.0, 2.0 * binom.cdf(min(t.f, t.g), d, 0.5)))


def mcnemar_log10(t: PairedTable) -> float | None:
    """log10 of ``mcnemar_exact``'s p, summed in log space (lgamma, logsumexp) so that a p below
    double precision (2 * 0.5^1100 for 1,100 discordant pairs one way) is not 0; None as there."""
    d = t.f + t.g
    if d == 0:
        return None
    i = np.arange(min(t.f, t.g) + 1)
    log_pmf = gammaln(d + 1) - gammaln(i + 1) - gammaln(d - i + 1) - d * math.log(2)
    return min(0.0, float((math.log(2) + logsumexp(log_pmf)) / math.log(10)))


def wilson(k: int, n: int, z: float) -> tuple[float, float]:
    """Wilson (1927) score interval for k/n (n > 0), without continuity correction."""
    p = k / n
    centre = (2 * n * p + z * z) / (2 * (n + z * z))
    half = z * math.sqrt(z * z + 4 * n * p * (1 - p)) / (2 * (n + z * z))
    return max(0.0, centre - half), min(1.0, centre + half)


def _phi(t: PairedTable) -> float:
    """Newcombe's continuity-corrected phi: (eh - fg - n/2)+ / sqrt(margins) when eh > fg, the
    uncorrected value when eh < fg, 0 when a margin is empty."""
    denom = (t.e + t.f) * (t.g + t.h) * (t.e + t.g) * (t.f + t.h)
    if denom == 0:
        return 0.0
    b = t.e * t.h - t.f * t.g
    c = max(b - t.n / 2, 0.0) if b > 0 else float(b)
    return c / math.sqrt(denom)


def newcombe_paired(t: PairedTable, alpha: float = 0.05) -> PairedDifference:
    """Difference of paired proportions p1 - p2 = (f - g)/n with Newcombe's method 10 interval."""
    level = 1.0 - alpha
    if t.n == 0:
        return PairedDifference(None, None, None, level, "no matched cells")
    z = float(norm.ppf(1 - alpha / 2))
    p1, p2 = (t.e + t.f) / t.n, (t.e + t.g) / t.n
    l1, u1 = wilson(t.e + t.f, t.n, z)
    l2, u2 = wilson(t.e + t.g, t.n, z)
    phi = _phi(t)
    d = p1 - p2
    lo = d - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    hi = d + math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    return PairedDifference(d, max(-1.0, lo), min(1.0, hi), level)
