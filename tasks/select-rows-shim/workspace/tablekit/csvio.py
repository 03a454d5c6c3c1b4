"""Load tables from CSV files."""
import csv
from pathlib import Path

Row = dict[str, str]


def load_table(path: str | Path) -> list[Row]:
    """Every row of the CSV file at `path` as a dict keyed by the header."""
    with open(path, newline="") as f:
        return [dict(row) for row in csv.DictReader(f)]


def matches(row: Row, where: dict | None) -> bool:
    """True when row[column] == value for every (column, value) in where (None matches all)."""
    return all(row.get(column) == value for column, value in (where or {}).items())
