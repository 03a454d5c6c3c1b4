"""Visible acceptance test for parse-range (the agent can see and run this)."""
import pytest

from rangeparse import parse_range


def test_single_numbers():
    assert parse_range("5") == [5]
    assert parse_range("3,1") == [1, 3]


def test_simple_range():
    assert parse_range("1-3") == [1, 2, 3]


def test_mixed_and_whitespace():
    assert parse_range("2, 4-6") == [2, 4, 5, 6]


def test_rejects_garbage():
    with pytest.raises(ValueError):
        parse_range("x")
