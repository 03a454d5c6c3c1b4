"""Length conversion."""
from unitconv.factors import METRES_PER_UNIT


def supported_units() -> list[str]:
    """The length units convert_length knows, sorted."""
    return sorted(METRES_PER_UNIT)


def convert_length(value: float, from_unit: str, to_unit: str, digits: int = 3) -> float:
    """value in from_unit expressed in to_unit, rounded to `digits` decimals.

    An unknown unit raises ValueError naming the unit.
    """
    for unit in (from_unit, to_unit):
        if unit not in METRES_PER_UNIT:
            raise ValueError(f"unknown unit: {unit}")
    return round(value * METRES_PER_UNIT[from_unit] / METRES_PER_UNIT[to_unit], digits)
