"""Reading one column of a CSV file."""
import csv
from pathlib import Path

from csvsum.numbers import parse_number


class CsvSumError(Exception):
    """A runtime failure reported to the user (exit code 1)."""


def read_column(path, name):
    """The numbers in column `name` of the CSV file at path; blank cells are skipped."""
    try:
        with Path(path).open(newline="") as handle:
            rows = list(csv.reader(handle))
    except OSError as exc:
        raise CsvSumError(f"cannot read {path}: {exc.strerror}") from None
    if not rows:
        raise CsvSumError(f"{path}: empty file")
    header = rows[0]
    if name not in header:
        raise CsvSumError(f"{path}: no column {name!r}")
    index = header.index(name)
    values = []
    for number, row in enumerate(rows[1:], start=2):
        cell = row[index] if index < len(row) else ""
        if not cell.strip():
            continue
        try:
            values.append(parse_number(cell))
        except ValueError:
            raise CsvSumError(f"{path}:{number}: not a number in {name!r}: {cell!r}") from None
    return values
