import json
import sys
from pathlib import Path

p = Path(sys.argv[1])
if not p.is_file():
    print("absent"); sys.exit(1)
try:
    h = {k.lower(): v for k, v in json.loads(p.read_text()).items()}
except (ValueError, AttributeError) as exc:
    print(f"malformed: {exc}"); sys.exit(1)
probs = []
csp = h.get("content-security-policy")
if not isinstance(csp, str) or not csp.strip() or "unsafe-inline" in csp:
    probs.append("CSP missing or unsafe")
if h.get("x-content-type-options") != "nosniff":
    probs.append("nosniff missing")
if not isinstance(h.get("x-frame-options"), str) or h["x-frame-options"].upper() not in ("DENY", "SAMEORIGIN"):
    probs.append("frame options")
if not isinstance(h.get("referrer-policy"), str) or not h["referrer-policy"]:
    probs.append("referrer policy")
if probs:
    print("; ".join(probs)); sys.exit(1)
print("ok")
