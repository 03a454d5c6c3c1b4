"""parse_reading: check a raw reading against the contract and build a Reading."""
import re

from sensors.reading import Reading, ReadingError
from sensors.units import KINDS, TS_MAX, TS_MIN

SENSOR_ID = re.compile(r"[a-z]{2,8}-[0-9]{1,4}")
REQUIRED = ("sensor_id", "ts", "kind", "value")
OPTIONAL = ("unit", "quality")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse_reading(raw):
    """A Reading from raw, or ReadingError(field, rule) for the first violation."""
    if not isinstance(raw, dict):
        raise ReadingError("$", "type")
    for name in REQUIRED:
        if name not in raw:
            raise ReadingError(name, "missing")
    if not isinstance(raw["sensor_id"], str):
        raise ReadingError("sensor_id", "type")
    if not SENSOR_ID.fullmatch(raw["sensor_id"]):
        raise ReadingError("sensor_id", "value")
    if not _is_int(raw["ts"]):
        raise ReadingError("ts", "type")
    if not TS_MIN <= raw["ts"] < TS_MAX:
        raise ReadingError("ts", "range")
    if not isinstance(raw["kind"], str):
        raise ReadingError("kind", "type")
    if raw["kind"] not in KINDS:
        raise ReadingError("kind", "value")
    unit, low, high = KINDS[raw["kind"]]
    value = raw["value"]
    if not _is_number(value):
        raise ReadingError("value", "type")
    if value < low or value > high:
        raise ReadingError("value", "range", f"{raw['kind']} must be in [{low}, {high}]")
    if "unit" in raw:
        if not isinstance(raw["unit"], str):
            raise ReadingError("unit", "type")
        if raw["unit"] != unit:
            raise ReadingError("unit", "value", f"{raw['kind']} is measured in {unit}")
    quality = raw.get("quality", 3)
    if "quality" in raw:
        if not _is_int(quality):
            raise ReadingError("quality", "type")
        if not 0 <= quality <= 3:
            raise ReadingError("quality", "range")
    for name in raw:
        if name not in REQUIRED and name not in OPTIONAL:
            raise ReadingError(name, "unexpected")
    return Reading(raw["sensor_id"], raw["ts"], raw["kind"], float(value), unit, quality)
