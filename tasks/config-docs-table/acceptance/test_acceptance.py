"""Visible acceptance test for config-docs-table (the agent can see and run this)."""
from pathlib import Path

from svcconf import DEFAULTS


def table_rows(path="docs/config.md"):
    rows = []
    for line in Path(path).read_text().splitlines():
        if line.startswith("|") and not line.startswith("|-"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_table_header():
    assert table_rows()[0] == ["key", "type", "default", "description"]


def test_every_key_documented_and_no_others():
    keys = [row[0] for row in table_rows()[1:]]
    assert set(keys) == set(DEFAULTS)
