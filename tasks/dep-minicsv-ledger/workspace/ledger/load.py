"""Parse ledger CSV text into transactions (through minicsv)."""
import datetime
from pathlib import Path
from typing import NamedTuple

from ledger.errors import LedgerError
from ledger.money import parse_cents
from vendor import minicsv_v1 as minicsv

REQUIRED = ("date", "category", "amount")


class Transaction(NamedTuple):
    date: datetime.date
    category: str
    cents: int


def _transaction(record, number):
    try:
        day = datetime.date.fromisoformat(record["date"])
    except ValueError:
        raise LedgerError(f"row {number}: bad date {record['date']!r}") from None
    if not record["category"]:
        raise LedgerError(f"row {number}: empty category")
    return Transaction(day, record["category"], parse_cents(record["amount"]))


def parse_ledger(text):
    """Transactions from ledger CSV text (format in README.md); LedgerError if malformed."""
    rows = minicsv.read_rows(text)
    if not rows:
        raise LedgerError("empty ledger: no header")
    header = [name.lower() for name in rows[0]]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise LedgerError(f"missing column(s): {', '.join(missing)}")
    out = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise LedgerError(f"row {number} has {len(row)} fields, expected {len(header)}")
        out.append(_transaction(dict(zip(header, row)), number))
    return out


def load_transactions(path):
    """Transactions from a ledger CSV file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise LedgerError(f"cannot read {path}: {exc.strerror}") from None
    return parse_ledger(text)
