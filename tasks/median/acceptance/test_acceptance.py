"""Visible acceptance test for median."""
import pytest

from stats_kit import median


def test_odd_length():
    assert median([3, 1, 2]) == 2
    assert median([5]) == 5


def test_even_length_equal_middles():
    assert median([4, 1, 4, 9]) == 4


def test_empty_raises():
    with pytest.raises(ValueError):
        median([])
