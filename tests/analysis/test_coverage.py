"""The coverage simulator: its estimand by quadrature against Monte Carlo, its data against the
marginal rates it claims, and the issue-13 finding it exists to catch."""
import numpy as np
import pytest
from scipy.special import expit

from analysis.coverage import Setting, coverage, simulate
from analysis.marginal import marginal_intercept, marginal_rate


def test_marginal_rate_and_intercept():
    assert marginal_rate(1.3, 0.0) == pytest.approx(expit(1.3))
    for p, sd in [(0.5, 1.0), (0.9, 2.0), (0.99, 0.5)]:
        assert marginal_rate(marginal_intercept(p, sd), sd) == pytest.approx(p, abs=1e-10)
    u = np.random.default_rng(0).normal(0, 2.0, 2_000_000)
    assert marginal_rate(1.0, 2.0) == pytest.approx(expit(1.0 + u).mean(), abs=1e-3)
    assert marginal_intercept(0.9, 2.0) > marginal_intercept(0.9, 0.0)  # a task effect lowers the mean
    with pytest.raises(ValueError):
        marginal_intercept(1.0, 1.0)


def test_simulated_counts_have_the_stated_marginal_rates():
    s = Setting(clusters=50, task_sd=1.0, base=0.9, effect=1.0, scenarios=4, repeats=3)
    a, b = simulate(s, 400, np.random.default_rng(1))
    n = a[0].size * s.repeats
    la, lb = s.logits
    assert b.sum(axis=(1, 2)).mean() / n == pytest.approx(0.9, abs=0.005)
    assert a.sum(axis=(1, 2)).mean() / n == pytest.approx(marginal_rate(la, 1.0), abs=0.005)
    assert s.true_difference() == pytest.approx((a.sum() - b.sum()) / (400 * n), abs=0.004)


def test_task_x_scenario_clusters_undercover_under_a_task_effect_and_task_clusters_do_not():
    """Issue 13's finding, reproduced by the shipped study: with task SD 1 the paper's scheme
    undercovers; the default (studentized-symmetric over tasks) holds nominal coverage."""
    rows = coverage(Setting(24, 1.0, 0.9, 1.0), [("percentile", "task x scenario"),
                                                 ("studentized-symmetric", "task")], n_sims=200, B=199, seed=7)
    paper, default = rows
    assert paper["hi"] < 0.93 and default["lo"] > 0.88 and default["coverage"] > paper["coverage"]
    assert {"truth", "hits", "n", "lo", "hi", "in_target", "mean_width"} <= set(default)


def test_rare_task_study_estimand_and_what_it_shows():
    """The paper's H1 shape: a difference carried by rare tasks. The estimand is hand-worked; with
    one bad task in 24 expected, a study draws none with probability (23/24)^24 = 36%, and there no
    interval over task clusters can cover, so no method holds 95%. The default (studentized-symmetric)
    is then very wide; cluster-t stays narrow and covers little more than the studies that drew a
    bad task."""
    from analysis.coverage import RareTaskSetting, coverage_rare_task

    rs = RareTaskSetting()
    assert rs.true_difference() == pytest.approx((27 / 75) / 24 + (23 / 24) * 2 / (23 * 75))
    rows = coverage_rare_task(rs, ["studentized-symmetric", "cluster-t"], n_sims=120, B=199, seed=3)
    sym, ct = rows
    assert sym["no_bad_task"] == ct["no_bad_task"] and 0.2 < sym["no_bad_task"] / 120 < 0.5
    assert ct["hits"] <= 120 - ct["no_bad_task"] + 5 and ct["hi"] < 0.93 and sym["hi"] < 0.97
    assert sym["median_width"] > 3 * ct["median_width"]  # given intervals only: it is n/a where unbounded


def test_zero_simulated_studies_give_no_coverage_and_no_target_verdict():
    # n_sims = 0: the Wilson rate is None ("n/a"); comparing it with the target band used to raise TypeError
    (row,) = coverage(Setting(8, 0.5, 0.3, 0.1), [("percentile", "task")], n_sims=0, B=50, seed=1)
    assert (row["n"], row["hits"], row["coverage"], row["in_target"], row["mean_width"]) == (0, 0, None, None, None)


def test_pair_simulator_estimands_and_counts():
    """The estimand study's data: pair counts sum to the cells, the arms' marginal rates are the
    stated ones, and the conditional estimand averages to the population one."""
    from analysis.coverage import PairSetting, simulate_pairs

    ps = PairSetting("t", task_sd=1.0, base=0.9, effect=1.0, scenarios=3, repeats=4)
    counts, cond = simulate_pairs(ps, 600, np.random.default_rng(2))
    assert counts.shape == (600, 24, 3, 4) and (counts.sum(axis=-1) == 4).all()
    n = 24 * 3 * 4
    k_b = (counts[..., 0] + counts[..., 2]).sum(axis=(1, 2)) / n
    assert k_b.mean() == pytest.approx(0.9, abs=0.004)
    assert cond.mean() == pytest.approx(ps.population_difference(), abs=0.004)
    assert cond.std() > 0.005  # tasks differ, so the conditional estimand moves from study to study


