"""Queries over a table (a list of row dicts)."""
from tablekit.csvio import Row, matches


def fetch_rows(table: list[Row], lim: int | None = None, where: dict | None = None) -> list[Row]:
    """Rows of `table` matching `where`, in table order, at most `lim` of them (None: all)."""
    if lim is not None and lim < 0:
        raise ValueError("lim must be >= 0")
    out = []
    for row in table:
        if lim is not None and len(out) >= lim:
            break
        if matches(row, where):
            out.append(row)
    return out


def first_row(table: list[Row], where: dict | None = None) -> Row | None:
    """The first row matching `where`, or None."""
    rows = fetch_rows(table, 1, where)
    return rows[0] if rows else None


def count_rows(table: list[Row], where: dict | None = None) -> int:
    """How many rows match `where`."""
    return len(fetch_rows(table, None, where))
