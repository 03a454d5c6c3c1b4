"""Command-line interface: `csvsum FILE --column NAME`."""
import argparse
import json
import sys

from csvsum.numbers import format_number
from csvsum.table import CsvSumError, read_column


def build_parser():
    parser = argparse.ArgumentParser(prog="csvsum", description="Sum one numeric column of a CSV file.")
    parser.add_argument("file", help="CSV file with a header row")
    parser.add_argument("--column", required=True, help="name of the column to sum")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    return parser


def _json_number(value):
    """An int stays an int; a float is rounded like the text output (no float noise)."""
    return value if isinstance(value, int) else round(value, 10)


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        values = read_column(args.file, args.column)
    except CsvSumError as exc:
        if args.format == "json":
            print(json.dumps({"error": str(exc)}))
        else:
            print(f"error: {exc}", file=sys.stderr)
        return 1
    total = sum(values)
    if args.format == "json":
        print(json.dumps({"column": args.column, "count": len(values), "sum": _json_number(total)}))
    else:
        print(f"column={args.column} count={len(values)} sum={format_number(total)}")
    return 0
