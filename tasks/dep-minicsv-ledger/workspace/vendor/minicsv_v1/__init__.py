"""minicsv 1.3.0: a tiny CSV reader (vendored). Deprecated: removed in the next release."""
import csv

__version__ = "1.3.0"


def read_rows(text, delimiter=","):
    """All rows of text as lists of strings, header included.

    Fields are stripped of surrounding whitespace; blank lines and lines whose first
    non-blank character is '#' are skipped.
    """
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    return [[field.strip() for field in row] for row in csv.reader(lines, delimiter=delimiter)]
