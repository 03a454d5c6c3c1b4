"""Validate a JSON-lines file of order records."""
import json
from pathlib import Path

from orders.contract import validate_order
from orders.violation import Violation


def validate_jsonl(path):
    """{line number: violations} for every non-conforming line (blank lines are skipped)."""
    bad = {}
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad[number] = [Violation("$", "type")]
            continue
        violations = validate_order(record)
        if violations:
            bad[number] = violations
    return bad
