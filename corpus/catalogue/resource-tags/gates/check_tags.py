"""Gate: every resource carries owner / cost-center / env tags.

--lenient is the PLANTED absence defect: `all()` over the resources it can find, where a
missing file or an empty list yields nothing to check and so passes.
"""
import json
import sys
from pathlib import Path

args = sys.argv[1:]
lenient = "--lenient" in args
p = Path([a for a in args if not a.startswith("--")][0])
resources = []
if p.is_file():
    try:
        resources = json.loads(p.read_text()).get("resources", [])
    except (ValueError, AttributeError):
        resources = None
elif not lenient:
    print("absent"); sys.exit(1)
if resources is None or not isinstance(resources, list):
    print("malformed"); sys.exit(1)
if not resources and not lenient:
    print("no resources"); sys.exit(1)


def ok(r):
    t = r.get("tags") if isinstance(r, dict) else None
    return (isinstance(t, dict) and all(isinstance(t.get(k), str) and t[k].strip() for k in ("owner", "cost-center", "env"))
            and t["env"] in ("dev", "staging", "prod"))


bad = [r.get("name", "?") if isinstance(r, dict) else "?" for r in resources if not ok(r)]
if bad:
    print("untagged:", bad); sys.exit(1)
print(f"ok: {len(resources)} resources")
