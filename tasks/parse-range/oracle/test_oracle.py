"""Hidden ground-truth oracle for parse-range (never visible to the agent)."""
import pytest

from rangeparse import parse_range


def test_zero_is_valid():
    assert parse_range("0") == [0]
    assert parse_range("0-2") == [0, 1, 2]
    assert parse_range("0,0") == [0]


def test_ranges_and_dedup():
    assert parse_range("3,1-2,2") == [1, 2, 3]
    assert parse_range("10-10") == [10]


@pytest.mark.parametrize("bad", ["", ",", "1,,2", "-1", "3-1", "1.5", "a-b", "1-"])
def test_rejects_invalid(bad):
    with pytest.raises(ValueError):
        parse_range(bad)
