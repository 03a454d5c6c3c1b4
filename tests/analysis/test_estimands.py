"""The two named estimands: Tango/Newcombe/McNemar against published values and statsmodels, CR2 with
Bell-McCaffrey df against a hand-worked case and a generic matrix implementation, and the refusals."""
from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import minimize_scalar
from statsmodels.stats.contingency_tables import mcnemar

from analysis.estimands import DOMINANT_SHARE, POP_MIN_CLUSTERS, cr2, population_block
from analysis.intervals import cluster_interval, cluster_se
from analysis.paired import PairedCounts, mcnemar_exact_p, newcombe_interval, tango_interval, tango_q

# Cavo et al. (2012), paired 2x2 [[59, 6], [16, 80]], as published in Fagerland, Lydersen and Laake
# (2014, Stat Med 33:2850; and their book's chapter 8): estimate -0.0621, Tango 95% (-0.1240, -0.0054),
# Newcombe's hybrid (square-and-add, Newcombe 1998 method 10) 95% (-0.1186, -0.0046).
CAVO = dict(n=161, b=6, c=16, k_a=65, k_b=75)


def test_tango_matches_the_published_interval():
    lo, hi = tango_interval(CAVO["n"], CAVO["b"], CAVO["c"])
    assert (round(lo, 4), round(hi, 4)) == (-0.1240, -0.0054)


def test_newcombe_matches_the_published_interval():
    lo, hi = newcombe_interval(**CAVO)
    assert (round(lo, 4), round(hi, 4)) == (-0.1186, -0.0046)


@pytest.mark.parametrize("n,b,c", [(161, 6, 16), (21, 1, 7), (50, 0, 4), (40, 9, 0), (1800, 29, 0)])
def test_tango_q_is_the_constrained_maximum_likelihood_estimate(n, b, c):
    """q(delta) maximises b log(q + delta) + c log q + (n - b - c) log(1 - 2q - delta) over q."""
    for delta in (-0.3, -0.05, 0.01, 0.2):
        lo, hi = max(0.0, -delta) + 1e-12, (1 - delta) / 2 - 1e-12

        def nll(q):
            return -(b * math.log(q + delta) + c * math.log(q) + (n - b - c) * math.log(1 - 2 * q - delta))

        best = minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).x
        assert tango_q(delta, n, b, c) == pytest.approx(best, abs=1e-6)


def test_tango_endpoints_solve_the_score_equation_and_stay_in_the_parameter_space():
    from analysis.paired import tango_z

    lo, hi = tango_interval(161, 6, 16)
    assert tango_z(lo, 161, 6, 16) == pytest.approx(1.959964, abs=1e-6)
    assert tango_z(hi, 161, 6, 16) == pytest.approx(-1.959964, abs=1e-6)
    for n, b, c in [(10, 10, 0), (10, 0, 10), (10, 0, 0), (3, 1, 1), (1, 1, 0)]:
        lo, hi = tango_interval(n, b, c)
        assert -1 <= lo <= (b - c) / n <= hi <= 1
    assert tango_interval(10, 10, 0)[1] == 1.0 and tango_interval(0, 0, 0) is None


@pytest.mark.parametrize("b,c", [(6, 16), (0, 5), (29, 0), (7, 7), (1, 0)])
def test_exact_mcnemar_matches_statsmodels(b, c):
    ref = mcnemar([[100, b], [c, 50]], exact=True).pvalue
    assert mcnemar_exact_p(b, c) == pytest.approx(ref, rel=1e-12)
    assert mcnemar_exact_p(0, 0) is None


def test_cr2_hand_worked_case():
    """d = (2, 0, -1), m = (2, 3, 5): N = 10, theta = 0.1, residuals (1.8, -0.3, -1.5);
    V = (1.8^2/0.8 + 0.3^2/0.7 + 1.5^2/0.5)/100 = (4.05 + 0.9/7 + 4.5)/100;
    M has diagonal m_c/N^2 (trace 1/N = 0.1) and sum of squares 400/7 * 1e-4, so df = 0.01 / (400/7e4) = 1.75."""
    f = cr2([2, 0, -1], [2, 3, 5])
    assert f.estimate == pytest.approx(0.1, abs=1e-15)
    assert f.se == pytest.approx(math.sqrt((4.05 + 0.9 / 7 + 4.5) / 100), rel=1e-13)
    assert f.df == pytest.approx(1.75, rel=1e-13)


