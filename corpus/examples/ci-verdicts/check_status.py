"""A self-attesting gate: it trusts the report's own 'status' instead of the checks it claims."""
import json
import sys

try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(1)
sys.exit(0 if report.get("status") == "passed" else 1)
