"""Household ledger: load transactions from CSV, report totals."""
from ledger.errors import LedgerError
from ledger.load import Transaction, load_transactions, parse_ledger
from ledger.report import balance_cents, totals_by_category

__all__ = ["LedgerError", "Transaction", "balance_cents", "load_transactions", "parse_ledger",
           "totals_by_category"]