def _cr2_generic(y: np.ndarray, groups: np.ndarray) -> tuple[float, float, float]:
    """CR2 + Bell-McCaffrey df for the intercept of OLS, from the matrix definitions (no shortcuts):
    A_c = (I - H_cc)^(-1/2) by eigendecomposition, V = sum_c (w' X_c' A_c e_c)^2, g_c = (I - H) P_c,
    df = tr(G'G)^2 / tr((G'G)^2)."""
    N = len(y)
    X = np.ones((N, 1))
    XtXi = np.linalg.inv(X.T @ X)
    H = X @ XtXi @ X.T
    e = y - H @ y
    G, V = [], 0.0
    for c in np.unique(groups):
        idx = np.flatnonzero(groups == c)
        w, U = np.linalg.eigh(np.eye(len(idx)) - H[np.ix_(idx, idx)])
        A = U @ np.diag(w ** -0.5) @ U.T
        p = np.zeros(N)
        p[idx] = (A @ X[idx] @ XtXi)[:, 0]
        V += float(p @ e) ** 2
        G.append((np.eye(N) - H) @ p)
    Gm = np.array(G)
    GG = Gm @ Gm.T
    return float((XtXi @ X.T @ y)[0]), math.sqrt(V), float(np.trace(GG) ** 2 / np.trace(GG @ GG))


def test_cr2_matches_the_matrix_definition_with_unequal_clusters():
    rng = np.random.default_rng(11)
    sizes = rng.integers(2, 12, size=9)
    groups = np.repeat(np.arange(9), sizes)
    y = (rng.random(len(groups)) < 0.8).astype(float) - (rng.random(len(groups)) < 0.6)
    d = np.bincount(groups, weights=y)
    est, se, df = _cr2_generic(y, groups)
    f = cr2(d, sizes)
    assert (f.estimate, f.se, f.df) == (pytest.approx(est, rel=1e-12), pytest.approx(se, rel=1e-10),
                                         pytest.approx(df, rel=1e-10))
    assert df < len(sizes) - 1  # unequal sizes: fewer effective df than C - 1
    # statsmodels' cluster-robust OLS (CR1): same point estimate; its s.e. is the project's cluster_se
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert f.estimate == pytest.approx(fit.params[0], rel=1e-12)
    assert cluster_se(d, sizes) == pytest.approx(fit.bse[0], rel=1e-10)
    assert f.se != pytest.approx(fit.bse[0], rel=1e-3)  # CR2 differs from CR1 when sizes differ


