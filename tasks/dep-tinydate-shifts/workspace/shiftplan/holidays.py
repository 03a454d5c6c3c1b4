"""Reading the holiday list."""
from pathlib import Path


def load_holidays(path):
    """The set of ISO date strings listed in a holidays file (blank lines and '#' comments skipped)."""
    out = set()
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.add(line)
    return frozenset(out)
