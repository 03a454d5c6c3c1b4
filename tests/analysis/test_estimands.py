"""The two named estimands: Tango/Newcombe/McNemar against published values and statsmodels, CR2 with
Bell-McCaffrey df against a hand-worked case and a generic matrix implementation, and the refusals."""
from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import minimize_scalar
from statsmodels.stats.contingency_tables import mcnemar

from analysis.estimands import (
    DOMINANT_SHARE,
    POP_MIN_CLUSTERS,
    POP_MIN_INFORMATIVE,
    cr2,
    hall_interval,
    population_block,
    population_df,
    population_interval,
)
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
    # G* = 1/sum(shares^2) over the CR2 terms (4.05, 0.9/7, 4.5); skewness of the residuals (1.8, -0.3, -1.5):
    # mean x^2 = 5.022/30, mean x^3 = 0.06561/3 (scaled by 1/mean(m)^k, which cancels)
    t = np.array([4.05, 0.9 / 7, 4.5])
    assert f.effective_clusters == pytest.approx(t.sum() ** 2 / (t**2).sum(), rel=1e-12)
    assert f.skewness == pytest.approx((0.06561 / 3) / (0.5022 / 3) ** 1.5, rel=1e-12)
    assert population_df(f) == pytest.approx(min(1.75, 2 * f.effective_clusters), rel=1e-12)


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
    # the other 23 differ in 2 tasks only: too few to estimate how the difference varies (n/a, no nested split)
    others = sp["others"]["population"]
    assert others["lo"] is None and others["split"] is None and others["informative_clusters"] == 2
    assert others["reason"].startswith(f"the arms differ in only 2 of 23 tasks (fewer than {POP_MIN_INFORMATIVE}")
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
    assert ("conditional (the 1800 matched cells run): +1.6 pp = (29 a-only - 0 b-only)/1800 [+1.2, +2.1] stratified "
            "score 95% (strata: 24 tasks); pooled Tango score [+1.1, +2.3]") in printed[i1 + 1]
    assert "population over tasks (24 tasks): +1.6 pp = 29/1800, interval n/a: one task holds 95.6%" in printed[i1 + 2]
    i2 = next(i for i, line in enumerate(printed) if line.startswith("H2 "))
    # H2: 5 null cells per task, too few for the stratified interval to head (stratified_headline_refusal)
    assert ("(4 a-only - 0 b-only)/120 [+0.1, +8.3] Tango score 95%; stratified by task (24 tasks) "
            "[+0.1, +6.4]") in printed[i2 + 1] and "120 matched cells over 24 tasks" in printed[i2 + 1]
    # one task alone: no stratified interval beside Tango's (it would be the same interval)
    assert "split, dep-pin alone: conditional (the 5 matched cells run): +80.0 pp = (4 a-only - 0 b-only)/5 " \
           "[+1.8, +96.4] Tango score 95%; exact McNemar" in r.output
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
    # the split's other 23 tasks: 2 discordant cells in 2 tasks, too few for a population claim
    others = h1["population"]["split"]["others"]["population"]
    assert others["lo"] is None and others["informative_clusters"] == 2 and "differ in only 2 of 23" in others["reason"]
    assert "split, the other 23 together: population over tasks (23 tasks): +0.1 pp = 2/1725, interval n/a: " \
           "the arms differ in only 2 of 23 tasks" in r.output
    # H3 (A4 vs A3: 14 a-only, 2 b-only in 10 tasks) prints a population interval, skewed to the long tail
    h3 = s["contrasts"][2]["estimands"]["population"]
    assert h3["reason"] is None and -1 <= h3["lo"] < h3["estimate"] < h3["hi"] <= 1
    assert h3["hi"] - h3["estimate"] > h3["estimate"] - h3["lo"] and h3["skewness"] > 0
    assert h3["df"] == pytest.approx(min(h3["bm_df"], 2 * h3["effective_clusters"])) and h3["df"] < 23
    md = (tmp_path / "o" / "report.md").read_text()
    assert "H1 conditional (the 1800 matched cells run): +1.6 pp = (29 a-only - 0 b-only)/1800 [+1.2, +2.1]" in md
    assert "split, du-duration alone" in md and "[-100.0" not in md


