"""Hidden ground-truth oracle for paginate-last-page (never visible to the agent)."""
import pytest

from pager import page_numbers, paginate


@pytest.mark.parametrize("n, per_page, pages", [
    (0, 5, 1), (1, 5, 1), (4, 5, 1), (5, 5, 1), (6, 5, 2), (10, 5, 2), (11, 5, 3),
    (1, 1, 1), (3, 1, 3), (23, 10, 3), (100, 10, 10), (101, 10, 11),
])
def test_total_pages(n, per_page, pages):
    assert paginate(list(range(n)), 1, per_page).total_pages == pages
    assert page_numbers(n, per_page) == list(range(1, pages + 1))


def test_empty_sequence_has_one_empty_page():
    page = paginate([], 1, 5)
    assert page.items == [] and page.total_pages == 1
    assert not page.has_next and not page.has_prev
    with pytest.raises(ValueError):
        paginate([], 2, 5)


def test_every_item_on_exactly_one_page():
    items = list(range(23))
    seen = []
    for number in page_numbers(len(items), 4):
        seen.extend(paginate(items, number, 4).items)
    assert seen == items


@pytest.mark.parametrize("page, per_page", [(0, 5), (-1, 5), (3, 5), (1, 0), (1, -2), (True, 5)])
def test_out_of_range_rejected(page, per_page):
    with pytest.raises(ValueError):
        paginate(list(range(10)), page, per_page)


def test_default_per_page_and_tuple_input():
    page = paginate(tuple(range(25)), 3)
    assert page.items == [20, 21, 22, 23, 24] and page.total_pages == 3
