import re
import sys
from pathlib import Path

ENTRY = "csv import no longer shifts rows on empty quoted fields"
p = Path(sys.argv[1])
if not p.is_file():
    print("absent"); sys.exit(1)
text = p.read_text()
m = re.search(r"^## \[Unreleased\]\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
if not m:
    print("no Unreleased section"); sys.exit(1)
sec = m.group(1)
f = re.search(r"^### Fixed\s*$(.*?)(?=^###? |\Z)", sec, re.M | re.S)
if not f or not any(l.strip().lstrip("-* ").lower() == ENTRY for l in f.group(1).splitlines()):
    print("entry missing under Unreleased / Fixed"); sys.exit(1)
if not re.search(r"^## \[1\.4\.0\] - 2026-02-10", text, re.M) or "Export to Parquet" not in text:
    print("released history changed"); sys.exit(1)
print("ok")
