"""Gate: every [A v B YEAR] citation resolves in reference.json; at least one citation.

--self-derived is the PLANTED defect (paper Example 8.2): the search pattern is built from the
reference data, so a citation outside the reference set is never examined.
"""
import json
import re
import sys
from pathlib import Path

args = sys.argv[1:]
self_derived = "--self-derived" in args
artifact = Path([a for a in args if not a.startswith("--")][0])
ref = json.loads((Path(__file__).parent / "reference.json").read_text())["cases"]
known = {(c["parties"].lower(), c["year"]) for c in ref}
if not artifact.is_file():
    print("artifact absent")
    sys.exit(1)
text = artifact.read_text(encoding="utf-8", errors="replace")
if self_derived:
    pattern = "|".join(re.escape(c["parties"]) + r"\s+(\d{4})" for c in ref)
    cites = [(m.group(0).strip("[]").rsplit(" ", 1)[0].lower(), int(m.group(0).strip("[]").rsplit(" ", 1)[1]))
             for m in re.finditer(r"\[(?:" + pattern + r")\]", text)]
else:
    cites = [(m.group(1).strip().lower(), int(m.group(2)))
             for m in re.finditer(r"\[([^\[\]]+?\sv\.?\s[^\[\]]+?)\s+(\d{4})\]", text)]
cites = [(p.strip("["), y) for p, y in cites]
bad = [c for c in cites if c not in known]
if not cites:
    print("no citations")
    sys.exit(1)
if bad:
    print("unresolved:", bad)
    sys.exit(1)
print(f"ok: {len(cites)} citations resolve")
