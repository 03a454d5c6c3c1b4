import re
import sys
from pathlib import Path

p = Path(sys.argv[1])
if not p.is_file():
    print("absent"); sys.exit(1)
lines = [l.strip() for l in p.read_text().splitlines() if l.strip() and not l.strip().startswith("#")]
instr = [(l.split()[0].upper(), l.split(None, 1)[1] if len(l.split()) > 1 else "") for l in lines]
probs = []
froms = [a for i, a in instr if i == "FROM"]
if not froms:
    probs.append("no FROM")
for a in froms:
    img = a.split()[0]
    if "@sha256:" not in img and (":" not in img or img.endswith(":latest")):
        probs.append(f"base image not pinned: {img}")
users = [k for k, (i, a) in enumerate(instr) if i == "USER"]
final = max([k for k, (i, _) in enumerate(instr) if i in ("CMD", "ENTRYPOINT")], default=None)
if final is None:
    probs.append("no CMD/ENTRYPOINT")
elif not users or users[-1] > final or instr[users[-1]][1].strip() in ("", "root", "0"):
    probs.append("does not run as non-root")
if not any(i == "HEALTHCHECK" and a.strip() and a.strip().upper() != "NONE" for i, a in instr):
    probs.append("no HEALTHCHECK")
if probs:
    print("; ".join(probs)); sys.exit(1)
print("ok")
