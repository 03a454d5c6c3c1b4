"""Hidden ground-truth oracle for select-rows-shim (never visible to the agent)."""
import inspect
import warnings

import pytest

import tablekit
from tablekit import count_rows, fetch_rows, first_row, load_table, select_rows

TABLE = [
    {"name": "Ada", "city": "Oslo"}, {"name": "Bo", "city": "Lima"},
    {"name": "Cy", "city": "Oslo"}, {"name": "Di", "city": "Oslo"},
]


def test_signature():
    params = list(inspect.signature(select_rows).parameters.values())
    assert [p.name for p in params] == ["table", "where", "limit"]
    assert params[1].default is None and params[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert params[2].default is None and params[2].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError):
        select_rows(TABLE, None, 2)


def test_select_rows_behaviour():
    assert select_rows(TABLE, {"city": "Oslo"}, limit=0) == []
    assert [r["name"] for r in select_rows(TABLE, limit=3)] == ["Ada", "Bo", "Cy"]
    assert [r["name"] for r in select_rows(TABLE, where={"city": "Oslo"})] == ["Ada", "Cy", "Di"]
    assert select_rows(TABLE, {"city": "Rome"}) == []
    with pytest.raises(ValueError):
        select_rows(TABLE, limit=-1)


def test_fetch_rows_shim_warns_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = fetch_rows(TABLE, 2, {"city": "Oslo"})
    assert rows == [{"name": "Ada", "city": "Oslo"}, {"name": "Cy", "city": "Oslo"}]
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1
    assert "select_rows" in str(deprecations[0].message)
    assert deprecations[0].filename == __file__


def test_fetch_rows_keeps_old_keywords_and_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert fetch_rows(TABLE, lim=1, where={"city": "Lima"}) == [{"name": "Bo", "city": "Lima"}]
        assert len(fetch_rows(TABLE)) == 4
        with pytest.raises(ValueError):
            fetch_rows(TABLE, -1)


def test_internal_callers_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert first_row(TABLE, {"city": "Oslo"})["name"] == "Ada"
        assert first_row(TABLE, {"city": "Rome"}) is None
        assert count_rows(TABLE, {"city": "Oslo"}) == 3
        assert count_rows(load_table("data/people.csv")) == 5


def test_exported():
    assert "select_rows" in tablekit.__all__ and "fetch_rows" in tablekit.__all__
