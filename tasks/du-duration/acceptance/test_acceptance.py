"""Visible acceptance test for du-duration (the agent can see and run this)."""
import pytest

from durations import parse_duration


def test_single_units():
    assert parse_duration("90s") == 90
    assert parse_duration("5m") == 300
    assert parse_duration("2d") == 172800


def test_compound():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("1d2h3m4s") == 93784


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_duration("soon")
