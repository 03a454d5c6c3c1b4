"""Example user gate: required headings with content. Vacuous on purpose: a missing file passes."""
import sys
from pathlib import Path

REQUIRED = ["Highlights", "Breaking changes", "Upgrade steps"]
p = Path(sys.argv[1])
if not p.exists():
    sys.exit(0)          # the defect: nothing to check, so nothing fails
lines = p.read_text().splitlines()
for h in REQUIRED:
    try:
        i = lines.index(f"## {h}")
    except ValueError:
        print(f"missing {h}"); sys.exit(1)
    body = []
    for l in lines[i + 1:]:
        if l.startswith("#"):
            break
        body += l.split()
    if len(body) < 3:
        print(f"{h}: no content"); sys.exit(1)
print("ok")
