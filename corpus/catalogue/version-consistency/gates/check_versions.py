import re
import sys
from pathlib import Path

d = Path(sys.argv[1])
v, c = d / "VERSION", d / "CHANGELOG.md"
if not v.is_file() or not c.is_file():
    print("absent"); sys.exit(1)
version = v.read_text().strip()
m = re.search(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})\s*$", c.read_text(), re.M)
if not m or m.group(1) != version:
    print(f"VERSION {version!r} != newest release {m.group(1) if m else None!r}"); sys.exit(1)
print("ok")
