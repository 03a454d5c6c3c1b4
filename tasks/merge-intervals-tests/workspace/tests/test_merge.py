"""Unit tests for spans (written before 0.3)."""
import pytest

from spans import merge


def test_empty():
    assert merge([]) == []


def test_unsorted_input():
    assert merge([(5, 8), (1, 3), (2, 4)]) == [(1, 4), (5, 8)]


def test_contained_interval():
    assert merge([(1, 10), (2, 3)]) == [(1, 10)]


def test_touching_intervals_stay_apart():
    assert merge([(1, 2), (2, 3)]) == [(1, 2), (2, 3)]


def test_rejects_reversed_interval():
    with pytest.raises(ValueError):
        merge([(3, 1)])
