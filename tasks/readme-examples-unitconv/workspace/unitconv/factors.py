"""Conversion factors, loaded from data/length_units.csv (metres per unit)."""
import csv
from pathlib import Path

_DATA = Path(__file__).resolve().parent.parent / "data" / "length_units.csv"


def load_factors(path: Path = _DATA) -> dict[str, float]:
    """{unit: metres per unit} from a CSV with columns unit,metres."""
    with open(path, newline="") as f:
        return {row["unit"]: float(row["metres"]) for row in csv.DictReader(f)}


METRES_PER_UNIT: dict[str, float] = load_factors()
