"""Parse ledger CSV text into transactions (through minicsv)."""
import datetime
from pathlib import Path
from typing import NamedTuple

from ledger.errors import LedgerError
from ledger.money import parse_cents
from vendor import minicsv_v2 as minicsv

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
    try:
        table = minicsv.read_records(text, strip=True)
    except minicsv.CSVError as exc:
        raise LedgerError(str(exc)) from None
    if not table.fieldnames:
        raise LedgerError("empty ledger: no header")
    header = [name.lower() for name in table.fieldnames]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise LedgerError(f"missing column(s): {', '.join(missing)}")
    out = []
    for number, record in enumerate(table.records, start=2):
        out.append(_transaction({k.lower(): v for k, v in record.items()}, number))
    return out


def load_transactions(path):
    """Transactions from a ledger CSV file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise LedgerError(f"cannot read {path}: {exc.strerror}") from None
    return parse_ledger(text)