def test_effective_clusters_and_skewness_match_independent_formulas():
    """G* against Carter, Schnepel and Steigerwald's form C / (1 + Gamma), Gamma the squared coefficient
    of variation of the clusters' CR2 contributions (numpy's population variance); the skewness against
    scipy.stats.skew of the clusters' influence values (d_c - theta m_c) / mean(m)."""
    from scipy.stats import skew

    rng = np.random.default_rng(5)
    m = rng.integers(20, 80, size=15)
    d = rng.binomial(m, 0.1) - rng.binomial(m, 0.03)
    f = cr2(d, m)
    N = m.sum()
    theta = d.sum() / N
    gam = (d - theta * m) ** 2 / (1 - m / N)
    assert f.effective_clusters == pytest.approx(len(m) / (1 + np.var(gam) / np.mean(gam) ** 2), rel=1e-12)
    assert f.skewness == pytest.approx(skew((d - theta * m) / (N / len(m)), bias=True), rel=1e-12)
    eq = cr2(np.array([3, -3] * 6), np.full(12, 10))  # equal contributions: G* = C, no skew
    assert eq.effective_clusters == pytest.approx(12) and eq.skewness == pytest.approx(0, abs=1e-12)


@pytest.mark.parametrize("gamma", [-2.5, -0.7, 0.4, 1.3, 3.0])
def test_hall_interval_inverts_the_transformed_statistic(gamma):
    """The closed-form inverse against a root-finder on the defining equation |sqrt(C) g(W)| = q, g(W) =
    W + gamma W^2/3 + gamma^2 W^3/27 + gamma/(6C), W = (theta_hat - theta)/(sqrt(C) se)."""
    from scipy.optimize import brentq

    theta, se, C, q = 0.02, 0.006, 24, 2.07

    def stat(th):
        w = (theta - th) / (math.sqrt(C) * se)
        return math.sqrt(C) * (w + gamma * w * w / 3 + gamma**2 * w**3 / 27 + gamma / (6 * C))

    lo, hi = hall_interval(theta, se, gamma, C, q)
    assert brentq(lambda th: stat(th) - q, theta - 1, theta) == pytest.approx(lo, abs=1e-12)
    assert brentq(lambda th: stat(th) + q, theta, theta + 1) == pytest.approx(hi, abs=1e-12)
    # right skew (gamma > 0) extends the upper side, left skew the lower
    assert (hi - theta > theta - lo) == (gamma > 0)
    assert hall_interval(theta, se, 0.0, C, q) == pytest.approx((theta - q * se, theta + q * se), rel=1e-15)


def test_hall_interval_corrects_the_t_intervals_undercoverage_on_skewed_data():
    """The reason for the transformation (Hall 1992): on exponential samples of 20 the t interval misses
    the mean more often than nominal, mostly from below; Hall's interval is closer to 95%."""
    from scipy.stats import skew, t

    x = np.random.default_rng(8).exponential(1.0, size=(4000, 20))
    mean, se = x.mean(axis=1), x.std(axis=1, ddof=1) / math.sqrt(20)
    g = skew(x, axis=1, bias=True)
    q = t.ppf(0.975, 19)
    t_cov = np.mean(np.abs(mean - 1.0) <= q * se)
    iv = np.array([hall_interval(mu, s, gg, 20, q) for mu, s, gg in zip(mean, se, g)])
    h_cov = np.mean((iv[:, 0] <= 1.0) & (1.0 <= iv[:, 1]))
    assert t_cov < 0.935 and h_cov > t_cov + 0.01 and abs(h_cov - 0.95) < abs(t_cov - 0.95)


