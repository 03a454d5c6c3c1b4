"""Unit tests for pantry.expiry; every test passes `today` explicitly (no real clock)."""
from datetime import date

import pytest

from pantry import days_left, expiring_soon, is_expired, load_items

TODAY = date(2024, 5, 1)


def test_not_expired_yet():
    assert not is_expired(date(2024, 6, 1), today=TODAY)


def test_best_before_day_itself_is_not_expired():
    assert not is_expired(date(2024, 5, 1), today=TODAY)
    assert is_expired(date(2024, 4, 30), today=TODAY)


def test_expired():
    assert is_expired(date(2024, 1, 1), today=TODAY)


def test_days_left():
    assert days_left(date(2024, 5, 10), today=TODAY) == 9
    assert days_left(date(2024, 5, 1), today=TODAY) == 0
    assert days_left(date(2024, 4, 28), today=TODAY) == -3


def test_expiring_soon():
    items = load_items("data/pantry.csv")
    assert expiring_soon(items, 7, today=TODAY) == ["yoghurt", "milk"]
    assert expiring_soon(items, 9, today=TODAY) == ["yoghurt", "milk", "eggs"]


def test_expiring_soon_skips_expired_and_breaks_ties_by_name():
    items = {"b": date(2024, 5, 3), "a": date(2024, 5, 3), "old": date(2024, 4, 1)}
    assert expiring_soon(items, 5, today=TODAY) == ["a", "b"]


def test_negative_window():
    with pytest.raises(ValueError):
        expiring_soon({}, -1, today=TODAY)
