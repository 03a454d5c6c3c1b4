"""A plain-text todo list."""
from todo.cli import main
from todo.storage import Item, load_items, save_items

__all__ = ["Item", "load_items", "main", "save_items"]
