"""Hidden ground-truth oracle for median."""
import pytest

from stats_kit import median


def test_even_length_is_mean_of_middles():
    assert median([1, 2, 3, 4]) == 2.5
    assert median([10, 0]) == 5


def test_accepts_iterables_and_does_not_mutate():
    data = [3, 1, 2]
    assert median(data) == 2
    assert data == [3, 1, 2]
    assert median(x for x in (7, 1, 3)) == 3
    assert median((2.0, 4.0)) == 3.0


def test_empty_raises():
    with pytest.raises(ValueError):
        median(iter([]))
