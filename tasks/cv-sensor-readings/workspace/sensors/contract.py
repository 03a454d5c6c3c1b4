"""parse_reading: check a raw reading against the contract and build a Reading."""
import re

from sensors.reading import Reading, ReadingError
from sensors.units import KINDS, TS_MAX, TS_MIN

SENSOR_ID = re.compile(r"[a-z]{2,8}-[0-9]{1,4}")
REQUIRED = ("sensor_id", "ts", "kind", "value")


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
    if not isinstance(raw["ts"], int):
        raise ReadingError("ts", "type")
    if not TS_MIN <= raw["ts"] < TS_MAX:
        raise ReadingError("ts", "range")
    if raw["kind"] not in KINDS:
        raise ReadingError("kind", "value")
    # TODO: value (type and per-kind bounds), the optional unit and quality, unexpected fields
    unit = KINDS[raw["kind"]][0]
    return Reading(raw["sensor_id"], raw["ts"], raw["kind"], float(raw["value"]), unit, 3)