def test_estimand_study_conditional_interval_covers_and_population_refuses_when_one_task_holds_it():
    """Issue 24's study, bounded: the conditional (Tango) interval covers its estimand at the paper's
    effect with task SD 1 and has no absurd interval; in the one-task-holds-the-events setting the
    population interval is n/a in nearly every study (one task dominates, or the arms differ in fewer
    than 8 tasks: in the 36% of studies that drew no bad task no interval over tasks can cover), never absurd."""
    from analysis.coverage import PairSetting, estimand_coverage

    rows = estimand_coverage(PairSetting("sd1", 1.0, 0.983, 2.85), 150, 99, seed=5,
                             methods=[("tango", "cell"), ("population", "task")])
    tango, cr = rows
    assert tango["conditional"]["lo"] <= 0.95 <= tango["conditional"]["hi"] + 0.02
    assert tango["conditional"]["absurd_share"] == 0 and tango["conditional"]["na_share"] == 0
    assert tango["conditional"]["median_width_pp"] < cr["conditional"]["median_width_pp"]
    rare = estimand_coverage(PairSetting("rare", p_bad=1 / 24), 150, 99, seed=5, methods=[("population", "task")])[0]
    assert rare["population"]["na_share"] > 0.9 and rare["population"]["absurd_share"] == 0


def test_population_rule_prints_calibrated_intervals_where_the_earlier_one_undercovered():
    """The bounded version of ``python -m benchmarks coverage`` for the population estimand: at task SD 2
    and the paper's effect (rare events), CR2 on Bell-McCaffrey df undercovers the population difference;
    the population method (Hall-transformed, min(BM, 2 G*) df, refusals) covers when it prints, and
    still prints at task SD 0.5. 300 studies per setting (no bootstrap: about a second)."""
    from analysis.coverage import PairSetting, estimand_coverage

    methods = [("population", "task"), ("cr2-bm", "task")]
    pop, old = (r["population"] for r in estimand_coverage(PairSetting("sd2", 2.0, 0.983, 2.85), 300, 0, seed=11,
                                                               methods=methods))
    assert old["hi"] < 0.93 and pop["coverage"] > old["coverage"] + 0.05 and pop["hi"] >= 0.93
    assert pop["na_share"] > old["na_share"] and pop["absurd_share"] == 0
    low = estimand_coverage(PairSetting("sd05", 0.5, 0.983, 2.85), 300, 0, seed=11, methods=methods[:1])[0]["population"]
    assert low["na_share"] < 0.05 and low["lo"] <= 0.95 <= low["hi"]


def test_rejected_heterogeneity_candidate_ratio_hand_worked():
    """The calibration's rejected refusal rule: CR2 variance over the within-task variance. Tasks of 4
    cells with (b, c) = (2, 0) and (0, 0): within = ((2 - 4/4) * 4/3 + 0) / 8^2; theta = 1/4, residuals
    (1, -1), CR2 = (1 + 1) * 2 / 8^2; ratio 3."""
    from analysis.coverage import _heterogeneity_ratio

    assert _heterogeneity_ratio([2, 0], [0, 0], [4, 4]) == pytest.approx(3.0, rel=1e-12)
    assert _heterogeneity_ratio([0, 0], [0, 0], [4, 4]) == float("inf")


def test_estimand_table_prints_the_wilson_interval_beside_every_coverage():
    """Monte Carlo error beside each coverage: a coverage from 17 printed studies (the rare-task row) has a
    Wilson interval 31 pp wide, which a header's 0.5 pp s.e. (for 2,000 studies near 95%) misstates."""
    from benchmarks.bench_coverage import render_estimands, render_population
    from harness.core.wilson import wilson

    def block(k, n):
        w = wilson(k, n)
        return {"hits": k, "given": n, "n": 2000, "coverage": w.rate, "lo": w.lo, "hi": w.hi, "na_share": 1 - n / 2000,
                "median_width_pp": 23.7, "p95_width_pp": 40.0, "absurd_share": 0.0}

    row = {"name": "rare", "method": "population", "cluster": "task", "tasks": 24, "scenarios": 15, "repeats": 5,
           "n_sims": 2000, "B": 999, "seed": 1, "conditional": block(16, 17), "population": block(15, 17)}
    w = wilson(15, 17)
    want = f"88.2% (15/17) [{100 * w.lo:.1f}, {100 * w.hi:.1f}]"
    assert want in render_estimands([row]) and "[65.7, 96.7]" in want
    assert render_population([row], "t").count(want) == 1  # once, not twice
