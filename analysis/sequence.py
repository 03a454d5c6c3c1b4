"""Anytime-valid confidence sequence for the running mean of bounded paired differences.

Estimand. Matched units i = 1, 2, ... enter in a pre-registered order; D_i = y_a - y_b in
{-1, 0, 1} is the paired difference of unit i and mu_i = E[D_i | units 1..i-1] its conditional
mean (unit i's own propensity difference: which task, scenario and repeat it is, not a draw from a
population). The sequence covers mu~_t = (1/t) sum_{i<=t} mu_i, the mean over the units run so far,
simultaneously for every t: P(for all t: mu~_t in CS_t) >= 1 - alpha, however often it is looked
at and whenever the study stops. It is not an interval for a population marginal (a population
of tasks the run did not draw); Bounded Loops (seed 001, Table 7) makes the same distinction.

Construction: the empirical-Bernstein confidence sequence of Howard, Ramdas, McAuliffe and Sekhon
(2021, Ann. Statist. 49(2), Theorem 4). With X_i in [a, b], c = b - a, and Xhat_{i-1} the running
mean of X_1..X_{i-1} (a predictable guess, Xhat_0 = 0), S_t = sum (X_i - mu_i) is sub-exponential
with variance process V_t = sum (X_i - Xhat_{i-1})^2 and scale c: for every lambda in [0, 1/c),
exp(lambda S_t - psi_E(lambda) V_t) is a nonnegative supermartingale, psi_E(l) = (-log(1 - c l) - c l)/c^2.
Mixing it over lambda (the gamma-exponential mixture below) gives one supermartingale m(S_t, V_t)
with m(0, 0) = 1, so by Ville's inequality S_t < u(V_t) for all t with probability >= 1 - alpha/2,
where u(v) = inf{s >= 0 : m(s, v) >= 2/alpha}. The same bound for -X gives the lower side:
    CS_t = [mean_t - u(V_t)/t, mean_t + u(V_t)/t], intersected with [a, b].

Gamma-exponential mixture (Howard et al. 2021, Proposition 9, derived here so it can be checked):
with mixing density proportional to exp(rho l / c) (1 - c l)^(rho/c^2 - 1) on [0, 1/c),
    log m(s, v) = G(a_v, B_sv) - G(a_0, B_0),   G(a, B) = B - a log B + log lower_gamma(a, B),
    a_v = (v + rho)/c^2,  B_sv = (c s + v + rho)/c^2,  a_0 = B_0 = rho/c^2.
``rho`` sets the intrinsic time V at which the boundary is tightest (``rho_for``, the rule for
normal mixtures in Howard et al. 2021, section 3.5); it must be fixed before the data are seen.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammainc, gammaln


def _log_lower_gamma(a, x):
    """log of the (unregularised) lower incomplete gamma function."""
    with np.errstate(divide="ignore"):
        return gammaln(a) + np.log(gammainc(a, x))


def log_mixture(s, v, rho: float, c: float):
    """log m(s, v) of the gamma-exponential mixture supermartingale (module docstring)."""
    s = np.asarray(s, dtype=np.float64)
    v = np.asarray(v, dtype=np.float64)
    c2 = c * c
    a = (v + rho) / c2
    B = (c * s + v + rho) / c2
    a0 = rho / c2
    G = B - a * np.log(B) + _log_lower_gamma(a, B)
    G0 = a0 - a0 * math.log(a0) + float(_log_lower_gamma(a0, a0))
    return G - G0


def boundary(v, alpha_side: float, rho: float, c: float, iters: int = 100) -> np.ndarray:
    """u(v) = inf{s >= 0 : log m(s, v) >= log(1/alpha_side)}, vectorised bisection (to ~1e-9 relative).

    m is increasing in s for s >= 0, so bisection finds the crossing; an upper bracket is found
    by doubling."""
    v = np.atleast_1d(np.asarray(v, dtype=np.float64))
    target = math.log(1.0 / alpha_side)
    lo = np.zeros_like(v)
    hi = np.sqrt(2.0 * (v + rho) * target) + c * target + 1.0
    for _ in range(200):
        short = log_mixture(hi, v, rho, c) < target
        if not short.any():
            break
        hi = np.where(short, 2.0 * hi, hi)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        above = log_mixture(mid, v, rho, c) >= target
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
        if np.all(hi - lo <= 1e-9 * np.maximum(1.0, hi)):
            break
    return hi


def rho_for(v_opt: float, alpha_side: float) -> float:
    """Mixture precision putting the tightest boundary near intrinsic time ``v_opt`` (Howard et al.
    2021, section 3.5, for the normal mixture: rho = v / (2 log(1/a) + log(1 + 2 log(1/a))))."""
    L = math.log(1.0 / alpha_side)
    return max(v_opt, 1e-9) / (2 * L + math.log(1 + 2 * L))


@dataclass(frozen=True)
class Sequence:
    """The confidence sequence after each of n units (arrays of length n)."""

    t: np.ndarray
    mean: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    V: np.ndarray
    alpha: float
    rho: float
    bounds: tuple[float, float]

    def at_end(self) -> dict:
        if len(self.t) == 0:
            return {"units": 0, "mean": None, "lower": None, "upper": None, "V": 0.0}
        return {"units": int(self.t[-1]), "mean": float(self.mean[-1]), "lower": float(self.lower[-1]),
                "upper": float(self.upper[-1]), "V": float(self.V[-1])}


def confidence_sequence(x, alpha: float = 0.05, rho: float = 1.0,
                        bounds: tuple[float, float] = (-1.0, 1.0)) -> Sequence:
    """Two-sided (1 - alpha) empirical-Bernstein confidence sequence for the running mean of the
    conditional means of x (in ``bounds``), given after every unit. ``rho``: fixed in advance."""
    a, b = bounds
    x = np.asarray(x, dtype=np.float64)
    if x.size and (x.min() < a or x.max() > b):
        raise ValueError(f"observations must lie in [{a}, {b}]")
    n = len(x)
    t = np.arange(1, n + 1)
    csum = np.cumsum(x)
    mean = csum / t
    xhat = np.concatenate([[min(max(0.0, a), b)], mean[:-1]])  # predictable: mean of earlier units
    V = np.cumsum((x - xhat) ** 2)
    u = boundary(V, alpha / 2, rho, b - a) if n else np.zeros(0)
    lower = np.maximum(a, mean - u / t)
    upper = np.minimum(b, mean + u / t)
    return Sequence(t, mean, lower, upper, V, alpha, rho, bounds)