def test_cr2_equals_cr1_with_c_minus_1_df_for_equal_clusters():
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(12), 7)
    y = (rng.random(len(groups)) < 0.7).astype(float) - (rng.random(len(groups)) < 0.5)
    fit = sm.OLS(y, np.ones(len(y))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    f = cr2(np.bincount(groups, weights=y), np.full(12, 7))
    assert f.se == pytest.approx(fit.bse[0], rel=1e-10) and f.df == pytest.approx(11, rel=1e-12)


def _per_cluster(sa, sb, m):
    return [PairedCounts(int(mm), int(max(a - b, 0)), int(max(b - a, 0)), int(a), int(b))
            for a, b, mm in zip(sa, sb, m)]


def test_population_refuses_few_clusters_and_names_them():
    sa, sb, m = [5, 4, 6], [3, 4, 2], [6, 6, 6]
    p = population_block(np.subtract(sa, sb), m, ["t1", "t2", "t3"], _per_cluster(sa, sb, m), "task", 0.05)
    assert p["lo"] is None and p["reason"].startswith(f"3 tasks: fewer than {POP_MIN_CLUSTERS}")
    assert p["estimate"] == pytest.approx(6 / 18) and (p["numerator"], p["denominator"]) == (6, 18)


def test_population_dominated_by_one_task_prints_na_and_the_split():
    """The paper's H1 shape: 27 of 29 discordant cells in one task of 24 (0.956 of the CR2 variance)."""
    m = np.full(24, 75)
    sa = np.full(24, 75)
    sb = np.full(24, 75)
    sb[0], sb[1], sb[2] = 48, 74, 74
    labels = [f"t{i:02d}" for i in range(24)]
    p = population_block(sa - sb, m, labels, _per_cluster(sa, sb, m), "task", 0.05)
    assert p["lo"] is None and p["top_share"] > DOMINANT_SHARE and "see the split" in p["reason"]
    sp = p["split"]
    assert sp["dominant"]["cluster"] == "t00" and sp["dominant"]["conditional"]["discordant_a_only"] == 27
    assert sp["others"]["n_clusters"] == 23 and sp["others"]["conditional"]["n"] == 23 * 75
    assert sp["others"]["population"]["lo"] is not None and sp["others"]["population"]["split"] is None
    lo, hi = sp["dominant"]["conditional"]["lo"], sp["dominant"]["conditional"]["hi"]
    assert 0 < lo < 27 / 75 < hi <= 1


def test_population_never_leaves_the_parameter_space():
    """A wide CR2 interval that would pass +-1 is refused with its reason, never clipped."""
    m = np.full(8, 2)
    sa = np.array([2, 2, 2, 2, 0, 2, 2, 1])
    sb = np.array([0, 0, 0, 0, 2, 0, 1, 0])
    p = population_block(sa - sb, m, list("abcdefgh"), _per_cluster(sa, sb, m), "task", 0.001)
    assert p["lo"] is None and "parameter space" in p["reason"]
    r = cluster_interval(sa, sb, m, method="cluster-t", alpha=0.001)
    assert r.lo is None and "parameter space" in r.reason


def test_paper_marginals_give_a_conditional_interval_excluding_zero_and_an_honest_population(tmp_path):
    """Issue 24 acceptance: on records built to the paper's published marginals, H1 and H2 each have a
    finite conditional interval that excludes 0, and a population interval that is finite within
    [-100, +100] pp or n/a with its reason (here n/a: one task holds > 90% of the CR2 variance)."""
    import json

    from click.testing import CliRunner

    from analysis.paper import synthetic_paper_records
    from harness.cli.cli import main

    p = tmp_path / "paper.jsonl"
    synthetic_paper_records(p)
    r = CliRunner().invoke(main, ["analyze", str(p), "--out", str(tmp_path / "o"), "--no-figures"])
    assert r.exit_code == 0, r.output
    printed = r.output.splitlines()
    i1 = next(i for i, line in enumerate(printed) if line.startswith("H1 "))
    assert "conditional (the 1800 matched cells run): +1.6 pp = (29 a-only - 0 b-only)/1800 [+1.1, +2.3]" in printed[i1 + 1]
    assert "population over tasks (24 tasks): +1.6 pp = 29/1800, interval n/a: one task holds 95.6%" in printed[i1 + 2]
    i2 = next(i for i, line in enumerate(printed) if line.startswith("H2 "))
    assert "(4 a-only - 0 b-only)/120 [+0.1, +8.3] Tango score 95%" in printed[i2 + 1]
    assert "[-100.0" not in r.output and "+100.0]" not in r.output
    s = json.loads((tmp_path / "o" / "summary.json").read_text())
    for c in s["contrasts"][:2]:
        cond, pop = c["estimands"]["conditional"], c["estimands"]["population"]
        assert math.isfinite(cond["lo"]) and math.isfinite(cond["hi"]) and cond["lo"] > 0, c["id"]
        assert (c["lo"], c["hi"]) == (cond["lo"], cond["hi"])  # the conditional estimand is the headline
        if pop["lo"] is None:
            assert pop["reason"] and pop["split"] is not None, c["id"]
        else:
            assert -1 <= pop["lo"] <= pop["hi"] <= 1
    h1 = s["contrasts"][0]["estimands"]
    assert (h1["conditional"]["discordant_a_only"], h1["conditional"]["discordant_b_only"]) == (29, 0)
    assert h1["population"]["top_share"] == pytest.approx(0.956, abs=0.001)
    md = (tmp_path / "o" / "report.md").read_text()
    assert "H1 conditional (the 1800 matched cells run): +1.6 pp = (29 a-only - 0 b-only)/1800 [+1.1, +2.3]" in md
    assert "split, du-duration alone" in md and "[-100.0" not in md
