"""Protocol validation, freeze/drift refusal, and the cell matrix (including the paper's 9,240)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.core.errors import InputError
from harness.core.matrix import Cell, enumerate_cells, plan_counts, run_order
from harness.core.protocol import drift, freeze, load_protocol
from support.scripted import TASKS, copy_tasks

BASE = """
[protocol]
name = "t"
seed = 7
repeats = 2
tasks_dir = "tasks"
tasks = ["parse-range"]
scenarios = ["null", "B2"]

[arms.A1]
[arms.A4]
attempts = 2
"""


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "p.toml"
    p.write_text(textwrap.dedent(text))
    return p


@pytest.fixture
def proto_dir(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    return tmp_path


@pytest.mark.parametrize("patch, field, expected", [
    (("repeats = 2", "repeats = 0"), "protocol.repeats", "integer >= 1"),
    (("seed = 7", 'seed = "x"'), "protocol.seed", "integer"),
    (('scenarios = ["null", "B2"]', 'scenarios = ["null", "B99"]'), "protocol.scenarios", "B99"),
    (("[arms.A4]", "[arms.A9]"), "arms.A9.controller", "expected one of"),
    (("attempts = 2", "attempts = -1"), "arms.A4.attempts", "positive integer"),
    (("attempts = 2", "retires = 3"), "arms.A4.retires", "unknown key"),
    (('name = "t"', 'nam = "t"'), "protocol.nam", "unknown key"),
])
def test_validation_errors_name_file_key_and_expectation(tmp_path, patch, field, expected):
    p = write(tmp_path, BASE.replace(*patch))
    with pytest.raises(InputError) as ei:
        load_protocol(p)
    assert ei.value.file == str(p.resolve()) and ei.value.field == field and expected in str(ei.value)


def test_toml_syntax_error_names_the_line(tmp_path):
    p = write(tmp_path, BASE + "\nbroken = = 1\n")
    with pytest.raises(InputError) as ei:
        load_protocol(p)
    assert ei.value.line == BASE.count("\n") + 2


def test_single_shot_arm_cannot_run_a_second_attempt_scenario(tmp_path):
    p = write(tmp_path, BASE.replace('["null", "B2"]', '["null", "B4"]'))
    with pytest.raises(InputError, match="cannot run"):
        load_protocol(p)
    ok = write(tmp_path, BASE.replace('["null", "B2"]', '["null", "B4"]') + '\n[applicability]\nA1 = { exclude = ["B4"] }\n')
    assert load_protocol(ok).applicability["A1"] == ("null",)


def test_cli_reports_a_bad_protocol_with_nonzero_exit(tmp_path):
    p = write(tmp_path, BASE.replace("repeats = 2", "repeats = 0"))
    r = CliRunner().invoke(main, ["plan", str(p)])
    assert r.exit_code == 2 and "protocol.repeats" in r.output and str(p.resolve()) in r.output


def test_freeze_then_drift_is_refused(proto_dir):
    p = write(proto_dir, BASE)
    proto = load_protocol(p)
    with pytest.raises(InputError, match="no lock"):
        drift(proto)
    lock = freeze(proto)
    assert "parse-range/oracle/test_oracle.py" in lock["files"] and "scenarios.toml" in lock["files"]
    assert drift(proto) == []
    oracle = proto_dir / "tasks" / "parse-range" / "oracle" / "test_oracle.py"
    oracle.write_text(oracle.read_text() + "\n# edited\n")
    assert drift(proto) == ["parse-range/oracle/test_oracle.py: content changed"]
    out = proto_dir / "run"
    r = CliRunner().invoke(main, ["run", str(p), "--out", str(out)])
    assert r.exit_code == 2 and "drifted" in r.output and not (out / "records.jsonl").exists()
    p.write_text(p.read_text().replace("repeats = 2", "repeats = 3"))
    assert "protocol p.toml changed since it was frozen" in drift(load_protocol(p))


def test_unlocked_protocol_needs_exploratory(proto_dir):
    p = write(proto_dir, BASE.replace("repeats = 2", "repeats = 1"))
    r = CliRunner().invoke(main, ["run", str(p), "--out", str(proto_dir / "r1")])
    assert r.exit_code == 2 and "no lock" in r.output


PAPER = """
[protocol]
name = "paper-shape"
seed = 1
repeats = 5
tasks = [{tasks}]
scenarios = ["null", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13", "B14", "B15"]

[arms.A1]
[arms.A2]
[arms.A2p]
[arms.A3]
[arms.A4]

[applicability]
A1 = {{ exclude = ["B4", "B5", "B10"] }}
"""


def paper_protocol(tmp_path, extra=""):
    tasks = ", ".join(f'"t{i:02d}"' for i in range(24))  # placeholders: planning needs no task files
    return load_protocol(write(tmp_path, PAPER.format(tasks=tasks) + extra))


def test_paper_design_plans_to_9240_cells(tmp_path):
    cells = enumerate_cells(paper_protocol(tmp_path))
    per_arm, per_arm_scen = plan_counts(cells)
    assert len(cells) == 9240
    assert per_arm == {"A1": 1560, "A2": 1920, "A2p": 1920, "A3": 1920, "A4": 1920}
    assert per_arm_scen[("A1", "B4")] == 0 and per_arm_scen[("A4", "B4")] == 120
    assert len({c.key for c in cells}) == 9240


def test_plan_cli_prints_the_total(tmp_path):
    ids = sorted(p.name for p in TASKS.iterdir() if (p / "task.toml").is_file())
    (tmp_path / "p.toml").write_text(PAPER.format(tasks=", ".join(f'"{t}"' for t in ids)).replace(
        "repeats = 5", f'repeats = 5\ntasks_dir = "{TASKS}"'))
    r = CliRunner().invoke(main, ["plan", str(tmp_path / "p.toml")])
    assert r.exit_code == 0 and "total 9240 cells" in r.output


def test_plan_refuses_a_task_that_does_not_exist(tmp_path):
    paper_protocol(tmp_path)  # placeholder task ids t00..t23
    r = CliRunner().invoke(main, ["plan", str(tmp_path / "p.toml")])
    assert r.exit_code == 2 and "task 't00' not found" in r.output


def test_a_new_factor_multiplies_cells_and_extends_the_key(tmp_path):
    proto = paper_protocol(tmp_path, '\n[factors]\nmodel = ["m1", "m2"]\n')
    cells = enumerate_cells(proto)
    assert len(cells) == 2 * 9240
    c = cells[0]
    assert c.key.endswith("|model=m1") and Cell.from_key(c.key) == c and c.unit == c.key.split("|", 1)[1]


def test_run_order_is_seeded_and_keeps_arms_of_a_unit_together(tmp_path):
    proto = paper_protocol(tmp_path)
    a, b = run_order(proto), run_order(proto)
    assert a == b and sorted(a) == sorted(enumerate_cells(proto))
    assert a != enumerate_cells(proto)
    units = [c.unit for c in a]
    # each unit's arms are contiguous
    seen = set()
    for i, u in enumerate(units):
        if i and units[i - 1] != u:
            assert u not in seen
        seen.add(u)


HYPS = """
[[hypotheses]]
id = "H1"
a = "A4"
b = "A1"
endpoint = "not_amplified"
cells = "injected"
"""


@pytest.mark.parametrize("table,needle", [
    ('[monitoring]\nstop_when = "sometime"\n', "monitoring.stop_when"),
    ('[monitoring]\nhypotheses = ["H9"]\n', "monitoring.hypotheses"),
    ('[monitoring]\nhypotheses = []\n', "monitoring.hypotheses"),
    ('[monitoring]\nstop_when = "half_width_below"\n', "monitoring.half_width"),
    ('[monitoring]\nhalf_width = 0.1\n', "monitoring.half_width"),
    ('[monitoring]\nalpha = 5\n', "monitoring.alpha"),
    ('[monitoring]\nmin_unit = 3\n', "monitoring.min_unit"),
    ('monitoring = 3\n', "monitoring"),
])
def test_monitoring_table_is_validated(tmp_path, table, needle):
    """[monitoring] (read by `harness monitor`, issue 13): unknown keys and bad values name the key."""
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text((table if not table.startswith("[") else "") + BASE + HYPS + (table if table.startswith("[") else ""))
    with pytest.raises(InputError, match=needle):
        load_protocol(p)


def test_monitoring_table_is_accepted_with_defaults(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(BASE + HYPS + '[monitoring]\nstop_when = "half_width_below"\nhalf_width = 0.05\nmin_units = 4\n')
    assert load_protocol(p).monitoring.model_dump(exclude_none=True) == {
        "stop_when": "half_width_below", "half_width": 0.05, "min_units": 4, "hypotheses": ["H1"], "alpha": 0.05,
        "sequence": "betting"}
    p.write_text(BASE + HYPS)
    assert load_protocol(p).monitoring.model_dump(exclude_none=True) == {"hypotheses": ["H1"], "alpha": 0.05,
                                                                         "min_units": 0, "sequence": "betting"}
    repo = Path(__file__).resolve().parents[3]
    assert load_protocol(repo / "protocols" / "powered-ablation.toml").monitoring.hypotheses == ["H1", "H2"]


def test_hypothesis_interval_method_is_validated(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    p = tmp_path / "p.toml"
    p.write_text(BASE + HYPS + 'interval = "bca"\n')
    with pytest.raises(InputError, match=r"hypotheses\[0\]\.interval"):
        load_protocol(p)


def test_an_arms_settings_are_its_controllers_parameters_with_their_defaults():
    """Arm.settings: the arm's keys as its controller's registered dataclass, the defaults filled in (what
    Arm.get answers key by key); settings_as refuses another controller's parameters."""
    from harness.core.arm_params import BudgetedRetryParams, GatedLoopParams
    from harness.core.protocol import Arm
    a4 = Arm("x", "A4", {"attempts": 5, "engine": "replay"})
    own = a4.settings_as(GatedLoopParams)
    assert (own.attempts, own.review_rounds, own.reflection, own.engine, own.model) == (5, 2, True, "replay", None)
    assert [getattr(own, k) for k in ("attempts", "review_rounds", "engine")] == [a4.get(k) for k in
                                                                                  ("attempts", "review_rounds", "engine")]
    with pytest.raises(TypeError, match="GatedLoopParams"):
        a4.settings_as(BudgetedRetryParams)
