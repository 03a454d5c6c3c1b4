import re
import sys
from pathlib import Path

TYPES = "feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert"
SUBJECT = re.compile(rf"^({TYPES})(\([a-z0-9-]+\))?!?: \S.*$")
p = Path(sys.argv[1])
if not p.is_file():
    print("absent"); sys.exit(1)
lines = [l for l in p.read_text().splitlines() if not l.startswith("#")]
if not lines or not SUBJECT.match(lines[0]):
    print(f"bad subject: {lines[:1]!r}"); sys.exit(1)
if len(lines) > 1 and lines[1].strip():
    print("body must be separated by a blank line"); sys.exit(1)
print("ok")
