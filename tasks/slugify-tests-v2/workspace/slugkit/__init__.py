"""URL slugs from titles."""
from slugkit.core import slugify

__all__ = ["slugify"]
__version__ = "2.0.0"
