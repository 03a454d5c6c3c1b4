"""The betting confidence sequence: type-I error under continuous peeking (bounded simulation), a control
showing the check can fail, coverage of a common mean, and the issue's power acceptance."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.special import expit

from analysis.betting import betting_sequence, first_exclusion, log_capital
from analysis.power import monitor_power
from harness.cli.cli import main


def _null_streams(sims: int, n: int, task_sd: float, seed: int) -> np.ndarray:
    """No difference on any unit, units heterogeneous: 24 tasks with a logit random effect (SD task_sd)
    around a 0.9 success rate, units in a random order; both arms draw from the unit's own rate."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0.0, task_sd, size=(sims, 24))
    task = rng.integers(0, 24, size=(sims, n))
    p = expit(2.2 + np.take_along_axis(u, task, axis=1))
    return (rng.random((sims, n)) < p).astype(float) - (rng.random((sims, n)) < p)


@pytest.mark.parametrize("task_sd", [0.0, 2.0])
def test_type_one_error_under_continuous_peeking_is_at_most_alpha(task_sd):
    d = _null_streams(400, 1500, task_sd, seed=7)
    first = first_exclusion(d, alpha=0.05)
    rejected = float(np.mean(first <= d.shape[1]))  # excluded 0 at some look among 1,500
    assert rejected <= 0.05, rejected


def test_peeking_check_is_not_vacuous():
    """The same check fails for a sequence whose threshold is shrunk (1/alpha = 1.25 instead of 20)."""
    d = _null_streams(400, 1500, 1.0, seed=7)
    assert float(np.mean(first_exclusion(d, alpha=0.8) <= d.shape[1])) > 0.05


def test_covers_a_common_mean_at_every_look():
    rng = np.random.default_rng(3)
    up, dn = 0.06, 0.02  # every unit alike: mean difference 0.04
    u = rng.random((400, 1500))
    d = np.where(u < up, 1.0, np.where(u < up + dn, -1.0, 0.0))
    missed = float(np.mean(first_exclusion(d, 0.05, m_d=up - dn) <= d.shape[1]))
    assert missed <= 0.05, missed


def test_grid_sequence_agrees_with_the_capital_at_its_endpoints():
    rng = np.random.default_rng(5)
    u = rng.random(900)
    d = np.where(u < 0.03, 1.0, np.where(u < 0.032, -1.0, 0.0))
    s = betting_sequence(d)
    assert s.lower <= d.mean() <= s.upper and -1 <= s.lower and s.upper <= 1
    excl = first_exclusion(d[None, :], 0.05)[0] <= len(d)
    assert excl == (s.lower > 0)
    # just outside the sequence the capital has crossed 1/alpha at some look; inside it never has
    for m, inside in ((s.lower - 0.001, False), (s.upper + 0.001, False), ((s.lower + s.upper) / 2, True)):
        crossed = bool((log_capital(d, m, 0.05) >= np.log(20)).any())
        assert crossed != inside, m
    assert betting_sequence([]).lower is None
    with pytest.raises(ValueError):
        betting_sequence([2.0])


def test_betting_needs_at_most_1_3x_the_exact_mcnemar_units_and_holds_its_level():
    """Issue 37 acceptance, at the paper's effect (A4 0.999 vs A2p 0.983 not-amplified): the betting sequence
    reaches 80% power within 1.3x the units of the fixed-n exact McNemar test (analytic power), and its type-I
    error under a heterogeneous null (task SD 2, looked at after every unit) is at most 5%."""
    r = monitor_power(0.999, 0.983, sims=400, max_units=2500, seed=2)
    u = r["units"]
    assert u["mcnemar_exact"] is not None and u["betting"] is not None
    assert u["betting"] <= 1.3 * u["mcnemar_exact"], u
    assert u["empirical_bernstein"] is None or u["empirical_bernstein"] > u["betting"]
    assert r["type_one"]["betting"]["rate"] <= 0.05, r["type_one"]
    at = r["at_mcnemar_units"]
    assert at["units"] == u["mcnemar_exact"] and 0.8 <= at["mcnemar_exact"] < 0.85
    assert at["betting"]["sims"] == 400 and at["betting"]["mc_se"] > 0


def test_cli_power_monitor(tmp_path):
    out = tmp_path / "p.json"
    r = CliRunner().invoke(main, ["power", "--monitor", "--rate", "A4=0.999", "--rate", "A2p=0.983", "--sims", "200",
                                  "--max-units", "1500", "--json-out", str(out)])
    assert r.exit_code == 0, r.output
    assert "fixed-n Tango score interval" in r.output and "betting confidence sequence" in r.output
    assert "fixed-n exact McNemar test (read once at n; analytic)" in r.output and "MC s.e." in r.output
    assert "type-I error under a heterogeneous null" in r.output
    assert out.exists()
    r = CliRunner().invoke(main, ["power", "--monitor", "--rate", "A4=0.999"])
    assert r.exit_code == 2 and "need --rate for A4 and A2p" in r.output


def test_the_monitor_excludes_zero_at_the_unit_the_power_simulation_stops_at():
    """Review r37. ``harness power --monitor`` counts a study as stopped at the first unit where the capital at 0
    reaches 1/alpha (``first_exclusion``); the monitor's stopping rule reads ``lower > 0`` of the grid sequence,
    whose lower end is rounded one grid step outward, so it stops only once the next grid point is excluded too.
    Measured on 300 streams at the paper's effect: the 80% quantile moves from 732 to 781 units."""
    from analysis.power import _paired_stream

    d = _paired_stream(0.999, 0.983, 300, 1200, np.random.Generator(np.random.PCG64(7)))
    fe = first_exclusion(d, 0.05)
    i = int(np.flatnonzero(fe <= 1200)[0])  # a stream the simulation counts as stopped (at unit 562)
    s = betting_sequence(d[i, :fe[i]])
    assert s.excludes_zero  # at the unit the simulation stops at
    assert not betting_sequence(d[i, :fe[i] - 1]).excludes_zero  # and not one unit before
    assert s.lower >= 0 or s.upper <= 0  # the rounded ends (excluded grid points) agree: the set is past 0
