"""A measurement killed part-way keeps what it judged: every finished judgment is journalled as it
ends, and the same measurement run again judges only what is missing."""
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import corpus.measure as measure_mod
from corpus.cli import register, user_loop
from corpus.measure import measure

EX = Path(__file__).resolve().parents[2] / "corpus" / "examples" / "ci-verdicts"


def _loop(tmp_path):
    (tmp_path / "user").mkdir()
    return user_loop(EX / "sound.toml", EX / "report.json", None, None, None, tmp_path / "user")


class Killed(BaseException):
    pass


def test_a_killed_measurement_resumes_without_rejudging(tmp_path, monkeypatch):
    loop = _loop(tmp_path)
    journal = tmp_path / "out" / "judgments.partial.jsonl"
    journal.parent.mkdir()

    def kill_after_three(done, total):
        if done == 3:
            raise Killed
    with pytest.raises(Killed):
        measure([loop], families=("v1",), tier2=False, workers=1, journal=journal, progress=kill_after_three)
    kept = [json.loads(x) for x in journal.read_text().splitlines()]
    assert len(kept) == 3
    with journal.open("a") as f:                 # a kill in the middle of writing a line
        f.write('{"loop": "user:rep')
    calls = []
    real = measure_mod.judge
    monkeypatch.setattr(measure_mod, "judge", lambda *a: calls.append(a) or real(*a))
    m = measure([loop], families=("v1",), tier2=False, workers=1, journal=journal)
    assert len(calls) == len(m.rows) - 3          # only the missing judgments ran
    fresh = measure([loop], families=("v1",), tier2=False, workers=1)
    assert [(r.mutant, r.verdict) for r in m.rows] == [(r.mutant, r.verdict) for r in fresh.rows]


def test_a_changed_mutant_or_gate_is_judged_again(tmp_path, monkeypatch):
    loop = _loop(tmp_path)
    journal = tmp_path / "j.jsonl"
    m = measure([loop], families=("v1",), tier2=False, workers=1, journal=journal)
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    lines[0]["gate_digest"] = "0" * 64            # as if the gate had changed since
    lines[1]["mutant_digest"] = "f" * 64          # as if the artifact (so the mutant) had changed
    lines[2]["label"] = "equivalent"              # as if an older corpus had labelled it otherwise
    journal.write_text("".join(json.dumps(x) + "\n" for x in lines))
    calls = []
    real = measure_mod.judge
    monkeypatch.setattr(measure_mod, "judge", lambda *a: calls.append(a) or real(*a))
    measure([loop], families=("v1",), tier2=False, workers=1, journal=journal)
    assert len(calls) == 3 and len(m.rows) > 3


def test_cli_resumes_from_the_out_directory_and_clears_the_journal(tmp_path):
    @click.group()
    def main():
        pass
    register(main)
    out = tmp_path / "out"
    out.mkdir()
    loop = _loop(tmp_path)

    def kill(done, total):
        if done == 2:
            raise Killed
    with pytest.raises(Killed):
        measure([loop], families=("v1",), tier2=False, workers=1, journal=out / "judgments.partial.jsonl",
                progress=kill)
    r = CliRunner().invoke(main, ["corpus", "measure", "--gate", str(EX / "sound.toml"), "--artifact",
                                  str(EX / "report.json"), "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "resumed 2 judgments" in r.output
    assert not (out / "judgments.partial.jsonl").exists() and (out / "judgments.csv").is_file()
