"""`harness compare`'s default labels: a side not named by --label-a/--label-b is named by its one arm, else by its
file's name; two equal labels become 'L (A)' and 'L (B)'. They are resolved from the rows the comparison reads
(analysis.compare.default_label), not by a second read of each input (issue 37: that read was ~40% of the
command at 100,000 rows)."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from harness.cli.cli import main


def _file(path: Path, arms: list[str]) -> Path:
    rows = [{"arm": arm, "task": "t", "scenario": "B1", "repeat": r, "outcome": "completed", "visible_pass": True,
             "hidden_pass": True, "shipped": True, "tokens_in": 10, "tokens_out": 1, "wall_s": 1.0}
            for arm in arms for r in (1, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _labels(tmp_path: Path, a: Path, b: Path, *extra: str) -> dict:
    out = tmp_path / "o"
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(out), "--no-figures", *extra])
    assert res.exit_code == 0, res.output
    return json.loads((out / "compare.json").read_text())["labels"]


def test_each_side_is_named_by_its_arm(tmp_path):
    a, b = _file(tmp_path / "a.jsonl", ["A2p"]), _file(tmp_path / "b.jsonl", ["A4"])
    assert _labels(tmp_path, a, b) == {"a": "A2p", "b": "A4"}


def test_two_sides_of_one_arm_are_told_apart(tmp_path):
    a, b = _file(tmp_path / "a.jsonl", ["A4"]), _file(tmp_path / "b.jsonl", ["A4"])
    assert _labels(tmp_path, a, b) == {"a": "A4 (A)", "b": "A4 (B)"}


def test_a_side_of_two_arms_is_named_by_its_file_and_a_given_label_is_kept(tmp_path):
    a, b = _file(tmp_path / "runA.jsonl", ["A2p", "A4"]), _file(tmp_path / "runB.jsonl", ["A2p", "A4"])
    assert _labels(tmp_path, a, b, "--key", "arm,task,scenario,repeat") == {"a": "runA.jsonl", "b": "runB.jsonl"}
    assert _labels(tmp_path, a, b, "--key", "arm,task,scenario,repeat", "--label-b", "gated") == \
        {"a": "runA.jsonl", "b": "gated"}
