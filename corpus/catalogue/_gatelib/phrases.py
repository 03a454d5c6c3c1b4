"""Gate: required phrases occur in the normalised body (and, with --not-negated, in a sentence
that does not deny them).

Exit 0 accept, 1 reject. Without --not-negated this is the paper's Table 5 defect: a substring
match accepts the phrase inside a denial.
"""
import argparse
import re
import sys
from pathlib import Path

NEG = re.compile(r"\b(not|never|no|neither|nor|cannot|won't|doesn't|don't|isn't|excluding)\b|n't\b", re.I)


def norm(s):
    s = re.sub(r"<!--.*?-->", " ", s, flags=re.S)
    s = re.sub(r"[*_`>#]", " ", s)
    return re.sub(r"\s+", " ", s).strip().lower()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("artifact")
    ap.add_argument("--phrase", action="append", default=[])
    ap.add_argument("--not-negated", action="store_true")
    a = ap.parse_args()
    p = Path(a.artifact)
    if not p.is_file():
        print("artifact absent")
        return 1
    body = norm(p.read_text(encoding="utf-8", errors="replace"))
    sentences = re.split(r"(?<=[.;:!?])\s+", body)
    problems = []
    for phrase in a.phrase:
        ph = norm(phrase)
        hits = [s for s in sentences if ph in s]
        if not hits:
            problems.append(f"missing: {phrase!r}")
        elif a.not_negated and all(NEG.search(s[:s.index(ph)]) for s in hits):
            problems.append(f"negated: {phrase!r}")
    if problems:
        print("\n".join(problems))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
