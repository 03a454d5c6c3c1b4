"""minicsv 2.1.0: a tiny CSV reader (vendored). See CHANGELOG.md for the 1.x -> 2.x changes."""
import csv
from typing import NamedTuple

__version__ = "2.1.0"


class CSVError(Exception):
    """A row whose field count differs from the header's."""


class Table(NamedTuple):
    fieldnames: list
    records: list


def read_records(text, *, delimiter=",", strip=False, comment=None):
    """Parse text into a Table: the header's names and one dict per data row.

    Blank lines are skipped. With strip=True fields and names are stripped of surrounding
    whitespace; with comment="#" lines whose first non-blank character is '#' are skipped.
    """
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if comment is not None:
        lines = [ln for ln in lines if not ln.lstrip().startswith(comment)]
    rows = list(csv.reader(lines, delimiter=delimiter))
    if strip:
        rows = [[field.strip() for field in row] for row in rows]
    if not rows:
        return Table([], [])
    names, records = rows[0], []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(names):
            raise CSVError(f"row {number} has {len(row)} fields, expected {len(names)}")
        records.append(dict(zip(names, row)))
    return Table(names, records)
