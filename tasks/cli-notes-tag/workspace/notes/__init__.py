"""A tiny command-line notebook."""
from notes.cli import main
from notes.store import Store

__all__ = ["Store", "main"]
