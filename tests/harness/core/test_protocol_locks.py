"""Every shipped protocol matches its lock, and ``harness protocol check`` says which entries drifted.

A task file edited after a freeze makes ``harness run`` refuse the pre-registered design unless
``--exploratory``; this test is what catches that drift before a run does.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.core.protocol import check_protocol, freeze, load_protocol, read_lock, shipped_protocols
from support.protocols import minimal_protocol
from support.scripted import copy_tasks

PROTOCOL = minimal_protocol("t", 7)


@pytest.mark.parametrize("path", shipped_protocols(), ids=lambda p: p.name)
def test_shipped_protocol_validates_and_matches_its_lock(path):
    problem = check_protocol(path)
    assert problem is None, (f"{path.name}: {problem}\nre-freeze: harness protocol freeze {path} "
                             "--note 'what changed and why'")


def test_the_shipped_protocols_are_found():
    names = {p.name for p in shipped_protocols()}
    assert {"quickstart.toml", "clean-pilot.toml", "powered-ablation.toml"} <= names


@pytest.fixture
def frozen(tmp_path):
    copy_tasks(tmp_path, ("parse-range",))
    path = tmp_path / "p.toml"
    path.write_text(PROTOCOL)
    freeze(load_protocol(path), note="first freeze")
    return path


def test_check_exits_2_naming_the_file_and_each_drifted_entry(frozen, tmp_path):
    r = CliRunner().invoke(main, ["protocol", "check", str(frozen)])
    assert r.exit_code == 0 and r.output == f"{frozen}: valid and matches its lock\n"
    oracle = tmp_path / "tasks" / "parse-range" / "oracle" / "test_oracle.py"
    oracle.write_text(oracle.read_text() + "\n# edited after the freeze\n")
    (tmp_path / "tasks" / "parse-range" / "added.txt").write_text("new\n")
    r = CliRunner().invoke(main, ["protocol", "check", str(frozen), str(frozen)])
    line = (f"{frozen}: drifted: parse-range/added.txt: added; "
            "parse-range/oracle/test_oracle.py: content changed\n")
    assert r.exit_code == 2 and r.output == line * 2


def test_check_reports_an_invalid_protocol_in_its_line(frozen):
    frozen.write_text(frozen.read_text().replace("repeats = 1", "repeats = 0"))
    r = CliRunner().invoke(main, ["protocol", "check", str(frozen)])
    assert r.exit_code == 2 and r.output.startswith(f"{frozen}: error: ") and "protocol.repeats" in r.output
    assert "Traceback" not in r.output


def test_freeze_notes_accumulate_outside_the_digest(frozen):
    proto = load_protocol(frozen)
    first = read_lock(proto)
    r = CliRunner().invoke(main, ["protocol", "freeze", str(frozen), "--note", "oracle\n  rewritten"])
    assert r.exit_code == 0, r.output
    second = read_lock(proto)
    assert second["digest"] == first["digest"]  # a note does not change the pre-registration
    assert [n.split(": ", 1)[1] for n in second["notes"]] == ["first freeze", "oracle rewritten"]
    freeze(proto)  # a re-freeze without a note keeps the history
    assert read_lock(proto)["notes"] == second["notes"]


def test_a_lock_with_malformed_notes_is_refused(frozen):
    proto = load_protocol(frozen)
    lock = json.loads(proto.lock_path.read_text())
    proto.lock_path.write_text(json.dumps({**lock, "notes": [1]}))
    assert check_protocol(frozen) == f"error: {proto.lock_path}: notes: expected a list of strings"
    proto.lock_path.write_text(json.dumps({**lock, "remark": "x"}))
    assert "remark: unknown key" in (check_protocol(frozen) or "")
