"""`harness monitor RUN`: a confidence sequence per monitored hypothesis, mid-run and at the end."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analysis.monitor import monitor, planned_units
from analysis.pipeline import analyze
from harness.cli.cli import main
from harness.core.matrix import run_order
from harness.core.protocol import load_protocol
from harness.run.driver import execute, prepare
from support.scripted import copy_tasks

PROTO = """
[protocol]
name = "monitored"
seed = 5
repeats = 3
tasks_dir = "tasks"
tasks = ["parse-range"]
scenarios = ["null", "B2"]

[arms.A2p]
token_budget = 5000
[arms.A4]

[[hypotheses]]
id = "H1"
a = "A4"
b = "A2p"
endpoint = "not_amplified"
cells = "injected"

[[hypotheses]]
id = "H2"
a = "A4"
b = "A2p"
endpoint = "completion"
cells = "null"

[monitoring]
hypotheses = ["H1", "H2"]
stop_when = "excludes_zero"
min_units = 2
"""


@pytest.fixture
def run(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "monitored.toml"
    p.write_text(PROTO)
    prepare(p, tmp_path / "run", engine=None, reviewer_engine=None, model=None, exploratory=True)
    return tmp_path / "run"


def test_monitor_mid_run_and_at_the_end(run):
    # before any cell: no units, sequence n/a, nothing crashes
    rep = monitor(run)
    assert rep["records"] == 0 and all(s["units_in_sequence"] == 0 for s in rep["sequences"])
    # mid-way: the first 5 cells of the pre-registered order (2 whole units + half of the third)
    execute(run, workers=1, log=lambda m: None, limit_cells=5)
    with open(run / "records.jsonl", "a") as fh:
        fh.write('{"arm": "A4", "task": "parse-ra')  # a line being written: ignored, not an error
    mid = monitor(run)
    assert mid["records"] == 5 and not mid["finished"]
    order = run_order(load_protocol(run.parent / "monitored.toml"))
    first_units = list(dict.fromkeys(c.unit for c in order))
    done = set(first_units[:2])
    h1, h2 = mid["sequences"]
    assert h1["units_in_sequence"] == sum(u.split("|")[1] == "B2" for u in done)
    assert h2["units_in_sequence"] == sum(u.split("|")[1] == "null" for u in done)
    for s in (h1, h2):
        if s["units_in_sequence"]:
            assert -1 <= s["lower"] <= s["mean"] <= s["upper"] <= 1
    r = CliRunner().invoke(main, ["monitor", str(run)])
    assert r.exit_code == 0, r.output
    assert "(in progress)" in r.output and "estimand: the mean, over the matched units" in r.output
    assert "stopping rule (the betting sequence excludes 0" in r.output
    # the torn line is cut off before the run resumes (the ledger repairs its own last line)
    text = (run / "records.jsonl").read_text()
    (run / "records.jsonl").write_text(text[: text.rfind("\n") + 1])
    execute(run, workers=1, log=lambda m: None)
    end = monitor(run)
    assert end["finished"] and end["records"] == 12
    for s in end["sequences"]:
        assert s["units_in_sequence"] == s["planned_units"] == 3 and s["waiting_beyond_prefix"] == 0
    # at the end the sequence's centre is the analysis's matched difference over the same cells
    summ = analyze(run / "records.jsonl", run / "analysis", protocol=run.parent / "monitored.toml", B=50,
                   figures=False)
    for s, c in zip(end["sequences"], summ["contrasts"]):
        assert s["mean"] == pytest.approx(c["estimate"]) and s["units_in_sequence"] == c["n_matched"]
    # three units cannot exclude zero at 95%: the rule is reported as not met
    assert end["stopping_rule"]["met"] is False
    r = CliRunner().invoke(main, ["monitor", str(run), "--json-out", str(run / "m.json")])
    assert r.exit_code == 0 and "(finished)" in r.output
    assert json.loads((run / "m.json").read_text())["sequences"][0]["id"] == "H1"


def test_units_wait_for_the_pre_registered_order(tmp_path):
    """A unit recorded before an earlier unit of the run order waits: the order never follows outcomes."""
    import pandas as pd

    from analysis.monitor import sequence_for
    from analysis.tables import Hypothesis

    units = ["t|B1|1", "t|B1|2", "t|B1|3"]
    tidy = pd.DataFrame({"arm": ["A4", "A2p", "A4", "A2p"], "match_key": ["t|B1|1", "t|B1|1", "t|B1|3", "t|B1|3"],
                         "not_amplified": [1, 0, 1, 0]})
    h = Hypothesis("H1", "A4", "A2p")
    s = sequence_for(h, units, tidy, set(), 0.05, None)
    assert s["units_in_sequence"] == 1 and s["waiting_beyond_prefix"] == 1 and s["waiting_on"] == "t|B1|2"
    s = sequence_for(h, units, tidy, {("A2p", "t|B1|2")}, 0.05, None)  # unit 2 void after reruns: skipped
    assert s["units_in_sequence"] == 2 and s["void_units_skipped"] == 1 and s["mean"] == 1.0


def test_the_printed_mean_carries_its_numerator_and_denominator():
    """mean = (units where only a succeeded - units where only b succeeded) / units in the sequence."""
    import pandas as pd

    from analysis.monitor import render, sequence_for
    from analysis.tables import Hypothesis

    units = [f"t|B1|{i}" for i in range(1, 6)]
    ya, yb = [1, 1, 0, 1, 1], [0, 1, 1, 0, 1]  # D = 1, 0, -1, 1, 0
    tidy = pd.DataFrame({"arm": ["A4"] * 5 + ["A2p"] * 5, "match_key": units * 2, "not_amplified": ya + yb})
    s = sequence_for(Hypothesis("H1", "A4", "A2p"), units, tidy, set(), 0.05, None)
    assert (s["a_only"], s["b_only"], s["units_in_sequence"]) == (2, 1, 5) and s["mean"] == pytest.approx(0.2)
    rep = {"run": "r", "protocol": "p", "records": 10, "cells_planned": 10, "finished": True, "sequences": [s],
           "stopping_rule": None, "estimand": "e"}
    assert "mean +20.00 pp = (2 - 1)/5" in render(rep)
    # the betting sequence heads (the stopping rule reads it); the empirical-Bernstein one sits beside it, on
    # the same units; with 5 units neither can exclude 0
    b, eb = s["betting"], s["empirical_bernstein"]
    assert (s["sequence"], s["lower"], s["upper"]) == ("betting", b["lower"], b["upper"])
    assert b["lower"] < 0 < b["upper"] and b["excludes_zero"] is False and "Waudby-Smith" in b["method"]
    assert eb["lower"] <= b["lower"] and eb["excludes_zero"] is False
    text = render(rep)
    assert "95% betting sequence (Waudby-Smith and Ramdas 2024; the stopping rule's) [" in text
    assert "  empirical-Bernstein sequence (Howard et al. 2021, Thm 4), same units: [" in text


def test_a_void_cell_of_another_arm_does_not_skip_a_pending_unit():
    """A1's cell of unit 2 is void, but the hypothesis compares A4 with A2p, and A2p's cell of unit 2
    has not finished yet: the unit is undecided and waits. Skipping it would let the next look
    insert it behind units already in the sequence, so the order of entry would follow which
    cells finished first (which can depend on outcomes), not the pre-registered order."""
    import pandas as pd

    from analysis.monitor import sequence_for
    from analysis.tables import Hypothesis

    units = ["t|B1|1", "t|B1|2", "t|B1|3"]
    tidy = pd.DataFrame({"arm": ["A4", "A2p", "A4", "A4", "A2p"],
                         "match_key": ["t|B1|1", "t|B1|1", "t|B1|2", "t|B1|3", "t|B1|3"],
                         "not_amplified": [1, 0, 1, 1, 0]})
    s = sequence_for(Hypothesis("H1", "A4", "A2p"), units, tidy, {("A1", "t|B1|2")}, 0.05, None)
    assert s["units_in_sequence"] == 1 and s["void_units_skipped"] == 0
    assert s["waiting_on"] == "t|B1|2" and s["waiting_beyond_prefix"] == 1


def test_planned_units_follow_applicability(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace("[arms.A4]", "[arms.A4]\n[arms.A1]\n[applicability]\nA1 = { include = [\"null\"] }"))
    order = run_order(load_protocol(p))
    assert len(planned_units(order, "A4", "A2p", "injected")) == 3
    assert planned_units(order, "A1", "A4", "injected") == []
    assert len(planned_units(order, "A1", "A4", "null")) == 3


def test_monitor_bad_run_directory_exits_2(tmp_path):
    r = CliRunner().invoke(main, ["monitor", str(tmp_path)])
    assert r.exit_code == 2 and "run.json: missing" in r.output and "Traceback" not in r.output
    (tmp_path / "run.json").write_text("{not json")
    r = CliRunner().invoke(main, ["monitor", str(tmp_path)])
    assert r.exit_code == 2 and "run.json: not readable JSON" in r.output
    (tmp_path / "run.json").write_text("{}")
    r = CliRunner().invoke(main, ["monitor", str(tmp_path)])
    assert r.exit_code == 2 and "protocol_path" in r.output


def test_a_hypothesis_with_no_planned_units_says_so_not_no_units_yet():
    """A monitored pair that the protocol never runs on one unit will never have a sequence: 'no units
    yet' would promise one."""
    from analysis.monitor import render

    s = {"id": "H1", "a": "A4", "b": "A2p", "endpoint": "not_amplified", "cells": "injected", "planned_units": 0,
         "units_in_sequence": 0, "void_units_skipped": 0, "waiting_beyond_prefix": 0, "method": {}}
    rep = {"run": "r", "protocol": "p", "records": 0, "cells_planned": 4, "finished": False, "sequences": [s],
           "stopping_rule": None, "estimand": "e"}
    out = render(rep)
    assert "no units yet" not in out and "no matched units are planned" in out


