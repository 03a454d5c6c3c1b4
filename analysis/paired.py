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
  is the unstratified multinomial one, which exceeds the conditional variance given the strata by the
  between-strata term sum_k n_k (delta_k - Delta)^2 / n^2 (law of total variance), so the pooled
  interval is valid and conservative for the conditional estimand weighted by matched cells per
  stratum; ``stratified_score_intervals`` removes that term.
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


# ---------------------------------------------------------------------------------------------
# the stratified paired score interval (strata = tasks): Tango's construction for a weighted mean of
# heterogeneous stratum differences


STRAT_ITER = 64  # bisection steps on the multiplier tau (each endpoint)


def _restricted_cells(pb: np.ndarray, pc: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per stratum, the restricted MLE (x, y) of the a-only and b-only cell probabilities at Lagrange
    multiplier tau (one per study, broadcast over its strata).

    Maximising sum_k [b_k log x_k + c_k log y_k + r_k log s_k] - lambda (sum_k w_k (x_k - y_k) - Delta),
    s_k = 1 - x_k - y_k, w_k = n_k / N, tau = lambda / N: stationarity gives, with m = p^r / s,
        x = p^b / (m + tau),  y = p^c / (m - tau),  f(m) = p^b/(m + tau) + p^c/(m - tau) + p^r/m - 1 = 0,
    p^ the stratum's observed proportions (each stratum's solution depends on tau alone). f is convex and
    decreasing on m > |tau|; when f(|tau|) <= 0 (a zero count on the cell whose denominator vanishes
    there), m = |tau| and that cell takes the rest -f(|tau|) (the KKT boundary: Tango's q > 0 with c = 0).
    Otherwise the root is the largest root of the cubic m^3 - m^2 - (tau^2 + tau (p^c - p^b)) m + p^r tau^2
    (f's numerator), polished in e = m - |tau| (no cancellation of |tau|, which runs to 1e15 at the
    parameter space's edge) by Newton steps: the first, from either side, lands left of the root (f is
    convex, so its tangent lies below it), and from there Newton rises monotonically to the root.
    """
    pr = 1.0 - pb - pc
    t = np.broadcast_to(tau, pb.shape)
    a = np.abs(t)
    props, dens = (pb, pc, pr), (a + t, a - t, a)  # m + tau, m - tau, m at e = 0
    live = [(p > 0, p, d) for p, d in zip(props, dens)]
    start = sum(np.where(pos & (d == 0), p, 0.0) for pos, p, d in live)  # f(start) >= 0: left of the root
    f0 = -1.0 + sum(np.where(pos & (d > 0), p / np.where(d > 0, d, 1.0), 0.0) for pos, p, d in live)
    boundary = (start == 0) & (f0 <= 0)

    def newton(e: np.ndarray) -> np.ndarray:
        f, df = -1.0, 0.0
        for pos, p, d in live:
            inv = np.where(pos, 1.0 / np.where(pos, e + d, 1.0), 0.0)
            f = f + p * inv
            df = df - p * inv * inv
        return e - f / df

    e = np.maximum(_largest_cubic_root(t * t + t * (pc - pb), pr * t * t) - a, start)
    for _ in range(6):
        e = np.maximum(newton(np.where(boundary, 1.0, e)), start)
    e = np.where(boundary, 0.0, e)
    x = np.where(pb > 0, pb / np.where(pb > 0, e + dens[0], 1.0), 0.0)
    y = np.where(pc > 0, pc / np.where(pc > 0, e + dens[1], 1.0), 0.0)
    slack = np.where(boundary, -f0, 0.0)
    return x + np.where(boundary & (t < 0), slack, 0.0), y + np.where(boundary & (t > 0), slack, 0.0)


def _largest_cubic_root(B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Largest real root of m^3 - m^2 - B m + C (trigonometric form with three real roots, Cardano's
    otherwise), with m = s + 1/3: s^3 + P s + Q = 0, P = -B - 1/3, Q = -2/27 - B/3 + C."""
    P = -B - 1.0 / 3
    Q = -2.0 / 27 - B / 3 + C
    D = Q * Q / 4 + P * P * P / 27
    neg = P < 0
    r = np.sqrt(np.where(neg, -P / 3, 1.0))
    arg = np.clip(np.where(neg, -Q / (2 * np.where(neg, r ** 3, 1.0)), 0.0), -1.0, 1.0)
    trig = 2 * r * np.cos(np.arccos(arg) / 3)
    sq = np.sqrt(np.maximum(D, 0.0))
    card = np.cbrt(-Q / 2 + sq) + np.cbrt(-Q / 2 - sq)
    return np.where(neg & (D <= 0), trig, card) + 1.0 / 3


def _stratified_z(b, c, n, tau) -> tuple[np.ndarray, np.ndarray]:
    """(Z, Delta) at multiplier tau: Delta = sum_k w_k (x_k - y_k) and Z = (Delta^ - Delta) / sqrt(sum_k n_k
    V_k / N^2), V_k = x_k + y_k - (x_k - y_k)^2 (one pair's variance at the restricted MLE)."""
    N = n.sum(axis=-1)
    x, y = _restricted_cells(b / n, c / n, tau[:, None])
    delta = ((x - y) * n).sum(axis=-1) / N
    var = (n * (x + y - (x - y) ** 2)).sum(axis=-1) / N**2
    num = (b - c).sum(axis=-1) / N - delta
    z = np.where(var > 0, num / np.sqrt(np.where(var > 0, var, 1.0)), np.where(num == 0, 0.0, np.copysign(np.inf, num)))
    return z, delta


def stratified_score_intervals(b, c, n, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised stratified paired score interval: arrays (studies, strata) of a-only, b-only and pair
    counts -> (lo, hi), one per study. Strata with n_k = 0 must be dropped first (they carry no weight).

    The estimand is the pooled difference's own target sum_k n_k delta_k / N (fixed weights n_k / N, under
    which the weighted estimate is the pooled (b - c)/N), with the stratum differences delta_k free to
    differ. The interval is {Delta: |Z(Delta)| <= z_{1-alpha/2}}, Z the
    estimate's deviation over its standard deviation at the MLE restricted to sum_k w_k delta_k = Delta
    (``_restricted_cells``): Tango's (1998) construction, with his one-table restricted MLE replaced by
    the stratified one, as Miettinen and Nurminen (1985, Stat Med 4:213) stratify their score interval,
    but without their common-difference restriction (their weights assume delta_k = Delta in every
    stratum; here only the weighted mean is restricted; Klingenberg 2014, Stat Med 33:2968, discusses
    score-type intervals with fixed strata weights, for paired data too). One stratum gives Tango's interval exactly; the pooled interval's
    variance adds the between-strata term sum_k n_k (delta_k - Delta)^2 / N^2, which this one removes.
    The endpoints are found by bisection on tau = u / (1 - u), u in [0, 1) for the lower (tau > 0) and
    (-1, 0] for the upper; Delta(tau) is monotone and lies in [-1, 1] for every tau.
    """
    b, c, n = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (b, c, n))
    if np.any(n <= 0) or np.any(b < 0) or np.any(c < 0) or np.any(b + c > n):
        raise ValueError("stratified_score_intervals: every stratum needs n_k > 0 and 0 <= b_k, c_k, b_k + c_k <= n_k")
    z = float(norm.ppf(1 - alpha / 2))
    est = (b - c).sum(axis=-1) / n.sum(axis=-1)
    lo = _endpoint(b, c, n, z, +1.0)
    hi = _endpoint(b, c, n, -z, -1.0)
    return np.where(est <= -1 + EDGE, -1.0, np.minimum(lo, est)), np.where(est >= 1 - EDGE, 1.0, np.maximum(hi, est))


def _endpoint(b, c, n, target: float, sign: float) -> np.ndarray:
    """Delta at the tau where Z(tau) crosses ``target`` (lower: target z, tau > 0; upper: -z, tau < 0);
    the parameter-space bound (-1 or +1) where Z never reaches it."""
    S = b.shape[0]
    u_lo, u_hi = np.zeros(S), np.full(S, 1.0 - 1e-15)
    reach = sign * _stratified_z(b, c, n, sign * u_hi / (1 - u_hi))[0] >= sign * target
    for _ in range(STRAT_ITER):
        u = 0.5 * (u_lo + u_hi)
        past = sign * _stratified_z(b, c, n, sign * u / (1 - u))[0] >= sign * target
        u_lo, u_hi = np.where(past, u_lo, u), np.where(past, u, u_hi)
    u = 0.5 * (u_lo + u_hi)
    delta = _stratified_z(b, c, n, sign * u / (1 - u))[1]
    return np.where(reach, delta, -sign)


def stratified_score_interval(strata: list[PairedCounts], alpha: float = 0.05) -> tuple[float, float] | None:
    """``stratified_score_intervals`` for one study's strata (empty strata dropped); None with no pairs."""
    kept = [s for s in strata if s.n > 0]
    if not kept:
        return None
    lo, hi = stratified_score_intervals([s.b for s in kept], [s.c for s in kept], [s.n for s in kept], alpha)
    return float(lo[0]), float(hi[0])
