import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests

import analysis.stats as st
from analysis.stats import (
    bh_adjust,
    bh_reject,
    cluster_sums,
    fisher_two_sided,
    naive_pandas_bootstrap,
    paired_cluster_bootstrap,
)


@pytest.mark.parametrize("seed", range(5))
def test_bh_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    p = np.concatenate([rng.uniform(0, 0.05, 5), rng.uniform(0, 1, 10), [0.01, 0.01, 1.0]])
    rej, q, _, _ = multipletests(p, alpha=0.05, method="fdr_bh")
    np.testing.assert_allclose(bh_adjust(p), q, atol=1e-12)
    np.testing.assert_array_equal(bh_reject(p, 0.05), rej)


def test_bh_hand_worked():
    # p sorted: 0.01, 0.02, 0.03, 0.5 with m = 4 -> 0.04, 0.04, 0.04, 0.5
    np.testing.assert_allclose(bh_adjust([0.03, 0.5, 0.01, 0.02]), [0.04, 0.5, 0.04, 0.04])
    assert len(bh_adjust([])) == 0


@pytest.mark.parametrize("ka,na,kb,nb", [(120, 120, 116, 120), (0, 5, 5, 5), (3, 10, 4, 12), (119, 120, 118, 120)])
def test_fisher_matches_scipy(ka, na, kb, nb):
    ref = fisher_exact([[ka, na - ka], [kb, nb - kb]], alternative="two-sided").pvalue
    assert fisher_two_sided(ka, na, kb, nb) == pytest.approx(ref, rel=1e-12)


def test_fisher_empty_denominator():
    assert fisher_two_sided(0, 0, 1, 2) is None


def test_cluster_sums():
    s_a, s_b, m = cluster_sums(["b", "a", "b", "a", "a"], [1, 0, 1, 1, 1], [0, 0, 1, 1, 0])
    assert s_a.tolist() == [2, 2] and s_b.tolist() == [1, 1] and m.tolist() == [3, 2]


def _data(rng, C=30, m=5, pa=0.8, pb=0.7):
    return rng.binomial(m, pa, C), rng.binomial(m, pb, C), np.full(C, m)


def test_bootstrap_deterministic_and_seed_sensitive():
    rng = np.random.default_rng(0)
    sa, sb, m = _data(rng, C=300, m=37)
    r1 = paired_cluster_bootstrap(sa, sb, m, B=500, seed=7)
    r2 = paired_cluster_bootstrap(sa, sb, m, B=500, seed=7)
    r3 = paired_cluster_bootstrap(sa, sb, m, B=500, seed=8)
    assert (r1.lo, r1.hi) == (r2.lo, r2.hi)
    assert (r1.lo, r1.hi) != (r3.lo, r3.hi)
    assert r1.estimate == pytest.approx((sa.sum() - sb.sum()) / m.sum())


def test_bootstrap_chunking_does_not_change_result(monkeypatch):
    rng = np.random.default_rng(1)
    sa, sb, m = _data(rng, C=40)
    full = paired_cluster_bootstrap(sa, sb, m, B=300, seed=3)
    monkeypatch.setattr(st, "CHUNK_ELEMS", 40 * 7)  # 7 rows per chunk
    chunked = paired_cluster_bootstrap(sa, sb, m, B=300, seed=3)
    assert (full.lo, full.hi) == (chunked.lo, chunked.hi)


def test_bootstrap_known_seed_value():
    """Pins the stream: a change of RNG or algorithm must be a visible, deliberate change."""
    args = ([5, 4, 5, 3, 1, 2, 5], [4, 4, 2, 3, 0, 2, 1], [5] * 7)
    r = paired_cluster_bootstrap(*args, B=200, seed=42)
    assert r.estimate == pytest.approx(9 / 35)
    assert r.lo == pytest.approx(0.05714285714285714, abs=1e-12)
    assert r.hi == pytest.approx(0.457857142857143, abs=1e-12)
    assert paired_cluster_bootstrap(*args, B=200, seed=42) == r


