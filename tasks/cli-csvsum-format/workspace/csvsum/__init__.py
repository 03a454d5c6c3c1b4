"""Sum a numeric column of a CSV file."""
from csvsum.cli import main
from csvsum.table import CsvSumError, read_column

__all__ = ["CsvSumError", "main", "read_column"]
