import json

import numpy as np
import pytest
from click.testing import CliRunner

from analysis.power import simulate_power
from harness.cli.cli import main
from tests.analysis.conftest import rec, write_jsonl


def test_power_increases_with_k_and_is_seeded():
    lo = simulate_power(0.9, 0.8, 6, 2, 2, 0.0, 40, 100, 1, "task x scenario")
    hi = simulate_power(0.9, 0.8, 6, 2, 20, 0.0, 40, 100, 1, "task x scenario")
    assert hi[0] > lo[0]
    assert simulate_power(0.9, 0.8, 6, 2, 2, 0.0, 40, 100, 1, "task x scenario") == lo


def test_power_no_difference_is_near_alpha():
    p, _ = simulate_power(0.8, 0.8, 10, 3, 5, 0.0, 60, 100, 2, "task x scenario")
    assert p <= 0.2


def test_cli_power_from_rates(tmp_path):
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.95", "--rate", "A2p=0.75", "--tasks", "6",
                                  "--scenarios", "2", "--k", "2,10", "--sims", "30", "--B", "100",
                                  "--json-out", str(tmp_path / "p.json")])
    assert r.exit_code == 0, r.output
    res = json.loads((tmp_path / "p.json").read_text())
    assert [row["k"] for row in res["rows"]] == [2, 10] and res["refused"] is False
    # every printed power carries its numerator and denominator (studies whose interval excludes 0)
    for row in res["rows"]:
        assert row["sims"] == 30 and row["hits"] == round(row["power"] * 30)
        assert f"| {row['k']} | {row['cells_per_arm']} | {row['hits']}/30 = {row['power']:.3f} |" in r.output


def test_cli_power_refuses_outside_planning_band(tmp_path):
    """Section 9: pilot control base rate 1/30 against a pre-registered band [0.5, 0.8] -> refuse."""
    recs = [rec("A4", f"t{i}", "null", 1, "completed") for i in range(30)]
    recs += [rec("A2p", f"t{i}", "null", 1, "completed" if i == 0 else "false_stop") for i in range(30)]
    pilot = write_jsonl(tmp_path / "pilot.jsonl", recs)
    r = CliRunner().invoke(main, ["power", "--pilot", str(pilot), "--endpoint", "completion", "--band", "0.5,0.8",
                                  "--sims", "5", "--B", "20"])
    assert r.exit_code != 0
    assert "1/30 0.033 [0.006, 0.167]" in r.output and "NOT sized" in r.output


def test_cli_power_needs_rates():
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.9"])
    assert r.exit_code != 0 and "A2p" in r.output


def test_rates_are_marginal_under_a_task_effect():
    """Issue 13: --rate is the marginal rate; with --task-sd the simulation converts it to average-task
    logits, so the simulated studies' pooled rates equal the stated ones (0.99/0.98 used to become
    0.984/0.969 marginally)."""
    import numpy as np
    from scipy.special import expit

    from analysis.marginal import marginal_rate
    from analysis.power import conditional_logit

    for p in (0.99, 0.98, 0.5):
        assert marginal_rate(conditional_logit(p, 1.0), 1.0) == pytest.approx(p, abs=1e-9)
    assert expit(conditional_logit(0.98, 1.0)) > 0.98  # the average task does better than the mean
    assert expit(conditional_logit(0.5, 1.0)) == pytest.approx(0.5)
    u = np.random.default_rng(0).normal(0, 1.0, 1_000_000)
    assert expit(conditional_logit(0.98, 1.0) + u).mean() == pytest.approx(0.98, abs=5e-4)
    assert conditional_logit(1.0, 1.0) == float("inf") and conditional_logit(0.0, 2.0) == float("-inf")


def test_cli_power_states_marginal_and_average_task_rates(tmp_path):
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.99", "--rate", "A2p=0.98", "--task-sd", "1",
                                  "--tasks", "4", "--scenarios", "2", "--k", "2", "--sims", "5", "--B", "20",
                                  "--json-out", str(tmp_path / "p.json")])
    assert r.exit_code == 0, r.output
    assert "assumed marginal not_amplified rates (over tasks): A4 = 0.99, A2p = 0.98" in r.output
    assert "average-task rates A4 = 0.99" in r.output and "marginal difference +0.01" in r.output
    res = json.loads((tmp_path / "p.json").read_text())
    assert res["rates"]["scale"] == "marginal (over tasks)" and res["rates"]["average_task"]["A4"] > 0.99
    assert res["design"]["cluster"] == "task" and res["design"]["interval"] == "stratified"


@pytest.mark.parametrize("args", [["--rate", "A4"], ["--rate", "A4=2", "--rate", "A2p=0.5"], ["--k", "0"],
                                  ["--rate", "A4=0.9"], ["--band", "0.9,0.1", "--rate", "A4=0.9", "--rate", "A2p=0.8"]])
