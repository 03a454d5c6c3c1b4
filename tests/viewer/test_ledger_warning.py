"""Red team of ``harness view``'s warning when a run's ledger does not verify (l22,
``viewer.rundir.ledger_warning`` over ``harness.run.records.ledger_problems``): the records file is
hostile bytes. A tampered ledger is warned about in one line on stderr, never a crash or a hang,
and text the file holds (a cell key) reaches the terminal escaped: no ANSI escape, no new line.

Formerly ``tests/viewer/test_redteam_l22_ledger_warning.py``, named after its origin."""
from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from harness.cli.cli import main


def _view(*args):
    r = CliRunner().invoke(main, ["view", *map(str, args)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r


def _edit_first(run, **fields):
    """The run's first record rewritten with ``fields`` (its hash no longer matches)."""
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    rec = json.loads(lines[0])
    rec.update(fields)
    lines[0] = json.dumps(rec) + "\n"
    (run / "records.jsonl").write_text("".join(lines))


def test_hostile_text_in_the_ledger_reaches_the_warning_line_escaped(qs_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(qs_run, run)
    _edit_first(run, cell_key="A1|t\x1b[2J\x1b[1;1Hall verified\nwarning: none|null|0")
    r = _view(run, "--out", tmp_path / "rep")
    assert r.exit_code == 0, r.stderr
    assert "\x1b" not in r.stderr and "\r" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "does not verify: line 1: edited" in r.stderr


@pytest.mark.timeout(120)  # a guard against the hang this case found, not a measure of speed
def test_a_seq_in_the_trillions_is_a_warning_not_a_hang(qs_run, tmp_path):
    """verify lists each seq no line carries; a forged seq of 10**15 made that list (and the set
    it was built from) a quadrillion entries long."""
    run = tmp_path / "run"
    shutil.copytree(qs_run, run)
    _edit_first(run, seq=10**15)
    r = _view(run, "--out", tmp_path / "rep")
    assert r.exit_code == 0, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "does not verify" in r.stderr, r.stderr
