"""Predicate gate: the six disclosure phrases occur in the normalised body."""
import re
from pathlib import Path

PHRASES = ["personal data we collect", "purposes of processing", "legal basis",
           "retention period", "your rights", "contact the data protection officer"]


def check(artifact: str) -> bool:
    p = Path(artifact)
    if not p.is_file():
        return False
    body = re.sub(r"\s+", " ", re.sub(r"[*_`#>]", " ", p.read_text(encoding="utf-8"))).lower()
    return all(ph in body for ph in PHRASES)
