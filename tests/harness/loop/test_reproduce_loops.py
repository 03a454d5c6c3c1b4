"""`harness reproduce bounded-loops`: Tables 1 and 2 of the Bounded Loops paper, predicted == observed."""
from __future__ import annotations

import json

from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.ledger import inspect

# the paper's printed rows (Table 1 shows 6 of its 9 workloads; Table 2 all 4: observed, saved)
PAPER_T1 = {1: 1, 2: 2, 3: 3, 4: 4, 6: 6, 8: 8}
PAPER_T2 = {0: (3, 7), 1: (4, 6), 2: (5, 5), 4: (7, 3)}


def test_tables_match_the_paper_and_predicted_equals_observed(tmp_path):
    r = CliRunner().invoke(main, ["reproduce", "bounded-loops", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert "Predicted equals observed in 9 of 9 cases" in r.output
    assert "Predicted equals observed in 4 of 4 cases" in r.output
    assert "| 4 | 7 | 7 | 3 | no-progress |" in r.output
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["drift_problems"] == [] and inspect(tmp_path / "ledger.jsonl").problems == []
    rows = summary["rows"]
    t1 = {r["x"]: r for r in rows if r["table"] == 1}
    t2 = {r["x"]: r for r in rows if r["table"] == 2}
    assert len(t1) == 9 and all(r["agrees"] for r in rows)
    assert {k: t1[k]["observed"] for k in PAPER_T1} == PAPER_T1
    assert {k: (r["observed"], r["ceiling"] - r["observed"]) for k, r in t2.items()} == PAPER_T2
    assert all(r["observed_end"] == "no-progress" for r in t2.values())
    # past the ceiling the run halts rather than borrowing an eleventh attempt
    assert (t1[12]["observed"], t1[12]["observed_end"], t1[16]["observed"]) == (10, "ceiling", 10)
    # observed is read from the ledger's receipts: spent rows, not the terminal rows
    recs = inspect(tmp_path / "ledger.jsonl").records
    assert sum(x["spent"] for x in recs if x["run_id"] == "table1-16") == 10
    assert sum(1 for x in recs if x["run_id"] == "table1-16") == 11