def _quickstart_sized(tmp_path, monitoring: str):
    """A run directory of the quickstart's design with 6 repeats (180 cells), its records the committed
    quickstart fixture's with repeats 1-3 copied to 4-6 (no cell is run); [monitoring] as given."""
    from pathlib import Path

    from support.analysis_outputs import QUICKSTART

    repo = Path(__file__).resolve().parents[2]
    copy_tasks(tmp_path, ("parse-range", "median", "text-stats"))
    text = (repo / "protocols" / "quickstart.toml").read_text().replace("repeats = 3", "repeats = 6")
    p = tmp_path / "qs6.toml"
    p.write_text(text.replace('tasks_dir = "../tasks"', 'tasks_dir = "tasks"') + "\n[monitoring]\n" + monitoring)
    run = tmp_path / "run"
    prepare(p, run, engine=None, reviewer_engine=None, model=None, exploratory=True)
    rows = []
    for line in QUICKSTART.read_text().splitlines():
        r = json.loads(line)
        for shift in (0, 3):
            rows.append({k: v for k, v in r.items() if k not in ("hash", "prev_hash", "cell_key", "seq")}
                        | {"repeat": r["repeat"] + shift})
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


@pytest.mark.parametrize("sequence,met", [(None, True), ("empirical_bernstein", False)])
def test_a_quickstart_sized_study_stops_on_the_betting_sequence(tmp_path, sequence, met):
    """H1 at the quickstart's effect (12 of 18 units favour A4, none A2p): the betting sequence excludes 0,
    so the pre-registered rule is met; the empirical-Bernstein sequence, named by the protocol, does not."""
    rule = 'hypotheses = ["H1"]\nstop_when = "excludes_zero"\nmin_units = 10\n'
    run = _quickstart_sized(tmp_path, rule + (f'sequence = "{sequence}"\n' if sequence else ""))
    rep = monitor(run)
    s = rep["sequences"][0]
    assert (s["units_in_sequence"], s["a_only"], s["b_only"]) == (18, 12, 0)
    assert s["sequence"] == (sequence or "betting")
    assert s["betting"]["excludes_zero"] is True and s["empirical_bernstein"]["excludes_zero"] is False
    assert rep["stopping_rule"]["met"] is met and rep["stopping_rule"]["sequence"] == (sequence or "betting")


