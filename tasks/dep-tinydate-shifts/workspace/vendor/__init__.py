"""Vendored third-party libraries (not edited by this project)."""
