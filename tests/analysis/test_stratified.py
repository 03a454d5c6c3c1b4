"""The stratified paired score interval (``analysis.paired.stratified_score_intervals``): Tango's interval
with one stratum, a hand-worked case, the restricted MLE against a generic constrained optimiser
(scipy's SLSQP on the full multinomial likelihood), and the properties every interval must have."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from scipy.stats import norm

from analysis.paired import PairedCounts, stratified_score_interval, stratified_score_intervals, tango_interval

Z = float(norm.ppf(0.975))


@st.composite
def strata(draw, max_strata: int = 6):
    """A list of (n, b, c) strata: a-only b, b-only c, n >= b + c, n >= 1."""
    k = draw(st.integers(1, max_strata))
    out = []
    for _ in range(k):
        n = draw(st.integers(1, 60))
        b = draw(st.integers(0, n))
        c = draw(st.integers(0, n - b))
        out.append((n, b, c))
    return out


def _pcs(tables) -> list[PairedCounts]:
    return [PairedCounts(n, b, c, b, c) for n, b, c in tables]


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)).flatmap(
    lambda nb: st.tuples(st.just(nb[0]), st.just(nb[1]), st.integers(0, nb[0] - nb[1])))))
def test_one_stratum_is_tangos_interval(nbc):
    n, b, c = nbc
    assert stratified_score_interval(_pcs([nbc])) == pytest.approx(tango_interval(n, b, c), abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(strata())
def test_interval_lies_in_the_parameter_space_and_contains_the_estimate(tables):
    lo, hi = stratified_score_interval(_pcs(tables))
    est = sum(b - c for _, b, c in tables) / sum(n for n, _, _ in tables)
    assert -1.0 <= lo <= est <= hi <= 1.0
    assert lo < hi  # a score interval never has zero width (the variance at the restricted MLE is > 0 off Delta^)


@settings(max_examples=8, deadline=None)
@given(strata(max_strata=1), st.integers(2, 5))
def test_identical_strata_give_the_pooled_tango_interval(one, k):
    """k copies of one table: by symmetry every stratum's restricted difference is Delta, so the
    stratified statistic is Tango's on the pooled table (no between-strata variance to remove)."""
    n, b, c = one[0]
    got = stratified_score_interval(_pcs([(n, b, c)] * k))
    assert got == pytest.approx(tango_interval(k * n, k * b, k * c), abs=1e-9)


def test_hand_worked_all_concordant_strata():
    """b_k = c_k = 0 everywhere: past |tau| = 1 every stratum gives the same slack delta to one discordant
    cell, V = delta (1 - delta), Z^2 = N delta / (1 - delta) = z^2, so the interval is +-z^2 / (N + z^2)
    (Tango's with b = c = 0), with 24 strata of 75 pairs: N = 1800."""
    lo, hi = stratified_score_interval(_pcs([(75, 0, 0)] * 24))
    want = Z * Z / (1800 + Z * Z)
    assert (lo, hi) == pytest.approx((-want, want), abs=1e-12)


def _restricted_z_by_slsqp(tables, delta: float) -> float:
    """Z(delta) with the restricted MLE found by a generic optimiser: maximise the stratified multinomial
    log-likelihood over (x_k, y_k) subject to sum_k n_k (x_k - y_k) / N = delta (SLSQP, from a feasible
    start); independent of the Lagrangian bisection in ``analysis.paired``."""
    n = np.array([t[0] for t in tables], float)
    b = np.array([t[1] for t in tables], float)
    c = np.array([t[2] for t in tables], float)
    r, N, K = n - b - c, n.sum(), len(tables)

    def nll(v):
        x, y = v[:K], v[K:]
        s = 1 - x - y
        if np.any(s <= 0):  # SLSQP may step outside the simplex between its constraint checks
            return math.inf
        return -float(np.sum(b * np.log(x) + c * np.log(y) + r * np.log(s)))

    start = np.concatenate([np.full(K, (1 + delta) / 4), np.full(K, (1 - delta) / 4)])
    cons = [{"type": "eq", "fun": lambda v: float(np.sum(n * (v[:K] - v[K:])) / N - delta)},
            {"type": "ineq", "fun": lambda v: 1 - v[:K] - v[K:] - 1e-12}]
    res = minimize(nll, start, method="SLSQP", bounds=[(1e-12, 1)] * (2 * K), constraints=cons,
                   options={"ftol": 1e-15, "maxiter": 2000})
    x, y = res.x[:K], res.x[K:]
    var = float(np.sum(n * (x + y - (x - y) ** 2))) / N**2
    return (float(np.sum(b - c)) / N - delta) / math.sqrt(var)


