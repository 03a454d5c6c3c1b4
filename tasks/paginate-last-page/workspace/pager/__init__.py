"""1-based pagination of sequences."""
from pager.core import Page, page_numbers, paginate

__all__ = ["Page", "page_numbers", "paginate"]
