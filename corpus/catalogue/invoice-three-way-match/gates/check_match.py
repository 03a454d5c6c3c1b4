"""Gate: three-way match of invoice vs purchase order vs goods receipt."""
import json
import sys
from decimal import Decimal
from pathlib import Path

p = Path(sys.argv[1])
if not p.is_file():
    print("artifact absent"); sys.exit(1)
try:
    doc = json.loads(p.read_text())
    po = {l["sku"]: l for l in doc["purchase_order"]["lines"]}
    gr = {l["sku"]: l for l in doc["receipt"]["lines"]}
    inv = doc["invoice"]
    lines = inv["lines"]
    problems = [] if lines else ["invoice has no lines"]
    total = Decimal("0")
    for l in lines:
        if l["sku"] not in po or l["sku"] not in gr:
            problems.append(f"{l['sku']}: not on PO and receipt"); continue
        for k in ("qty", "unit_price"):
            if not isinstance(l[k], (int, float)) or isinstance(l[k], bool):
                problems.append(f"{l['sku']}: {k} not numeric")
        if problems:
            continue
        if l["qty"] > gr[l["sku"]]["qty"]:
            problems.append(f"{l['sku']}: invoiced more than received")
        if Decimal(str(l["unit_price"])) != Decimal(str(po[l["sku"]]["unit_price"])):
            problems.append(f"{l['sku']}: price differs from PO")
        total += Decimal(str(l["qty"])) * Decimal(str(l["unit_price"]))
    if not isinstance(inv["total"], (int, float)) or Decimal(str(inv["total"])) != total:
        problems.append(f"total {inv['total']!r} != {total}")
except (KeyError, TypeError, ValueError, AttributeError) as exc:
    print(f"malformed: {exc!r}"); sys.exit(1)
if problems:
    print("; ".join(problems)); sys.exit(1)
print("ok")