def test_cli_power_bad_input_exits_2(args):
    r = CliRunner().invoke(main, ["power", *args, "--sims", "2", "--B", "5"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output


def test_cli_power_with_one_cluster_is_na_not_zero(tmp_path):
    """With one task clustered by task no simulated study has an interval (n/a (1 cluster)); the
    power used to print as 0.000 with MC s.e. 0.000, a number for a design that cannot be analysed."""
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.99", "--rate", "A2p=0.5", "--tasks", "1",
                                  "--k", "3", "--sims", "5", "--B", "20", "--interval", "studentized-symmetric"])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "1 cluster" in r.output and "0.000" not in r.output


def test_power_with_the_conditional_interval_needs_no_clusters():
    """The default (the stratified score interval, conditional estimand; with one task it is Tango's)
    exists with one task; at a large effect it has power."""
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.99", "--rate", "A2p=0.5", "--tasks", "1",
                                  "--k", "3", "--sims", "20"])
    assert r.exit_code == 0, r.output
    assert "stratified" in r.output and "| 3 | 45 | 20/20 = 1.000 |" in r.output


def test_cli_power_warns_below_the_methods_minimum_clusters():
    """The interval is calibrated from MIN_CLUSTERS up (docs/explanation/estimands.md, Calibration): below it the power
    table carries the same warning `analyze` prints beside such an interval."""
    from analysis.intervals import MIN_CLUSTERS

    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.99", "--rate", "A2p=0.5", "--tasks", "4",
                                  "--scenarios", "2", "--k", "2", "--sims", "5", "--B", "20",
                                  "--interval", "studentized-symmetric"])
    assert r.exit_code == 0, r.output
    assert f"WARNING: 4 clusters (< {MIN_CLUSTERS['studentized-symmetric']})" in r.output
    r = CliRunner().invoke(main, ["power", "--rate", "A4=0.99", "--rate", "A2p=0.5", "--tasks", "96",
                                  "--scenarios", "1", "--k", "1", "--sims", "5", "--interval", "cluster-t"])
    assert r.exit_code == 0 and "WARNING" not in r.output, r.output  # 96 clusters: the documented minimum


# -- exact fixed-n power (harness power --monitor) ----------------------------------------------------------
def _brute_force_power(p_a: float, p_b: float, n: int) -> tuple[float, float]:
    """Every (b, c) of n units, weighted by its multinomial probability: statsmodels' exact McNemar p <= 0.05,
    and the score statistic |b - c| / sqrt(b + c) > z."""
    from scipy.stats import multinomial, norm
    from statsmodels.stats.contingency_tables import mcnemar

    up, dn = p_a * (1 - p_b), (1 - p_a) * p_b
    exact = score = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            w = multinomial.pmf([b, c, n - b - c], n, [up, dn, 1 - up - dn])
            if b + c and mcnemar([[0, b], [c, 0]], exact=True).pvalue <= 0.05:
                exact += w
            if b + c and abs(b - c) / (b + c) ** 0.5 > norm.ppf(0.975):
                score += w
    return exact, score


@pytest.mark.parametrize("p_a,p_b,n", [(0.7, 0.4, 12), (0.9, 0.6, 25), (0.999, 0.983, 40), (0.5, 0.5, 15)])
def test_exact_fixed_n_power_equals_brute_force_enumeration(p_a, p_b, n):
    from analysis.power import exact_fixed_n_power

    got = exact_fixed_n_power(p_a, p_b, [n])
    exact, score = _brute_force_power(p_a, p_b, n)
    assert got["mcnemar_exact"][0] == pytest.approx(exact, abs=1e-12)
    assert got["tango"][0] == pytest.approx(score, abs=1e-12)


def test_exact_mcnemar_power_hand_worked():
    """n = 6 units at alpha 0.05: the exact test rejects only when all 6 are discordant one way (2 / 2^6 = 0.031;
    with 5 discordant, 2 / 2^5 = 0.0625 > 0.05). p_a = 0.75, p_b = 0.5: p10 = 0.375, p01 = 0.125, so the power
    is 0.375^6 + 0.125^6 = (729 + 1) / 262,144 = 0.00278472900390625."""
    from analysis.power import exact_fixed_n_power

    got = exact_fixed_n_power(0.75, 0.5, [5, 6])["mcnemar_exact"]
    assert got[0] == 0.0 and got[1] == pytest.approx(730 / 262144, rel=1e-12)


def test_simulated_fixed_n_power_agrees_with_the_exact_one():
    from analysis.power import exact_fixed_n_power, fixed_n_power

    sim = fixed_n_power(0.999, 0.983, 555, 4000, np.random.default_rng(3))
    exact = exact_fixed_n_power(0.999, 0.983, [555])
    for name in ("mcnemar_exact", "tango"):
        se = (exact[name][0] * (1 - exact[name][0]) / 4000) ** 0.5
        assert abs(sim[name] - exact[name][0]) < 4 * se, name
