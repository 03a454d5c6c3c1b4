import json

from click.testing import CliRunner

from analysis.power import simulate_power
from harness.cli import main
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
