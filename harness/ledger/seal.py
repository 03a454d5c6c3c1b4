"""The records' seals: the run's key signs each record as it is appended and the ledger's head after
it, so a rewrite of the records is refused even when the hash chain is redone (red team r33).

The hash chain proves order, not authorship: an amplified record rewritten as a safe stop or a void,
or deleted, with every later hash recomputed and ``records.head`` updated, verifies as a chain. The
receipts cover what the judge ran, never the record's own fields (``outcome``, ``shipped``, which
receipts it names) or which cells there are. Two signatures by the run's receipt key cover both:

- each record's ``seal``: ed25519 (base64) over the canonical JSON of the record without ``hash``,
  ``seal`` and ``prev_hash`` (every field of the record, its ``seq`` and ``run_id`` included), added
  by the ledger before the record's hash (so the hash covers it). A record changed after it was
  written is named (``record_seal_problem``); its position is not in it, so a record moved or
  re-chained is the head's business;
- the head seal, ``run_dir/receipts/ledger.seal``, a ledger anchor (harness.ledger.ledger, format
  ``hx-ledger-anchor-1``):

    {"format", "ledger", "seq", "hash", "records", "protocol_digest", "run_id", "time", "public_key", "signature"}

  ``hash`` is the last record's hash. Each record's hash covers every field of the record and the
  previous record's hash, so this signature covers every record, their order and their number;
  ``records`` repeats the count so a deleted or added cell is named as such. It is rewritten
  atomically by the driver after each record's line and ``records.head`` (``Sealer``) and exported
  with the receipts. Being an anchor, ``harness ledger verify RUN/records.jsonl --anchor
  RUN/receipts/ledger.seal --public-key KEY`` checks it too.

A kill between a record's line and the head seal leaves the head seal one record behind; ``harness
run --resume`` seals the head again when that record extends the sealed head (its ``prev_hash`` is
the sealed hash) and carries its own valid seal (so it was written by the harness holding the key,
not appended by hand), and refuses a ledger that is otherwise not the one the key sealed. Local-key scope: whoever holds the
run's private key can seal anything; the seal proves the records are the ones the harness holding
that key wrote. A reader who kept an earlier seal of the same run can roll the records back to it;
the published run holds only the last one.
"""
from __future__ import annotations

import base64
import time
from pathlib import Path

from harness.core import runio, statefile
from harness.ledger import receipts as rc
from harness.ledger.ledger import ANCHOR_FORMAT, canonical
from harness.ledger.receipts import Reason

SEAL_NAME = "ledger.seal"  # in the run's receipts/ (published with the receipts)
SEAL_KEYS = ("format", "ledger", "seq", "hash", "records", "protocol_digest", "run_id", "time", "public_key",
             "signature")
MAX_SEAL_BYTES = 64 << 10


def seal_path(run_dir: Path) -> Path:
    return Path(run_dir) / "receipts" / SEAL_NAME


RECORD_UNSIGNED = ("hash", "seal", "prev_hash")  # what a record's own seal does not cover


def record_seal_body(rec: dict) -> bytes:
    return canonical({k: v for k, v in rec.items() if k not in RECORD_UNSIGNED}).encode()


def record_seal_problem(rec: dict, trusted_public_raw: bytes | None) -> tuple[Reason, str] | None:
    """Why a record's own ``seal`` does not hold (reason, detail), or None."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    sig = rec.get("seal")
    if not sig:
        return Reason.SIGNATURE_MISSING, "the record carries no seal"
    if trusted_public_raw is None:
        return Reason.SIGNER_KEY_MISMATCH, "no trusted key to check the record's seal with"
    try:
        Ed25519PublicKey.from_public_bytes(trusted_public_raw).verify(base64.b64decode(sig, validate=True),
                                                                      record_seal_body(rec))
    except (InvalidSignature, ValueError, TypeError):
        return Reason.SIGNATURE_INVALID, "the record is not the one the run's key sealed (a field changed after it was written)"
    return None


def make_seal(signer: rc.Signer, last: dict, count: int, protocol_digest, run_id) -> dict:
    """The anchor of a ledger of ``count`` records ending in ``last``, signed by ``signer``."""
    body = {"format": ANCHOR_FORMAT, "ledger": "records.jsonl", "seq": last["seq"], "hash": last["hash"],
            "records": count, "protocol_digest": protocol_digest, "run_id": run_id,
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "public_key": base64.b64encode(signer.public_raw).decode()}
    return {**body, "signature": base64.b64encode(signer.sign_bytes(canonical(body).encode())).decode()}


def read_seal(run_dir: Path) -> dict | None:
    """The run's seal, None when there is none; ``rc.Malformed`` for a file that is not one JSON object
    (a FIFO, a huge or deep file is refused unread: ``runio.UnsafeFile`` as Malformed)."""
    path = seal_path(run_dir)
    if not (path.exists() or path.is_symlink()):
        return None
    try:
        raw = runio.read_bytes(path, "ledger seal", limit=MAX_SEAL_BYTES)
    except runio.UnsafeFile as exc:
        raise rc.Malformed(exc.message) from None
    obj = rc.strict_loads(raw)
    if not isinstance(obj, dict):
        raise rc.Malformed("not a JSON object")
    return obj


def check_seal(seal: dict, trusted_public_raw: bytes | None) -> tuple[Reason, str]:
    """The seal on its own: its shape, a signature present, by the trusted key, valid."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    if set(seal) != set(SEAL_KEYS) or seal["format"] != ANCHOR_FORMAT:
        return Reason.MALFORMED_BUNDLE, f"a ledger seal has exactly the keys {sorted(SEAL_KEYS)}, format {ANCHOR_FORMAT}"
    if not (type(seal["seq"]) is int and type(seal["records"]) is int and isinstance(seal["hash"], str)
            and isinstance(seal["public_key"], str) and (seal["signature"] is None or isinstance(seal["signature"], str))):
        return Reason.MALFORMED_BUNDLE, "seq, records (integers), hash, public_key (strings)"
    if not seal["signature"]:
        return Reason.SIGNATURE_MISSING, "the ledger seal is not signed"
    try:
        embedded = base64.b64decode(seal["public_key"], validate=True)
    except ValueError:
        return Reason.MALFORMED_BUNDLE, "the seal's public key is not base64"
    if trusted_public_raw is None or embedded != trusted_public_raw:
        return Reason.SIGNER_KEY_MISMATCH, "the ledger seal is signed by another key than the trusted one"
    try:
        sig = base64.b64decode(seal["signature"], validate=True)
        body = {k: v for k, v in seal.items() if k != "signature"}
        Ed25519PublicKey.from_public_bytes(trusted_public_raw).verify(sig, canonical(body).encode())
    except (InvalidSignature, ValueError, TypeError):
        return Reason.SIGNATURE_INVALID, "the ledger seal's signature does not match its content"
    return Reason.OK, ""


