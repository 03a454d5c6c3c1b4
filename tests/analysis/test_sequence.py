"""The confidence sequence: closed form against numerical integration, a hand-worked variance
process, and its time-uniform coverage under peeking (with controls that must fail)."""
import math

import numpy as np
import pytest
from scipy.integrate import quad

from analysis.coverage import PeekSetting, peeking
from analysis.sequence import boundary, confidence_sequence, log_mixture, rho_for


@pytest.mark.parametrize("s,v,rho,c", [(0, 0, 3, 2), (1, 2, 3, 2), (5, 10, 0.5, 2), (10, 3, 7, 2), (0.5, 40, 3, 1)])
def test_mixture_closed_form_matches_numerical_integration(s, v, rho, c):
    """m(s, v) = int exp(l s - psi_E(l) v) dF(l) over [0, 1/c) with the gamma-exponential density."""
    def psi(lam):
        return (-math.log1p(-c * lam) - c * lam) / c ** 2

    def dens(lam):
        return math.exp(rho * lam / c) * (1 - c * lam) ** (rho / c ** 2 - 1)

    z = quad(dens, 0, 1 / c, limit=200)[0]
    num = quad(lambda lam: math.exp(lam * s - psi(lam) * v) * dens(lam), 0, 1 / c, limit=200)[0]
    assert float(log_mixture(s, v, rho, c)) == pytest.approx(math.log(num / z), abs=1e-8)


def test_boundary_is_the_crossing_point_and_grows_with_v():
    v = np.array([0.0, 1.0, 10.0, 100.0, 1000.0])
    u = boundary(v, 0.025, 5.0, 2.0)
    np.testing.assert_allclose(log_mixture(u, v, 5.0, 2.0), math.log(40), atol=1e-6)
    assert np.all(np.diff(u) > 0) and np.all(log_mixture(u * 0.99, v, 5.0, 2.0) < math.log(40))


def test_variance_process_and_interval_hand_worked():
    # x = 1, 0, -1; predictable guesses 0 (start), 1, 0.5 -> V = 1, 2, 4.25
    cs = confidence_sequence([1, 0, -1], alpha=0.05, rho=2.0)
    np.testing.assert_allclose(cs.V, [1.0, 2.0, 4.25])
    np.testing.assert_allclose(cs.mean, [1.0, 0.5, 0.0])
    u = boundary(cs.V, 0.025, 2.0, 2.0)
    np.testing.assert_allclose(cs.upper, np.minimum(1, cs.mean + u / np.arange(1, 4)))
    np.testing.assert_allclose(cs.lower, np.maximum(-1, cs.mean - u / np.arange(1, 4)))
    with pytest.raises(ValueError):
        confidence_sequence([2])


def test_rho_rule_is_the_normal_mixture_rule():
    a = 0.025
    assert rho_for(100, a) == pytest.approx(100 / (2 * math.log(40) + math.log(1 + 2 * math.log(40))))


SMALL = PeekSetting(tasks=6, task_sd=1.0, base=0.7, effect=0.5, scenarios=5, repeats=4)


def test_peeking_sequence_keeps_coverage_fixed_time_does_not():
    """Looked at after every unit: the sequence covers the running mean of the units' propensities
    at every look in >= 95% of studies; the fixed-time interval looked at the same way does not,
    though it is right at one fixed time."""
    r = peeking(SMALL, 400, seed=3)
    assert r["sequence_all_looks"]["lo"] >= 0.95 * 0.98 and r["sequence_all_looks"]["coverage"] >= 0.95
    assert r["fixed_time_peeked"]["hi"] < 0.9
    assert 0.9 <= r["fixed_time_final"]["coverage"] <= 0.99


def test_peeking_controls_fail_when_the_sequence_is_shrunk():
    """The check is not vacuous: the same sequence shrunk to a third loses its coverage."""
    r = peeking(SMALL, 400, seed=3, scale=1 / 3)
    assert r["sequence_all_looks"]["coverage"] < 0.9