def test_population_refuses_when_the_arms_differ_in_too_few_tasks():
    """The rare-task failure: 24 tasks, the arms differ in 5 of them. The rule is decided on counts,
    whatever the interval would have been; with 8 informative tasks the interval is given."""
    m = np.full(24, 75)
    sa = np.full(24, 75)
    for k in (5, 8):
        sb = np.full(24, 75)
        sb[:k] = 73
        p = population_block(sa - sb, m, [f"t{i}" for i in range(24)], _per_cluster(sa, sb, m), "task", 0.05)
        assert p["informative_clusters"] == k
        if k < POP_MIN_INFORMATIVE:
            assert p["lo"] is None and "differ in only 5 of 24 tasks" in p["reason"] and p["split"] is None
        else:
            assert p["reason"] is None and -1 <= p["lo"] < p["estimate"] < p["hi"] <= 1
            assert p["df"] == pytest.approx(min(p["bm_df"], 2 * p["effective_clusters"]))
            from scipy.stats import t

            lo, hi = hall_interval(p["estimate"], p["se"], p["skewness"], 24, t.ppf(0.975, p["df"]))
            assert (p["lo"], p["hi"]) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))


@pytest.mark.parametrize("d,m,why", [
    ([3, 0, 0, 0, 0, 0, 0, 0, 0], [10, 0, 0, 0, 0, 0, 0, 0, 0], "no cells"),  # one cluster holds every cell
    ([1, -2, 3, 1, 2, 1, -1, 2, 0], [5, 5, 5, 5, 5, 5, 5, 5, 0], "no cells"),  # an empty cluster padding C
    ([float("nan"), 1, 2, 3, 1, 2, 1, 0, 1], [5] * 9, "non-finite"),
    ([float("inf"), 1, 2, 3, 1, 2, 1, 0, 1], [5] * 9, "non-finite"),
    ([1, 1, 2, 3, 1, 2, 1, 0, 1], [5, 5, 5, 5, 5, 5, 5, 5, -5], "no cells"),
])
def test_cr2_rejects_empty_negative_and_nonfinite_clusters(d, m, why):
    """Before the check, an empty cluster counted towards the 8-cluster minimum and Hall's C, a cluster
    holding every cell gave NaN (1/(1 - m_c/N) = inf), and NaN passed every refusal threshold (NaN
    compares False) or was refused with a wrong reason ("0.0 effective tasks")."""
    with pytest.raises(ValueError, match=why):
        cr2(d, m)
    with pytest.raises(ValueError, match=why):
        population_interval(d, m, 9, "task", 0.05)


def test_population_boundary_at_exactly_eight_clusters_and_with_single_cell_clusters():
    """7 clusters: n/a (count rule); 8: an interval. Single-cell clusters are clusters like any other."""
    d8, m8 = np.array([1, -2, 3, 0, 2, 1, -1, 2]), np.full(8, 5)
    assert population_interval(d8[:7], m8[:7], 7, "task", 0.05)[2].startswith("7 tasks: fewer than 8")
    fit, ci, reason = population_interval(d8, m8, 8, "task", 0.05)
    assert reason is None and fit is not None and ci is not None and ci[0] < fit.estimate < ci[1]
    d1 = np.array([1, 0, -1, 1, 1, 1, 1, -1, 1, 1])
    fit, ci, reason = population_interval(d1, np.ones(10), 8, "task", 0.05)
    assert reason is None and ci is not None and -1 <= ci[0] < 0.5 < ci[1] <= 1
    assert fit is not None and fit.df == pytest.approx(9)  # equal sizes: BM df = C - 1


def test_refusals_before_the_interval_do_not_depend_on_the_level():
    """Every rule but the parameter-space one is decided before any interval is formed, so it cannot
    depend on alpha (the only input that moves the interval and not the fit); the last rule does."""
    from analysis.estimands import pop_refusal

    m = np.full(8, 5)
    d = np.array([3, 2, 4, 1, -1, 2, 3, 1])
    fit = cr2(d, m)
    assert pop_refusal(8, "task", fit, 8, 0.05) is None
    assert "parameter space" in pop_refusal(8, "task", fit, 8, 0.001)
    for alpha in (0.2, 0.05, 0.001):
        assert pop_refusal(8, "task", fit, 7, alpha).startswith("the arms differ in only 7 of 8")