@pytest.mark.parametrize("tables", [
    [(75, 28, 1)] + [(75, 1, 0)] * 5,          # one task holds the events
    [(40, 6, 2), (30, 0, 5), (50, 3, 3)],       # effects of both signs
    [(20, 4, 1), (20, 2, 2), (35, 9, 0), (15, 1, 1)],
])
def test_endpoints_solve_the_score_equation_with_an_independent_restricted_mle(tables):
    lo, hi = stratified_score_interval(_pcs(tables))
    assert _restricted_z_by_slsqp(tables, lo) == pytest.approx(Z, abs=2e-3)
    assert _restricted_z_by_slsqp(tables, hi) == pytest.approx(-Z, abs=2e-3)


def test_heterogeneous_strata_give_a_narrower_interval_than_pooled_tango():
    """One task holding the discordance (37% of its pairs) among 23 with 0.1%: the pooled variance adds
    sum_k n_k (delta_k - Delta)^2 / N^2, the stratified one does not (the benchmark's 98% over-coverage)."""
    tables = [(75, 28, 1)] + [(75, 1, 0)] * 23
    s_lo, s_hi = stratified_score_interval(_pcs(tables))
    p_lo, p_hi = tango_interval(1800, 51, 1)
    assert s_hi - s_lo < 0.95 * (p_hi - p_lo)
    assert s_lo > 0  # and it still excludes 0, as the pooled one does


def test_vectorised_rows_equal_one_study_at_a_time():
    b = np.array([[3, 0, 1], [0, 0, 0], [5, 5, 5]])
    c = np.array([[0, 2, 1], [1, 0, 0], [0, 0, 5]])
    n = np.array([[20, 20, 20], [10, 10, 10], [30, 10, 40]])
    lo, hi = stratified_score_intervals(b, c, n)
    for i in range(3):
        one = stratified_score_interval([PairedCounts(int(n[i, k]), int(b[i, k]), int(c[i, k]), 0, 0)
                                         for k in range(3)])
        assert (lo[i], hi[i]) == pytest.approx(one, abs=1e-12)


def test_empty_strata_are_dropped_and_bad_counts_refused():
    assert stratified_score_interval([PairedCounts(0, 0, 0, 0, 0)]) is None
    assert stratified_score_interval(_pcs([(10, 2, 0), (0, 0, 0)])) == pytest.approx(tango_interval(10, 2, 0), abs=1e-9)
    with pytest.raises(ValueError, match="n_k > 0"):
        stratified_score_intervals([[3]], [[3]], [[5]])


def test_conditional_block_carries_both_intervals_and_heads_with_the_chosen_one():
    from analysis.estimands import CONDITIONAL_HEADLINE, conditional_block

    strata = _pcs([(75, 28, 1)] + [(75, 1, 0)] * 23)
    pooled = PairedCounts(1800, 51, 1, 51, 1)
    e = conditional_block(pooled, 0.05, strata)
    assert e["stratified"]["n_strata"] == 24
    assert (e["stratified"]["lo"], e["stratified"]["hi"]) == pytest.approx(stratified_score_interval(strata))
    assert (e["tango"]["lo"], e["tango"]["hi"]) == pytest.approx(tango_interval(1800, 51, 1))
    assert e["interval"] == CONDITIONAL_HEADLINE and (e["lo"], e["hi"]) == (e[CONDITIONAL_HEADLINE]["lo"],
                                                                             e[CONDITIONAL_HEADLINE]["hi"])
    assert conditional_block(pooled, 0.05)["stratified"] is None  # no strata known
    one = conditional_block(pooled, 0.05, [pooled])  # one task: the stratified interval is Tango's
    assert (one["stratified"]["lo"], one["stratified"]["hi"]) == pytest.approx(tango_interval(1800, 51, 1))


