"""Range expression parsing."""
from rangeparse.core import parse_range

__all__ = ["parse_range"]
