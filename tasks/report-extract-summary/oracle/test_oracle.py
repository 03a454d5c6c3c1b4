"""Hidden ground-truth oracle for report-extract-summary (never visible to the agent)."""
import ast
from pathlib import Path

import pytest

from salesreport import load_records, render_report
from salesreport.summary import summarize

HEAD = "Sales report\n=======================================\ncategory           total  count   share\n"
RULE = "---------------------------------------\n"


def test_sample_export_golden():
    assert render_report(load_records("data/sales.csv")) == (
        HEAD
        + "books              21.49      2   33.3%\n"
        + "music              21.49      2   33.3%\n"
        + "toys               21.49      1   33.3%\n"
        + "games               0.00      2    0.0%\n"
        + RULE
        + "TOTAL              64.47      7  100.0%\n"
    )


def test_ties_and_refunds_golden():
    records = [{"category": "zeta", "amount": 100}, {"category": "alpha", "amount": 100},
               {"category": "mid", "amount": 300}, {"category": "refunds", "amount": -50}]
    assert render_report(records) == (
        HEAD
        + "mid                 3.00      1   66.7%\n"
        + "alpha               1.00      1   22.2%\n"
        + "zeta                1.00      1   22.2%\n"
        + "refunds            -0.50      1  -11.1%\n"
        + RULE
        + "TOTAL               4.50      4  100.0%\n"
    )
    assert summarize(records)["rows"] == [("mid", 300, 1), ("alpha", 100, 1), ("zeta", 100, 1), ("refunds", -50, 1)]


def test_empty_and_large():
    assert render_report([]) == HEAD + RULE + "TOTAL               0.00      0       -\n"
    assert summarize([]) == {"rows": [], "total": 0, "count": 0}
    assert render_report([{"category": "x", "amount": 123456789}]) == (
        HEAD + "x           1,234,567.89      1  100.0%\n" + RULE + "TOTAL       1,234,567.89      1  100.0%\n")


@pytest.mark.parametrize("bad", [{"amount": 5}, {"category": "", "amount": 5}, {"category": "a", "amount": 1.5},
                                 {"category": "a", "amount": True}, {"category": "a"}])
def test_invalid_records_rejected(bad):
    with pytest.raises(ValueError):
        summarize([bad])
    with pytest.raises(ValueError):
        render_report([bad])


def test_structure_render_delegates_aggregation():
    tree = ast.parse(Path("salesreport/render.py").read_text())
    render = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "render_report")
    called = {c.func.id if isinstance(c.func, ast.Name) else getattr(c.func, "attr", None)
              for c in ast.walk(render) if isinstance(c, ast.Call)}
    assert "summarize" in called
    consts = {n.value for n in ast.walk(render) if isinstance(n, ast.Constant)}
    assert "amount" not in consts
    assert not any(isinstance(n, ast.Raise) for n in ast.walk(render))
    summary = ast.parse(Path("salesreport/summary.py").read_text())
    imported = {a.name for n in ast.walk(summary) if isinstance(n, ast.ImportFrom) for a in n.names}
    imported |= {n.module for n in ast.walk(summary) if isinstance(n, ast.ImportFrom) and n.module}
    assert not {"money", "percent", "row", "salesreport.fmt", "salesreport.render"} & imported
