"""Errors raised by ledger."""


class LedgerError(ValueError):
    """A ledger could not be read or is malformed."""
