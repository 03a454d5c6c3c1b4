"""Visible acceptance test for paginate-last-page (the agent can see and run this)."""
from pager import paginate


def test_exact_multiple_has_no_empty_trailing_page():
    items = list(range(10))
    assert paginate(items, 1, 5).total_pages == 2
    last = paginate(items, 2, 5)
    assert last.items == [5, 6, 7, 8, 9]
    assert not last.has_next
    assert last.has_prev


def test_partial_last_page():
    items = list("abcdefg")
    assert paginate(items, 3, 3).items == ["g"]
    assert paginate(items, 1, 3).total_pages == 3
