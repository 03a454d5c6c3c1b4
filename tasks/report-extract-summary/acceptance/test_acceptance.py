"""Visible acceptance test for report-extract-summary (the agent can see and run this)."""
from salesreport import render_report
from salesreport.summary import summarize

RECORDS = [
    {"category": "a", "amount": 500}, {"category": "b", "amount": 1500},
    {"category": "c", "amount": 250}, {"category": "b", "amount": 100},
]


def test_summarize():
    assert summarize(RECORDS) == {"rows": [("b", 1600, 2), ("a", 500, 1), ("c", 250, 1)], "total": 2350, "count": 4}


def test_report_text_unchanged():
    assert render_report(RECORDS) == (
        "Sales report\n"
        "=======================================\n"
        "category           total  count   share\n"
        "b                  16.00      2   68.1%\n"
        "a                   5.00      1   21.3%\n"
        "c                   2.50      1   10.6%\n"
        "---------------------------------------\n"
        "TOTAL              23.50      4  100.0%\n"
    )
