"""Unit tests for pantry.expiry; dates are relative to the current day so they never go stale."""
from datetime import date, timedelta

import pytest

from pantry import days_left, expiring_soon, is_expired

TODAY = date.today()


def test_not_expired_yet():
    assert not is_expired(TODAY + timedelta(days=31))


def test_best_before_day_itself_is_not_expired():
    assert not is_expired(TODAY)
    assert is_expired(TODAY - timedelta(days=1))


def test_expired():
    assert is_expired(TODAY - timedelta(days=120))


def test_days_left():
    assert days_left(TODAY + timedelta(days=9)) == 9
    assert days_left(TODAY) == 0
    assert days_left(TODAY - timedelta(days=3)) == -3


def test_expiring_soon():
    items = {"milk": TODAY + timedelta(days=2), "eggs": TODAY + timedelta(days=9), "yoghurt": TODAY}
    assert expiring_soon(items, 7) == ["yoghurt", "milk"]
    assert expiring_soon(items, 9) == ["yoghurt", "milk", "eggs"]


def test_expiring_soon_skips_expired_and_breaks_ties_by_name():
    items = {"b": TODAY + timedelta(days=2), "a": TODAY + timedelta(days=2), "old": TODAY - timedelta(days=30)}
    assert expiring_soon(items, 5) == ["a", "b"]


def test_negative_window():
    with pytest.raises(ValueError):
        expiring_soon({}, -1)
