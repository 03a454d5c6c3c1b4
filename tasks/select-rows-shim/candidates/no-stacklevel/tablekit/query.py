"""Queries over a table (a list of row dicts)."""
import warnings

from tablekit.csvio import Row, matches


def select_rows(table: list[Row], where: dict | None = None, *, limit: int | None = None) -> list[Row]:
    """Rows of `table` matching `where`, in table order, at most `limit` of them (None: all)."""
    if limit is not None and limit < 0:
        raise ValueError("limit must be >= 0")
    out = []
    for row in table:
        if limit is not None and len(out) >= limit:
            break
        if matches(row, where):
            out.append(row)
    return out


def fetch_rows(table: list[Row], lim: int | None = None, where: dict | None = None) -> list[Row]:
    """Deprecated: use select_rows(table, where, limit=lim)."""
    warnings.warn("fetch_rows is deprecated; use select_rows(table, where, limit=...)",
                  DeprecationWarning)
    return select_rows(table, where, limit=lim)


def first_row(table: list[Row], where: dict | None = None) -> Row | None:
    """The first row matching `where`, or None."""
    rows = select_rows(table, where, limit=1)
    return rows[0] if rows else None


def count_rows(table: list[Row], where: dict | None = None) -> int:
    """How many rows match `where`."""
    return len(select_rows(table, where))