def test_printed_population_line_labels_g_star_not_twice_it_as_the_effective_clusters():
    """The df is min(BM, 2 G*); the effective number of clusters is G*, not 2 G* (the line said
    '2 G* = 7.1 effective tasks' for G* = 3.6)."""
    from analysis.report import fmt_population

    m = np.full(24, 75)
    sa = np.full(24, 75)
    sb = sa.copy()
    sb[:8] = 73
    sb[0] = 70
    p = population_block(sa - sb, m, [f"t{i}" for i in range(24)], _per_cluster(sa, sb, m), "task", 0.05)
    assert p["reason"] is None
    line = fmt_population(p)
    g = p["effective_clusters"]
    assert f"2 G* = {2 * g:.1f}; G* = {g:.1f} effective tasks" in line
    assert f"2 G* = {2 * g:.1f} effective" not in line


def test_parameter_space_refusal_names_halls_turning_point_when_that_is_the_cause():
    """8 tasks of 5 cells, one task at -3 among +1..+4: the t interval on the same df is [-0.09, +0.74],
    but Hall's inverse passes its stationary point (1 - |gamma| q/sqrt(C) - gamma^2/(6C) < 0) and the
    lower end runs to -1.34. The reason said 'the data cannot bound this difference'; it now names the
    transformation. A case inside the turning point keeps the data reason."""
    from scipy.stats import t

    from analysis.estimands import hall_turning_margin, pop_refusal

    fit = cr2([3, 2, 4, 1, -3, 2, 3, 1], np.full(8, 5))
    q = float(t.ppf(0.975, population_df(fit)))
    assert hall_turning_margin(fit.skewness, 8, q) < 0
    lo, _ = hall_interval(fit.estimate, fit.se, fit.skewness, 8, q)
    assert lo < -1 < fit.estimate - q * fit.se
    reason = pop_refusal(8, "task", fit, 8, 0.05)
    assert "parameter space" in reason and "past its turning point at skewness -1.27 on 8 tasks" in reason
    assert "cannot bound" not in reason
    # the cube-root argument at the turning margin is exactly the margin (hand check of the formula)
    g, C, qq = -1.27, 8, 2.7
    r = qq / math.sqrt(C)
    assert min(1 + g * (y - g / (6 * C)) for y in (r, -r)) == pytest.approx(hall_turning_margin(g, C, qq), abs=1e-15)


def test_printed_interval_past_halls_turning_point_says_so():
    """24 tasks of 75 cells, 8 with +2 and one of them +10 instead (skewness +3.3): the interval is printed
    (0.2 to 6.6 pp) but its upper end comes from the cubic's runaway branch; summary.json carries the
    margin and the line says which end. At +5 (skewness +1.65, margin +0.21) there is no note."""
    from analysis.report import fmt_population

    m = np.full(24, 75)
    for top, past in ((10, True), (5, False)):
        d = np.zeros(24, dtype=np.int64)
        d[:8] = 2
        d[0] = top
        sa, sb = np.full(24, 75), 75 - d
        p = population_block(d, m, [f"t{i}" for i in range(24)], _per_cluster(sa, sb, m), "task", 0.05)
        assert p["reason"] is None and (p["hall_turning_margin"] < 0) == past
        assert ("past its turning point" in fmt_population(p)) == past
        if past:
            assert "the upper end is set by its runaway branch" in fmt_population(p)


def test_no_variation_is_refused_even_when_rounding_leaves_a_tiny_se():
    """10 tasks of 49 cells, each with one a-only cell: every task's difference is exactly the mean, but
    1 - 49 * (10/490) rounds to about 1e-17, so the se was 7.6e-19 and a zero-width interval
    [+2.04, +2.04] pp was printed. It is the 'no variation' refusal; cluster-t warns the same way."""
    d, m = np.ones(10, dtype=np.int64), np.full(10, 49)
    fit, ci, reason = population_interval(d, m, 10, "task", 0.05)
    assert ci is None and reason.startswith("no variation between clusters")
    assert fit is not None and fit.se == 0.0 and fit.skewness == 0.0
    r = cluster_interval(d, np.zeros(10, dtype=np.int64), m, method="cluster-t")
    assert any("no between-cluster variation" in w for w in r.warnings)