def test_analyze_with_interval_stratified_heads_with_the_stratified_interval(tmp_path):
    from analysis.paper import synthetic_paper_records
    from analysis.pipeline import analyze

    p = tmp_path / "paper.jsonl"
    synthetic_paper_records(p)
    s = analyze(p, tmp_path / "o", B=50, seed=1, figures=False, interval="stratified")
    h1 = s["contrasts"][0]
    st = h1["estimands"]["conditional"]["stratified"]
    assert (h1["lo"], h1["hi"]) == (st["lo"], st["hi"]) and h1["method"]["method"] == "stratified"
    assert 0 < st["lo"] and st["hi"] - st["lo"] < h1["estimands"]["conditional"]["tango"]["hi"] - \
        h1["estimands"]["conditional"]["tango"]["lo"]


def test_power_with_the_stratified_interval_draws_the_same_studies_as_tango():
    """``simulate_power``'s stratified branch draws each study's cells as the Tango branch does (the same
    generator calls in the same order): with one task the two intervals are equal, so the powers are."""
    from analysis.power import simulate_power

    args = dict(p_a=0.99, p_b=0.9, tasks=1, scenarios=6, k=5, task_sd=0.5, sims=40, B=0, seed=3, cluster="task")
    assert simulate_power(**args, interval="stratified") == simulate_power(**args, interval="tango")
    many = dict(args, tasks=6, scenarios=1)
    p_s, _ = simulate_power(**many, interval="stratified")
    assert 0 < p_s <= 1


def test_coverage_study_one_task_setting_stratified_is_narrower_and_covers():
    """The bounded version of the benchmark's one-task-holds-the-events row (200 studies, seed 5): the
    stratified interval is narrower than the pooled one, covers its estimand, and renders in the
    conditional table beside Tango."""
    from analysis.coverage import PairSetting, estimand_coverage
    from benchmarks.bench_coverage import render_conditional

    rows = estimand_coverage(PairSetting("one task holds ~90% of events", p_bad=1 / 24), 200, 0, seed=5,
                             methods=[("tango", "cell"), ("stratified", "task")])
    tango, strat = (r["conditional"] for r in rows)
    assert strat["median_width_pp"] < 0.9 * tango["median_width_pp"]
    assert strat["lo"] <= 0.95 <= strat["hi"] and strat["absurd_share"] == 0 and strat["na_share"] == 0
    assert strat["coverage"] <= tango["coverage"]
    text = render_conditional(rows, "t")
    assert "stratified paired score, strata = tasks (conditional)" in text and "Tango, pooled" in text


def _cov_row(name: str, method: str, coverage: float, absurd: float = 0.0) -> dict:
    n = 2000
    return {"name": name, "method": method, "conditional": {
        "coverage": coverage, "hits": round(coverage * n), "given": n, "absurd_share": absurd}}


def test_preregistered_headline_rule_picks_stratified_only_when_every_clause_holds():
    """benchmarks.bench_coverage.headline_decision, clause by clause (PREREGISTERED_HEADLINE_RULE)."""
    from benchmarks.bench_coverage import headline_decision

    reported = [_cov_row("r1", "tango", 0.98), _cov_row("r1", "stratified", 0.962)]
    calib = [_cov_row("c1", "tango", 0.990), _cov_row("c1", "stratified", 0.977),  # out of band, nearer: ok
             _cov_row("c2", "tango", 0.95), _cov_row("c2", "stratified", 0.94)]
    assert headline_decision(reported, calib)[0] == "stratified"
    # (a) a reported setting out of the band, even if nearer than Tango
    assert headline_decision([_cov_row("r1", "tango", 0.99), _cov_row("r1", "stratified", 0.971)], calib)[0] == "tango"
    # (b) a calibration setting out of the band and not strictly nearer than Tango
    worse = calib + [_cov_row("c3", "tango", 0.975), _cov_row("c3", "stratified", 0.975)]
    choice, lines = headline_decision(reported, worse)
    assert choice == "tango" and any("c3" in ln and "FAILS" in ln for ln in lines)
    # (c) an absurd interval anywhere
    assert headline_decision([_cov_row("r1", "tango", 0.95), _cov_row("r1", "stratified", 0.95, 0.01)], calib)[0] == "tango"
