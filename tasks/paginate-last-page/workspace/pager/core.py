"""Split a sequence into 1-based pages."""
from dataclasses import dataclass
from typing import Sequence

from pager.validation import require_positive_int

DEFAULT_PER_PAGE = 10


@dataclass(frozen=True)
class Page:
    items: list
    number: int
    total_pages: int

    @property
    def has_next(self) -> bool:
        return self.number < self.total_pages

    @property
    def has_prev(self) -> bool:
        return self.number > 1


def count_pages(total_items: int, per_page: int) -> int:
    """Number of pages needed for total_items items; an empty sequence has one page."""
    return total_items // per_page + 1


def paginate(items: Sequence, page: int = 1, per_page: int = DEFAULT_PER_PAGE) -> Page:
    """Return page number `page` (1-based) of `items`, `per_page` items per page."""
    require_positive_int("per_page", per_page)
    require_positive_int("page", page)
    total = count_pages(len(items), per_page)
    if page > total:
        raise ValueError(f"page {page} out of range (1..{total})")
    start = (page - 1) * per_page
    return Page(list(items[start:start + per_page]), page, total)


def page_numbers(total_items: int, per_page: int = DEFAULT_PER_PAGE) -> list[int]:
    """All valid page numbers for a sequence of total_items items."""
    require_positive_int("per_page", per_page)
    return list(range(1, count_pages(total_items, per_page) + 1))
