"""Issue 25, bad input at the command line: one line naming file, line and field, exit 2, no
traceback. ``harness plan --worst-case`` with an engine no one registered, and a records file
with one problem.

Formerly ``tests/harness/test_cli_input_errors_issue25.py``, named after its origin."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from harness import engines
from harness.cli.cli import main
from support.protocols import minimal_protocol
from support.scripted import copy_tasks


@pytest.fixture
def proto(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))

    def make(arm_extra=""):
        p = tmp_path / "pl.toml"
        p.write_text(minimal_protocol("pl", 1) + arm_extra + "\n")
        return p
    return make


def _one_line_exit_2(r, *needles):
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output
    lines = [x for x in r.output.splitlines() if x.strip()]
    assert len(lines) == 1, r.output
    for n in needles:
        assert n in lines[0], r.output
    return lines[0]


@pytest.mark.parametrize("flag", ["--engine", "--reviewer-engine"])
def test_plan_worst_case_with_an_unknown_engine_is_bad_input_naming_it_and_the_known_ones(proto, flag):
    r = CliRunner().invoke(main, ["plan", str(proto()), "--worst-case", flag, "nosuch"])
    line = _one_line_exit_2(r, "nosuch", flag, "unknown engine")
    assert all(name in line for name in engines.known())


def test_plan_with_an_unknown_engine_on_an_arm_names_the_arm_field(proto):
    r = CliRunner().invoke(main, ["plan", str(proto('engine = "nosuch"')), "--worst-case"])
    _one_line_exit_2(r, "nosuch", "arms.A1.engine", "pl.toml")


def test_plan_with_known_engines_still_prints_the_worst_case(proto):
    r = CliRunner().invoke(main, ["plan", str(proto()), "--worst-case", "--engine", "simulated"])
    assert r.exit_code == 0, r.output
    assert "WORST CASE" in r.output


def test_records_error_with_one_problem_prints_one_line_and_with_several_one_per_problem():
    from analysis.records import RecordsError
    one = RecordsError(["r.jsonl:3: field 'arm': required field missing"])
    assert str(one) == "invalid records: r.jsonl:3: field 'arm': required field missing"
    two = RecordsError(["r.jsonl:3: field 'arm': x", "r.jsonl:4: field 'task': y"])
    assert str(two).splitlines() == ["invalid records:", "  r.jsonl:3: field 'arm': x", "  r.jsonl:4: field 'task': y"]


def test_analyze_a_records_file_with_one_problem_prints_one_line(tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text("{not json\n")
    r = CliRunner().invoke(main, ["analyze", str(f), "--out", str(tmp_path / "an")])
    _one_line_exit_2(r, f"{f}:1", "not valid JSON")
