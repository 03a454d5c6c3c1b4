"""Duration units, largest first. Every unit is a whole number of seconds."""

UNITS: dict[str, int] = {
    "d": 86400,
    "h": 3600,
    "m": 60,
    "s": 1,
}

# Units in the only order they may appear in a duration: largest first.
ORDER: tuple[str, ...] = tuple(UNITS)


def unit_seconds(unit: str) -> int:
    """Seconds in one `unit` ("d", "h", "m" or "s"; case-insensitive), or ValueError."""
    try:
        return UNITS[unit.lower()]
    except KeyError:
        raise ValueError(f"unknown duration unit: {unit!r}") from None


def unit_rank(unit: str) -> int:
    """Position of `unit` in ORDER (0 = days), or ValueError."""
    unit_seconds(unit)
    return ORDER.index(unit.lower())
