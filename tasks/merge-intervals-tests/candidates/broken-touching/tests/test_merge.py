"""Unit tests for spans."""
import pytest

from spans import merge_intervals, total_covered


def test_empty():
    assert merge_intervals([]) == []


def test_unsorted_input():
    assert merge_intervals([(5, 8), (1, 3), (2, 4)]) == [(1, 4), (5, 8)]


def test_contained_interval():
    assert merge_intervals([(1, 10), (2, 3)]) == [(1, 10)]


def test_touching_intervals_stay_apart():
    assert merge_intervals([(1, 2), (2, 3)]) == [(1, 2), (2, 3)]


def test_rejects_reversed_interval():
    with pytest.raises(ValueError):
        merge_intervals([(3, 1)])


def test_argument_is_not_modified():
    data = [(5, 8), (1, 3)]
    result = merge_intervals(data)
    assert data == [(5, 8), (1, 3)]
    assert result is not data


def test_total_covered():
    assert total_covered([(1, 3), (2, 4), (10, 11)]) == 4
