"""Betting confidence sequence for the mean of bounded paired differences (Waudby-Smith and Ramdas 2024,
JRSS-B 86(1):1, "Estimating means of bounded random variables by betting").

Each matched unit's difference D in {-1, 0, 1} is mapped to X = (D + 1)/2 in [0, 1]. For a candidate
mean m of X a gambler bets on X - m with a predictable signed stake l_i(m):
    K_t(m) = prod_{i<=t} (1 + l_i(m) (X_i - m)),   l_i(m) in [-C/(1 - m), C/m],
so the capital stays positive. If E[X_i | units 1..i-1] = m for every i, K_t(m) is a nonnegative
martingale with K_0 = 1, so by Ville's inequality P(exists t: K_t(m) >= 1/alpha) <= alpha, and
    CS_t = {m : K_s(m) < 1/alpha for every s <= t}     (the running intersection)
holds m at every look and any stopping time with probability >= 1 - alpha. The stake may take either
sign, so one capital process gives a two-sided sequence.

Stakes: WSR's approximate GRAPA (aGRAPA, the plug-in growth-rate-optimal bet):
    l_i(m) = (mu_{i-1} - m) / (s2_{i-1} + (mu_{i-1} - m)^2), truncated to [-C/(1 - m), C/m],
with mu_t = (1/2 + sum_{j<=t} X_j)/(t + 1), s2_t = (1/4 + sum_{j<=t} (X_j - mu_j)^2)/(t + 1) (their
regularised predictable estimates) and C = ``TRUNC`` = 3/4. The set is computed on a grid of m; each
endpoint is rounded outward to the grid (``GRID`` points: 0.05 pp in D). Whether it excludes 0 is read
at 0, a grid point: the capital at 0 reaching 1/alpha (``excludes_zero``, the rule ``first_exclusion``
and ``harness power --monitor`` count).

What it guarantees here. "Excludes 0" is a level-alpha test, valid at any stopping time, of the null
that every unit's conditional mean difference is 0 (then E[X_i | past] = 1/2 exactly, whatever the
unit's task): that is the monitor's type-I guarantee, checked by a peeking simulation with task random
effects in the test suite. As an interval it covers a common conditional mean; when units differ
(heterogeneous tasks), the empirical-Bernstein sequence (``analysis.sequence``), valid for the
running mean of the units' own differences, stays beside it. Why bet: with rare discordant units the
capital grows at the Kelly rate of the likelihood ratio, where a Bernstein boundary pays for the whole
range of D; at the paper's effect it needs well under half the units (``harness power --monitor``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TRUNC = 0.75
GRID = 4001  # candidate differences on [-1, 1]: 0.0005 apart (0.05 pp)
CHUNK = 2_000_000  # grid x units values held at once


def log_capital(d: np.ndarray, m_d: float | np.ndarray, alpha: float) -> np.ndarray:
    """log K_t(m) for every t, for D (shape (..., n)) and candidate differences m_d (a scalar, or a
    column of shape (k, 1) against a single row of D)."""
    x = (np.asarray(d, dtype=np.float64) + 1) / 2
    m = (np.asarray(m_d, dtype=np.float64) + 1) / 2
    n = x.shape[-1]
    i = np.arange(1, n + 1, dtype=np.float64)
    mu = (0.5 + np.cumsum(x, axis=-1)) / (i + 1)
    s2 = (0.25 + np.cumsum((x - mu) ** 2, axis=-1)) / (i + 1)
    lead = x.shape[:-1] + (1,)
    mu_p = np.concatenate([np.full(lead, 0.5), mu[..., :-1]], axis=-1)
    s2_p = np.concatenate([np.full(lead, 0.25), s2[..., :-1]], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = (mu_p - m) / (s2_p + (mu_p - m) ** 2)
        lam = np.clip(lam, -TRUNC / (1 - m), TRUNC / m)
        return np.cumsum(np.log1p(lam * (x - m)), axis=-1)


def first_exclusion(d: np.ndarray, alpha: float, m_d: float = 0.0) -> np.ndarray:
    """Per row of d (shape (sims, n), entries in [-1, 1]): the first unit count t at which the
    sequence excludes the difference m_d (capital >= 1/alpha), or n + 1 if it never does."""
    hit = log_capital(d, m_d, alpha) >= math.log(1 / alpha)
    n = np.shape(d)[-1]
    return np.where(hit.any(axis=-1), hit.argmax(axis=-1) + 1, n + 1)


@dataclass(frozen=True)
class BettingSequence:
    """The sequence for D after the last unit: mean, lower, upper (None before any unit)."""

    units: int
    mean: float | None
    lower: float | None
    upper: float | None
    alpha: float
    excludes_zero: bool | None = None  # the capital at m = 0 reached 1/alpha at some look (first_exclusion's rule)


def betting_sequence(d, alpha: float = 0.05) -> BettingSequence:
    """The hedged-capital betting confidence sequence for the mean of D in [-1, 1] after all units
    (running intersection over every look, so it never widens)."""
    d = np.asarray(d, dtype=np.float64)
    n = len(d)
    if n == 0:
        return BettingSequence(0, None, None, None, alpha)
    if d.min() < -1 or d.max() > 1:
        raise ValueError("observations must lie in [-1, 1]")
    ms = np.linspace(-1.0, 1.0, GRID)[1:-1, None]  # open interval: the stake bound C/m needs m in (0, 1)
    step = max(1, CHUNK // n)  # grid rows per block, so memory stays bounded for long runs
    excluded = np.concatenate([(log_capital(d[None, :], ms[k:k + step], alpha) >= math.log(1 / alpha)).any(axis=-1)
                               for k in range(0, len(ms), step)])
    keep = np.flatnonzero(~excluded)
    mean = float(d.mean())
    if keep.size == 0:  # cannot happen for alpha < 1 in exact arithmetic; say so rather than invent
        raise ValueError("the betting sequence excluded every candidate mean (numerical failure)")
    grid = np.linspace(-1.0, 1.0, GRID)
    lo_i, hi_i = keep[0], keep[-1] + 2  # indices into the full grid, one step outward
    # "excludes 0" is read at 0 itself (a grid point), not from the outward-rounded ends: the ends are the
    # excluded grid points next to the kept set, so a set just above 0 has lower == 0 with 0 excluded (the
    # monitor then stopped one grid point late, later than `harness power --monitor` counts; review r37)
    zero = GRID // 2 - 1  # 0's row in ms (the grid without its two ends)
    return BettingSequence(n, mean, float(grid[lo_i]), float(grid[hi_i]), alpha, bool(excluded[zero]))
