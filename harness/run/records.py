"""The run's records file as the packages above the run see it (``viewer``, ``interop``): whether a
run directory's ledger verifies, and a new hash-chained records file written from records made
elsewhere. A narrow door on purpose: those packages may import ``harness.core`` and ``harness.run``
only, and need no more of ``harness.ledger`` than these two answers."""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.core import runio
from harness.core.errors import ExitCode
from harness.ledger.ledger import Ledger, verify

RECORDS_FILE = "records.jsonl"


def ledger_problems(run_dir: Path) -> list[str]:
    """What keeps ``run_dir``'s records ledger from verifying, one line each (``verify``: tampering,
    and the crash states ``--resume`` repairs); empty when it verifies or when the run has written
    no record yet (neither records.jsonl nor its head exists: nothing to verify)."""
    path = Path(run_dir) / RECORDS_FILE
    if not path.exists() and not path.with_suffix(".head").exists():
        return []
    return verify(path)


def write_records(path: Path, records: Iterable[dict], rerun: str = "the command") -> int:
    """Write each record to a new ledger at ``path`` (seq, prev_hash and hash added as the run's
    driver adds them); returns how many were written. The caller checks ``path`` is new. The ledger
    and its head are built aside and moved in only when whole (``runio.staged_files``): a full disk
    leaves nothing under ``path`` (it left an empty or partial ledger), and is ``NoSpace``, exit 2.
    They are linked into place, never over a file: of two writers at once, the second gets
    FileExistsError (they appended to one ledger, interleaving its chain)."""
    path = Path(path)
    n = 0
    with runio.staged_files(path.parent, rerun, ExitCode.BAD_INPUT, replace=False) as stage:
        ledger = Ledger(stage / path.name)
        for rec in records:
            ledger.append(rec)
            n += 1
    return n
