"""The run's per-arm table (harness.core.table, printed by `harness run` and `make run`) tells the analysis's story:
its not-amplified column is H1's endpoint (recovered + safe_stop over injected cells, Eq. 7) and its completion
column H2's, so on the quickstart the table's A4 - A2p differences are `harness analyze`'s H1 and H2 point estimates."""
from __future__ import annotations

import re
from fractions import Fraction

import pytest

from analysis.pipeline import analyze
from harness.core.record import CellRecord
from harness.core.table import per_arm_rows, render
from support import records
from support.quickstart import quickstart_run
from support.scripted import REPO


def _column(table: str, arm: str, header: str) -> Fraction:
    """k/n of ``arm``'s cell under ``header`` in the printed Markdown table."""
    lines = table.splitlines()
    names = [c.strip() for c in lines[0].strip("|").split("|")]
    row = next(x for x in lines[2:] if x.startswith(f"| {arm} |"))
    cell = [c.strip() for c in row.strip("|").split("|")][names.index(header)]
    k, n = map(int, re.match(r"(\d+)/(\d+)", cell).groups())
    return Fraction(k, n)


def test_the_quickstart_table_and_its_analysis_agree_on_h1_and_h2(tmp_path_factory, tmp_path):
    run = quickstart_run(tmp_path_factory)
    table = (run / "table.md").read_text()
    summary = analyze(run / "records.jsonl", tmp_path / "analysis", protocol=REPO / "protocols" / "quickstart.toml",
                      B=50, figures=False)
    h1, h2 = summary["contrasts"][:2]
    assert (h1["id"], h1["a"], h1["b"], h1["endpoint"]) == ("H1", "A4", "A2p", "not_amplified")
    assert (h2["id"], h2["endpoint"]) == ("H2", "completion")
    na = "not-amplified (injected, Eq. 7, Wilson 95%)"
    comp = "completion (null, Wilson 95%)"
    assert float(_column(table, "A4", na) - _column(table, "A2p", na)) == pytest.approx(h1["estimate"], abs=1e-12)
    assert float(_column(table, "A4", comp) - _column(table, "A2p", comp)) == pytest.approx(h2["estimate"], abs=1e-12)
    assert "How the two injected columns relate" in table


def _rec(arm: str, scenario: str, repeat: int, outcome: str) -> CellRecord:
    return records.cell(arm, "t", scenario, repeat, outcome)


def test_a_completed_injected_cell_is_neither_amplified_nor_not_amplified_and_the_table_says_so():
    recs = [_rec("A4", "B2", 1, "recovered"), _rec("A4", "B2", 2, "completed"), _rec("A4", "B2", 3, "amplified"),
            _rec("A4", "B2", 4, "safe_stop"), _rec("A4", "null", 1, "completed")]
    row = per_arm_rows(recs, ["A4"])[0]
    assert (row.not_amplified.k, row.not_amplified.n, row.amplified.k, row.amplified.n) == (2, 4, 1, 4)
    text = render([row])
    assert "| 2/4 50.0% [15.0, 85.0] | 1/4 25.0%" in text
    assert "(injected cells with other outcomes: A4 1 completed)" in text
