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


@pytest.mark.parametrize("p_disc,v_opt", [(0.1, 10.0), (0.6, 30.0)])
def test_type_one_error_under_the_null_when_peeked_after_every_unit(p_disc, v_opt):
    """Under H0 (each unit's difference is +1 or -1 with equal chance p_disc / 2, else 0) the
    sequence, looked at after every one of 400 units, ever excludes 0 in at most 5% of runs (its
    time-uniform guarantee; Ville's inequality makes it conservative), while the fixed-time Wald
    interval looked at the same way, from unit 10, rejects far more often; and the same sequence
    shrunk to a third is no longer valid (the check can fail)."""
    rng = np.random.default_rng(int(100 * p_disc))
    runs, n = 250, 400
    u = rng.random((runs, n))
    d = (u < p_disc / 2).astype(float) - ((u >= p_disc / 2) & (u < p_disc))
    rho = rho_for(v_opt, 0.025)
    t = np.arange(1, n + 1)
    mean = np.cumsum(d, axis=1) / t
    V = np.cumsum((d - np.concatenate([np.zeros((runs, 1)), mean[:, :-1]], axis=1)) ** 2, axis=1)
    half = boundary(V.ravel(), 0.025, rho, 2.0).reshape(V.shape) / t
    for i in range(3):  # the vectorised form is the public function's
        c = confidence_sequence(d[i], alpha=0.05, rho=rho)
        np.testing.assert_allclose(c.upper, np.minimum(1, mean[i] + half[i]))

    def rejections(h):
        return int(np.sum(np.any(np.abs(mean) > h, axis=1)))

    sd = np.sqrt(np.maximum(np.cumsum(d * d, axis=1) / t - mean ** 2, 0) * t / np.maximum(t - 1, 1))
    wald = 1.959964 * sd / np.sqrt(t)
    wald[:, :9] = np.inf  # looked at from unit 10
    assert rejections(half) / runs <= 0.05 and rejections(wald) / runs > 0.2
    assert rejections(half / 3) / runs > 0.05
