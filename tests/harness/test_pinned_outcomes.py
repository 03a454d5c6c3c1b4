"""Refactors must not change outcomes: the quickstart's and clean-pilot's per-cell outcomes on the
simulated engine are pinned (tests/fixtures/pinned_outcomes.json, written before the judge, plug-in
and record refactors of this round). A deliberate change to the simulator or a task must re-pin and
say why in its commit.

The quickstart's run is the session's shared one (support.quickstart: the same command, made once for
this test, the viewer's and the Inspect export's); clean-pilot's is made here."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli.schema_cli import validate_file
from harness.core import record
from support.quickstart import quickstart_run
from support.scripted import REPO

PINNED = json.loads((REPO / "tests" / "fixtures" / "pinned_outcomes.json").read_text())
FIELDS = ("outcome", "visible_pass", "hidden_pass", "shipped", "stop_reason", "attempts", "review_rounds")


def _run(protocol: str, out: Path) -> Path:
    """`harness run protocols/<protocol>.toml --out out --workers 2` in a subprocess, as a user runs it."""
    r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", str(REPO / "protocols" / f"{protocol}.toml"),
                        "--out", str(out), "--workers", "2"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


@pytest.mark.parametrize("protocol", sorted(PINNED))
def test_outcomes_per_cell_key_are_pinned(protocol, tmp_path, tmp_path_factory):
    out = quickstart_run(tmp_path_factory) if protocol == "quickstart" else _run(protocol, tmp_path / protocol)
    recs = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    n, problems = validate_file(str(out / "records.jsonl"))  # what `harness schema records --validate` runs
    assert n == len(recs) and not problems, problems[:5]
    assert all(set(record.FIELDS) <= set(rec) for rec in recs)  # every field, void records included
    got = {rec["cell_key"]: {k: rec[k] for k in FIELDS} for rec in recs}
    want = PINNED[protocol]
    assert sorted(got) == sorted(want)
    diff = {k: (want[k], got[k]) for k in want if got[k] != want[k]}
    assert not diff, f"{len(diff)} cells changed: {dict(list(diff.items())[:5])}"
