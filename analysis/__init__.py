"""Statistics and tables over records in the interchange format (any producer)."""
