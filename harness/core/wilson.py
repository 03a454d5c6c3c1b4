"""Wilson score interval (Eq. 6 of the Proof-or-Stop paper; Wilson 1927).

Pure function; checked against statsmodels ``proportion_confint(method="wilson")``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


@dataclass(frozen=True)
class Proportion:
    """k successes out of n trials, with its Wilson interval. ``rate`` is None when n == 0."""

    k: int
    n: int
    rate: float | None
    lo: float | None
    hi: float | None
    method: str = "wilson95"

    def as_dict(self) -> dict:
        return {"k": self.k, "n": self.n, "rate": self.rate, "lo": self.lo, "hi": self.hi}

    def fmt(self, pct: bool = True) -> str:
        """'112/120 93.3% [87.4, 96.6]' or 'n/a (0/0)' for an empty denominator."""
        if self.n == 0 or self.rate is None or self.lo is None or self.hi is None:
            return "n/a (0/0)"
        if pct:
            return f"{self.k}/{self.n} {100*self.rate:.1f}% [{100*self.lo:.1f}, {100*self.hi:.1f}]"
        return f"{self.k}/{self.n} {self.rate:.3f} [{self.lo:.3f}, {self.hi:.3f}]"


def wilson(k: int, n: int, z: float = Z95) -> Proportion:
    """Wilson score interval for k/n. Empty denominator -> rate/lo/hi None ("n/a")."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Proportion(k, n, None, None, None)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo, hi = max(0.0, centre - half), min(1.0, centre + half)
    if k == 0:
        lo = 0.0
    if k == n:
        hi = 1.0
    return Proportion(k, n, p, lo, hi)


def wilson_arrays(k, n, z: float = Z95):
    """Vectorised Wilson interval: arrays (rate, lo, hi); NaN where n == 0. Same formula as wilson()."""
    import numpy as np

    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        z2 = z * z
        denom = 1 + z2 / n
        centre = (p + z2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
        lo = np.clip(centre - half, 0.0, 1.0)
        hi = np.clip(centre + half, 0.0, 1.0)
    lo = np.where(k == 0, 0.0, lo)
    hi = np.where(k == n, 1.0, hi)
    empty = n == 0
    return (np.where(empty, np.nan, p), np.where(empty, np.nan, lo), np.where(empty, np.nan, hi))


def pp(x: float | None, digits: int = 1, signed: bool = False) -> str:
    """A fraction as percentage points / percent text; None -> 'n/a'."""
    if x is None:
        return "n/a"
    return f"{100 * x:+.{digits}f}" if signed else f"{100 * x:.{digits}f}"
