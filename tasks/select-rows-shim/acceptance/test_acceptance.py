"""Visible acceptance test for select-rows-shim (the agent can see and run this)."""
import pytest

from tablekit import count_rows, fetch_rows, first_row, load_table, select_rows


def _people():
    return load_table("data/people.csv")


def test_select_rows():
    people = _people()
    assert [r["name"] for r in select_rows(people, {"city": "Oslo"}, limit=2)] == ["Ada", "Cy"]
    assert len(select_rows(people)) == 5


def test_fetch_rows_still_works_and_is_deprecated():
    people = _people()
    with pytest.warns(DeprecationWarning):
        rows = fetch_rows(people, 2, {"city": "Oslo"})
    assert rows == [{"name": "Ada", "city": "Oslo", "role": "engineer"},
                    {"name": "Cy", "city": "Oslo", "role": "manager"}]


def test_helpers():
    people = _people()
    assert first_row(people, {"role": "designer"})["name"] == "Bo"
    assert count_rows(people, {"role": "engineer"}) == 3
