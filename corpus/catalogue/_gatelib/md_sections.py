"""Gate: required markdown headings present (and, with --require-content, content under each).

Exit 0 accept, 1 reject, 2 could not judge. --scan-dir is the planted vacuous mode: it checks
every *.md file found in the artifact's directory, so when there is none it checks nothing.
"""
import argparse
import re
import sys
from pathlib import Path

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")


def check(text, headings, require_content, min_words):
    lines = text.splitlines()
    found = {}
    for i, l in enumerate(lines):
        m = HEADING.match(l)
        if m:
            found.setdefault(m.group(2).strip().lower(), i)
    problems = []
    for h in headings:
        i = found.get(h.lower())
        if i is None:
            problems.append(f"missing heading {h!r}")
            continue
        if require_content:
            body = []
            for l in lines[i + 1:]:
                if HEADING.match(l):
                    break
                if l.strip():
                    body.append(l)
            words = sum(len(l.split()) for l in body)
            if words < min_words:
                problems.append(f"heading {h!r} has {words} words under it (< {min_words})")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("artifact")
    ap.add_argument("--heading", action="append", default=[])
    ap.add_argument("--require-content", action="store_true")
    ap.add_argument("--min-words", type=int, default=3)
    ap.add_argument("--scan-dir", action="store_true")
    a = ap.parse_args()
    art = Path(a.artifact)
    files = sorted(art.parent.glob("*.md")) if a.scan_dir else [art]
    problems = []
    for f in files:
        if not f.is_file():
            problems.append(f"{f.name}: artifact absent")
            continue
        problems += [f"{f.name}: {p}" for p in check(f.read_text(encoding="utf-8", errors="replace"),
                                                    a.heading, a.require_content, a.min_words)]
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok: {len(files)} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
