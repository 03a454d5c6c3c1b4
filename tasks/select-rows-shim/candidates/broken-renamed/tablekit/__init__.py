"""Tiny in-memory queries over CSV tables."""
from tablekit.csvio import load_table
from tablekit.query import count_rows, first_row, select_rows

__all__ = ["count_rows", "first_row", "load_table", "select_rows"]
