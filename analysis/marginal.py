"""Marginal (population-averaged) rates under a task random effect on the logit scale.

With u ~ N(0, sd^2) shared by a task's cells, a cell's rate is expit(l + u); the rate over tasks,
the marginal rate, is E_u[expit(l + u)], computed by 80-point Gauss-Hermite quadrature. A
stated rate (``harness power --rate``, the coverage study's base rate) is a marginal rate, and
``marginal_intercept`` finds the average-task logit l that gives it.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(80)  # probabilists' Hermite: weight exp(-x^2/2)
_GH_W = _GH_W / _GH_W.sum()


def marginal_rate(logit: float, sd: float) -> float:
    """E[expit(logit + u)], u ~ N(0, sd^2)."""
    return float(np.sum(_GH_W * expit(logit + sd * _GH_X)))


def marginal_intercept(p: float, sd: float) -> float:
    """The logit l with E[expit(l + u)] = p, u ~ N(0, sd^2) (l = logit(p) when sd = 0)."""
    if not 0 < p < 1:
        raise ValueError(f"a marginal rate must be strictly between 0 and 1; got {p}")
    if sd == 0:
        return math.log(p / (1 - p))
    return brentq(lambda x: marginal_rate(x, sd) - p, -60.0, 60.0, xtol=1e-12)
