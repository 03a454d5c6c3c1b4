"""Gate: each required package pinned with == to a released version (offline index).

--strict is the PLANTED false-reject defect of the paper's Table 5: a regex that refuses
spacing and extras that PEP 508 allows.
"""
import json
import re
import sys
from pathlib import Path

args = sys.argv[1:]
strict = "--strict" in args
art = Path([a for a in args if not a.startswith("--")][0])
released = json.loads((Path(__file__).parent / "released.json").read_text())
LOOSE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*==\s*([A-Za-z0-9.+!-]+)\s*(;.*)?$")
STRICT = re.compile(r"^([a-z0-9-]+)()==([0-9.]+)()$")
if not art.is_file():
    print("absent"); sys.exit(1)
pins, problems = {}, []
for n, raw in enumerate(art.read_text().splitlines(), 1):
    line = raw.split("#", 1)[0].strip()
    if not line:
        continue
    m = (STRICT if strict else LOOSE).match(line)
    if not m:
        problems.append(f"line {n} not an exact pin: {raw!r}"); continue
    name = re.sub(r"[-_.]+", "-", m.group(1)).lower()
    pins[name] = m.group(3)
for pkg, versions in released.items():
    if pkg not in pins:
        problems.append(f"{pkg} not pinned")
    elif pins[pkg] not in versions:
        problems.append(f"{pkg}=={pins[pkg]} was never released")
if problems:
    print("\n".join(problems)); sys.exit(1)
print("ok")
