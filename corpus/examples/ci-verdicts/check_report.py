"""A sound gate for the same report: every check names itself and ran at least one assertion."""
import json
import sys

try:
    report = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(1)
checks = report.get("checks")
ok = isinstance(checks, list) and len(checks) >= 2 and all(
    isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"].strip()
    and isinstance(c.get("assertions"), int) and c["assertions"] > 0 for c in checks)
sys.exit(0 if ok else 1)