def seal_mismatch(seal: dict, records: list[dict]) -> str | None:
    """Why the (checked) seal is not the seal of exactly these records, or None."""
    last = records[-1] if records else None
    if seal["records"] != len(records):
        return (f"the seal names {seal['records']} record(s), the ledger holds {len(records)}: a cell "
                f"{'deleted' if len(records) < seal['records'] else 'added'} after it was sealed")
    if last is None or (seal["seq"], seal["hash"]) != (last.get("seq"), last.get("hash")):
        return ("the records are not the ones the run's key sealed (the last record's hash is "
                f"{str(last.get('hash') if last else None)[:12]}..., the seal's {str(seal['hash'])[:12]}...): a record "
                "rewritten and the hash chain redone")
    if seal["run_id"] != last.get("run_id"):
        return f"the seal is run {seal['run_id']!r}'s, the records are run {last.get('run_id')!r}'s"
    return None


class Sealer:
    """The driver's side: signs each record (``Ledger.sign_record``: ``sign``), seals the head after each
    record (``Ledger.on_append``: the call), and at resume checks the ledger is the one the key sealed
    (``resume_problem``)."""

    def __init__(self, run_dir: Path, protocol_digest, run_id):
        self.run_dir, self.protocol_digest, self.run_id = Path(run_dir), protocol_digest, run_id
        self.signer = rc.run_signer(run_dir)

    def sign(self, rec: dict) -> str:
        """A record's own seal (see the module's docstring)."""
        return base64.b64encode(self.signer.sign_bytes(record_seal_body(rec))).decode()

    def __call__(self, last: dict, count: int) -> None:
        seal = make_seal(self.signer, last, count, self.protocol_digest, self.run_id)
        path = seal_path(self.run_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        statefile.write_atomic(path, canonical(seal) + "\n")

    def resume_problem(self, records: list[dict]) -> str | None:
        """None when the ledger may be resumed (sealing the one record a kill left unsealed, if any);
        otherwise why not. A ledger with no head seal is an older run's (before seals; it is sealed
        now) unless one of its records carries a seal or names a receipt of this format: then the head
        seal was removed."""
        try:
            seal = read_seal(self.run_dir)
        except rc.Malformed as exc:
            return f"receipts/{SEAL_NAME} is not a ledger seal ({exc})"
        if seal is None:
            if any("seal" in r for r in records) or self._names_current_receipts(records):
                return f"receipts/{SEAL_NAME} is missing, and the records are a sealed run's (the seal was removed)"
            if records:
                self(records[-1], len(records))
            return None
        reason, why = check_seal(seal, self.signer.public_raw)
        if reason is not Reason.OK:
            return f"receipts/{SEAL_NAME}: {reason.value}: {why}"
        why_not = seal_mismatch(seal, records)
        if why_not is None:
            return None
        behind = records[:-1]
        if (behind and seal_mismatch(seal, behind) is None and records[-1].get("prev_hash") == seal["hash"]
                and record_seal_problem(records[-1], self.signer.public_raw) is None):
            self(records[-1], len(records))  # a kill between the last record's line and the head seal
            return None
        return why_not

    def _names_current_receipts(self, records: list[dict]) -> bool:
        for rec in records:
            for d in rec.get("receipts") or []:
                try:
                    r = rc.strict_loads(runio.read_bytes(self.run_dir / "receipts" / f"{d}.json", "receipt",
                                                         limit=rc.MAX_RECEIPT_BYTES))
                except (OSError, TypeError, rc.Malformed, runio.UnsafeFile):
                    continue
                return isinstance(r, dict) and r.get("format") == rc.RECEIPT_FORMAT
        return False
