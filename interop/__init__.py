"""Interoperation with other tools' formats (Inspect AI eval logs)."""