def test_the_sequence_is_part_of_the_protocol_and_a_default_leaves_old_locks_alone(tmp_path):
    from harness.core.errors import InputError
    from harness.core.protocol import compute_lock

    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(PROTO)
    base = load_protocol(p)
    assert base.monitoring.sequence == "betting"
    p.write_text(PROTO + 'sequence = "betting"\n')
    named = load_protocol(p)
    assert named.monitoring == base.monitoring and compute_lock(named)["digest"] != compute_lock(base)["digest"]
    p.write_text(PROTO + 'sequence = "bernstein"\n')
    with pytest.raises(InputError, match="sequence"):
        load_protocol(p)


def test_monitor_warns_on_an_edited_ledger_and_strict_refuses(run):
    """Issue 34: `harness monitor` printed its sequence from an edited ledger without a word (`view`
    and `export` warned). Every ledger reader verifies the chain first: a warning line, or with
    --strict a refusal (exit 2) before any number is printed."""
    execute(run, workers=1, log=lambda m: None, limit_cells=3)
    ledger = run / "records.jsonl"
    lines = ledger.read_text().splitlines()
    rec = json.loads(lines[1])
    rec["outcome"] = "completed" if rec["outcome"] != "completed" else "safe_stop"
    lines[1] = json.dumps(rec, sort_keys=True)
    ledger.write_text("\n".join(lines) + "\n")
    r = CliRunner().invoke(main, ["monitor", str(run)])
    assert r.exit_code == 0, r.output
    assert f"warning: {ledger} does not verify: line 2: edited" in r.output
    r = CliRunner().invoke(main, ["monitor", str(run), "--strict"])
    assert r.exit_code == 2 and "does not verify" in r.output and "--strict refuses" in r.output
    assert "confidence sequence" not in r.output
