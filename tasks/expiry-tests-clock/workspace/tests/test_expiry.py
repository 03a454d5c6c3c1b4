"""Unit tests for pantry.expiry (written in spring 2024)."""
from datetime import date

import pytest

from pantry import days_left, expiring_soon, is_expired, load_items


def test_not_expired_yet():
    assert not is_expired(date(2024, 6, 1))


def test_expired():
    assert is_expired(date(2024, 1, 1))


def test_days_left():
    assert days_left(date(2024, 5, 10)) > 0


def test_expiring_soon():
    items = load_items("data/pantry.csv")
    assert expiring_soon(items, 7) == ["milk", "eggs"]


def test_negative_window():
    with pytest.raises(ValueError):
        expiring_soon({}, -1)
