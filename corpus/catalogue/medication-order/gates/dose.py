"""Predicate: the dose is within the formulary maximum single dose (converted to mg)."""
import json
from pathlib import Path

MAX_MG = {"amoxicillin": 1000, "paracetamol": 1000, "ibuprofen": 800}
TO_MG = {"mg": 1, "mcg": 0.001, "g": 1000}


def check(artifact):
    p = Path(artifact)
    if not p.is_file():
        return False
    try:
        o = json.loads(p.read_text())
        mg = float(o["dose"]) * TO_MG[o["unit"]]
        return o["drug"] in MAX_MG and 0 < mg <= MAX_MG[o["drug"]]
    except (ValueError, KeyError, TypeError):
        return False
