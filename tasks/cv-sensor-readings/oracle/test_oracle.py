"""Hidden oracle for cv-sensor-readings: the whole reading contract, with edge cases."""
import pytest

from sensors import parse_reading

BASE = {"sensor_id": "ab-1", "ts": 946684800, "kind": "humidity", "value": 0}


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


def test_boundaries_and_optionals():
    assert fields(parse_reading(BASE)) == ("Reading", "ab-1", 946684800, "humidity", 0.0, "%", 3)
    assert parse_reading({**BASE, "value": 100, "unit": "%", "quality": 0}).quality == 0
    assert parse_reading({**BASE, "kind": "temperature", "value": -50, "unit": "C"}).value == -50.0
    assert parse_reading({**BASE, "ts": 4102444799}).ts == 4102444799


@pytest.mark.parametrize("patch,expected", [
    ({"unit": "F", "kind": "temperature", "value": 20}, ("unit", "value")),
    ({"unit": "hPa"}, ("unit", "value")),
    ({"unit": "%%"}, ("unit", "value")),
    ({"unit": 37}, ("unit", "type")),
    ({"unit": None}, ("unit", "type")),
])
def test_optional_unit_is_typed_and_must_match_kind(patch, expected):
    assert violation({**BASE, **patch}) == expected


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_values_are_out_of_range(value):
    assert violation({**BASE, "value": value}) == ("value", "range")


@pytest.mark.parametrize("patch,expected", [
    ({"value": True}, ("value", "type")),
    ({"value": None}, ("value", "type")),
    ({"ts": True}, ("ts", "type")),
    ({"ts": 1714000000.0}, ("ts", "type")),
    ({"ts": 946684799}, ("ts", "range")),
    ({"ts": 4102444800}, ("ts", "range")),
    ({"quality": 4}, ("quality", "range")),
    ({"quality": -1}, ("quality", "range")),
    ({"quality": True}, ("quality", "type")),
    ({"quality": 2.0}, ("quality", "type")),
    ({"kind": "Humidity"}, ("kind", "value")),
    ({"kind": ["humidity"]}, ("kind", "type")),
    ({"sensor_id": "AB-1"}, ("sensor_id", "value")),
    ({"sensor_id": "ab-12345"}, ("sensor_id", "value")),
    ({"value": -0.1}, ("value", "range")),
    ({"kind": "pressure", "value": 799.9}, ("value", "range")),
])
def test_types_and_ranges(patch, expected):
    assert violation({**BASE, **patch}) == expected


def test_first_violation_in_contract_order():
    assert violation({"ts": "x", "kind": "nope", "value": 1}) == ("sensor_id", "missing")
    assert violation({**BASE, "ts": "x", "value": "y"}) == ("ts", "type")
    assert violation({**BASE, "extra": 1, "quality": 9}) == ("quality", "range")


@pytest.mark.parametrize("raw", [None, [], "ab-1"])
def test_non_dict(raw):
    assert violation(raw) == ("$", "type")