def test_bootstrap_counts_are_exact_integer_draws():
    """Each replicate counts C integer draws (platform-exact), i.e. a with-replacement resample."""
    C, rows = 6, 4
    w = st.bootstrap_counts(np.random.Generator(np.random.PCG64(9)), C, rows)
    idx = np.random.Generator(np.random.PCG64(9)).integers(0, C, size=(rows, C))
    assert (w == np.stack([np.bincount(r, minlength=C) for r in idx])).all()
    assert (w.sum(axis=1) == C).all()


def test_bootstrap_hand_worked_degenerate_cases():
    # every cluster identical -> every resample gives the same difference
    r = paired_cluster_bootstrap([3] * 6, [1] * 6, [4] * 6, B=100, seed=0)
    assert r.estimate == pytest.approx(0.5) and r.lo == pytest.approx(0.5) and r.hi == pytest.approx(0.5)
    # k = 0 and k = n for both arms -> 0 with a [0, 0] interval
    r = paired_cluster_bootstrap([0, 0], [0, 0], [5, 5], B=50, seed=0)
    assert (r.estimate, r.lo, r.hi) == (0.0, 0.0, 0.0)
    r = paired_cluster_bootstrap([5, 5], [5, 5], [5, 5], B=50, seed=0)
    assert (r.estimate, r.lo, r.hi) == (0.0, 0.0, 0.0)
    # k = n vs k = 0 -> +1 exactly
    r = paired_cluster_bootstrap([5, 5], [0, 0], [5, 5], B=50, seed=0)
    assert (r.estimate, r.lo, r.hi) == (1.0, 1.0, 1.0)
    # no matched cells -> n/a
    r = paired_cluster_bootstrap([], [], [], B=50, seed=0)
    assert r.estimate is None and r.lo is None


def test_bootstrap_two_clusters_hand_worked():
    # clusters (a-b, m): (+2, 2) and (0, 2). Resamples: both first (p=1/4) -> 1.0, one each (1/2)
    # -> 0.5, both second (1/4) -> 0.0. So the 2.5% / 97.5% percentiles are 0.0 and 1.0.
    r = paired_cluster_bootstrap([2, 1], [0, 1], [2, 2], B=4000, seed=5)
    assert r.estimate == 0.5 and r.lo == 0.0 and r.hi == 1.0


def test_bootstrap_coverage_known_difference():
    """Simulated studies with a known difference (0.10): the 95% interval covers it ~95% of the time."""
    rng = np.random.default_rng(2024)
    C, m, pa, pb = 40, 6, 0.75, 0.65
    true = pa - pb
    reps, hits = 200, 0
    for i in range(reps):
        # cluster heterogeneity shared by both arms (paired design)
        u = rng.normal(0, 0.05, C)
        sa = rng.binomial(m, np.clip(pa + u, 0, 1))
        sb = rng.binomial(m, np.clip(pb + u, 0, 1))
        r = paired_cluster_bootstrap(sa, sb, np.full(C, m), B=400, seed=i)
        hits += r.lo <= true <= r.hi
    cover = hits / reps
    assert 0.88 <= cover <= 0.99, cover


def test_agrees_with_naive_pandas_bootstrap():
    rng = np.random.default_rng(3)
    rows = []
    for c in range(25):
        for j in range(4):
            rows.append({"cl": f"c{c}", "ya": int(rng.random() < 0.8), "yb": int(rng.random() < 0.6)})
    df = pd.DataFrame(rows)
    sa, sb, m = cluster_sums(df["cl"], df["ya"], df["yb"])
    fast = paired_cluster_bootstrap(sa, sb, m, B=2000, seed=1)
    est, lo, hi = naive_pandas_bootstrap(df, "cl", "ya", "yb", B=300, seed=1)
    assert fast.estimate == pytest.approx(est)
    # different random streams: intervals agree to Monte Carlo error
    assert fast.lo == pytest.approx(lo, abs=0.04) and fast.hi == pytest.approx(hi, abs=0.04)
