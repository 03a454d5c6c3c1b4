import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from harness.core.wilson import wilson, wilson_arrays


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 5), (5, 5), (3, 7), (1, 30), (112, 120), (116, 120),
                                 (120, 120), (2, 1800), (31, 1800), (1798, 1800), (500, 1000)])
def test_matches_statsmodels(k, n):
    p = wilson(k, n)
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert p.lo == pytest.approx(lo, abs=1e-12)
    assert p.hi == pytest.approx(hi, abs=1e-12)
    assert p.rate == k / n


def test_grid_matches_statsmodels_vectorised():
    n = np.repeat(np.arange(1, 60), 60)
    k = np.tile(np.arange(60), 59)
    ok = k <= n
    k, n = k[ok], n[ok]
    rate, lo, hi = wilson_arrays(k, n)
    slo, shi = proportion_confint(k, n, alpha=0.05, method="wilson")
    np.testing.assert_allclose(lo, slo, atol=1e-12)
    np.testing.assert_allclose(hi, shi, atol=1e-12)
    for kk, nn, a, b in zip(k[::37], n[::37], lo[::37], hi[::37]):
        s = wilson(int(kk), int(nn))
        assert (s.lo, s.hi) == pytest.approx((a, b), abs=1e-15)


@pytest.mark.parametrize("k,n,text", [(112, 120, "112/120 93.3% [87.4, 96.6]"),
                                      (116, 120, "116/120 96.7% [91.7, 98.7]"),
                                      (120, 120, "120/120 100.0% [96.9, 100.0]")])
def test_paper_table11_intervals(k, n, text):
    assert wilson(k, n).fmt() == text


def test_hand_worked_k0_and_kn():
    # k = 0: centre = (z^2/2n)/(1+z^2/n), half-width equals the centre -> lo = 0, hi = z^2/(n+z^2)
    z2 = 1.959963984540054 ** 2
    p0 = wilson(0, 10)
    assert p0.lo == 0.0 and p0.hi == pytest.approx(z2 / (10 + z2))
    assert p0.hi == pytest.approx(0.27753, abs=1e-5)
    pn = wilson(10, 10)
    assert pn.hi == 1.0 and pn.lo == pytest.approx(10 / (10 + z2))
    assert pn.lo == pytest.approx(0.72247, abs=1e-5)
    # 1/2: centre 0.5 exactly, symmetric
    p = wilson(1, 2)
    assert (p.lo + p.hi) / 2 == pytest.approx(0.5)


def test_empty_denominator_is_na():
    p = wilson(0, 0)
    assert p.rate is None and p.lo is None and p.hi is None
    assert p.fmt() == "n/a (0/0)"
    rate, lo, hi = wilson_arrays([0], [0])
    assert math.isnan(rate[0]) and math.isnan(lo[0]) and math.isnan(hi[0])


def test_bad_counts_rejected():
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(-1, 2)
