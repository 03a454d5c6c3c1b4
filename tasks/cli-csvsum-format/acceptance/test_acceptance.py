"""Visible acceptance test for cli-csvsum-format: drives csvsum.cli.main(argv)."""
import json
from pathlib import Path

import csvsum
from csvsum.cli import main

SALES = str(Path(csvsum.__file__).resolve().parent.parent / "data" / "sales.csv")


def test_text_output_unchanged(capsys):
    assert main([SALES, "--column", "amount"]) == 0
    assert capsys.readouterr().out == "column=amount count=4 sum=31.25\n"


def test_json_output(capsys):
    assert main([SALES, "--column", "amount", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"column": "amount", "count": 4, "sum": 31.25}


def test_json_integer_column(capsys):
    assert main([SALES, "--column", "units", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["sum"] == 12
