"""Visible acceptance test for cv-sensor-readings."""
from pathlib import Path

import pytest

import sensors
from sensors import ingest_jsonl, parse_reading

ROOT = Path(sensors.__file__).resolve().parent.parent
OK = {"sensor_id": "boiler-7", "ts": 1714000000, "kind": "temperature", "value": 71.5}


def violation(raw):
    """(field, rule) of the ReadingError (a ValueError) that raw raises; another error is named instead."""
    with pytest.raises(ValueError) as info:
        parse_reading(raw)
    if "ReadingError" not in [c.__name__ for c in type(info.value).__mro__]:
        return "raised " + type(info.value).__name__, None
    return info.value.field, info.value.rule


def fields(reading):
    """A reading as plain data: its class name and its fields in declaration order."""
    return (type(reading).__name__, reading.sensor_id, reading.ts, reading.kind, reading.value, reading.unit,
            reading.quality)


def test_valid_reading_gets_defaults():
    assert fields(parse_reading(OK)) == ("Reading", "boiler-7", 1714000000, "temperature", 71.5, "C", 3)


def test_value_bounds_depend_on_kind():
    assert violation({**OK, "value": 150.5}) == ("value", "range")
    assert violation({**OK, "kind": "humidity", "value": 101}) == ("value", "range")
    assert parse_reading({**OK, "kind": "pressure", "value": 1013})
    assert violation({**OK, "value": "71.5"}) == ("value", "type")


def test_missing_and_unexpected():
    assert violation({k: v for k, v in OK.items() if k != "ts"}) == ("ts", "missing")
    assert violation({**OK, "location": "basement"}) == ("location", "unexpected")


def test_sample_capture():
    accepted, rejected = ingest_jsonl(ROOT / "data" / "readings.jsonl")
    assert len(accepted) == 3
    assert [(n, e.field, e.rule) for n, e in rejected] == [(4, "value", "range")]
