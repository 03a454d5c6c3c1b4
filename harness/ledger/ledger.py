"""The append-only, hash-chained records ledger (records.jsonl), its verification and its anchors.

Each line is one JSON record carrying ``seq`` (0-based line number), ``prev_hash`` (the previous
line's hash, "" for the first) and ``hash`` = sha256 of the canonical JSON of the record without
``hash`` (sorted keys, nulls kept: a canonicalizer that drops null would let a mutation after
signing go unnoticed). ``records.head`` mirrors the last line's seq and hash, written after the
line is fsynced.

``inspect`` reads a ledger without changing a byte and sorts what it finds into *problems*
(tampering: an edited, deleted, inserted, reordered or duplicated line, a head that names a
record the file does not end with) and *crash repairs* (the only two states a kill can leave: a
torn last line that the head does not name, and a head one record behind a complete, valid last
line). A run resumes only from a ledger with no problem, and only then applies the crash repairs
(the torn bytes are kept aside in ``records.jsonl.torn``).

An unsigned chain cannot catch a rewrite of every hash, or the last line deleted with the head
updated to match. An **anchor** can: ``harness ledger anchor`` writes the head (seq, hash, record
count, protocol digest, time), optionally signed with an ed25519 key, to a file the user keeps
outside the run directory (or commits); ``harness ledger verify --anchor FILE`` proves the ledger
still extends that head. (The paper's receipts are the model.) A run's driver does this itself with the
run's receipt key (harness.ledger.seal): each record carries its own ``seal`` (a signature over its
fields, added before its hash) and ``receipts/ledger.seal`` is a signed anchor of the head, rewritten
after every record.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, ClassVar

from harness.core import runio
from harness.core.errors import HarnessError
from harness.core.record import CellRecord
from harness.core.safe_text import printable_obj
from harness.ledger.receipts import generate_key as generate_key  # the anchor key: one key maker (receipts)
from harness.ledger.receipts import public_raw_of_pem

ANCHOR_FORMAT = "hx-ledger-anchor-1"


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def record_hash(rec: dict) -> str:
    return hashlib.sha256(canonical({k: v for k, v in rec.items() if k != "hash"}).encode()).hexdigest()


class LedgerRefused(HarnessError):
    """A ledger that fails verification: nothing is appended to it and no byte of it changes."""

    def __init__(self, path: Path, problems: list[str]):
        self.path, self.problems = Path(path), list(problems)
        super().__init__(f"{path}: {len(problems)} problem(s): " + "; ".join(problems[:5]))


@dataclass(frozen=True)
class LedgerLine:
    """One line of a ledger as written, read leniently: the fields that ``harness receipts verify`` and
    ``harness rejudge`` check against a cell's receipts, each the value the line holds (None where it holds
    none), unchecked. Those readers check a published run, whose lines may be forged: a line that
    ``CellRecord.from_json`` refuses (an outcome outside the enum, no cell, a version this code never
    wrote, a field of another type) is still a line of the run and must be reported against its receipts,
    never dropped or refused before them. So nothing here is parsed into its enum or refused; ``raw`` is
    the object itself, for the checks over every field of the line as written (its seal, the head seal).
    A reader that carries the run's records forward (resume, analyze, the viewer) parses them into
    ``CellRecord`` (``Ledger.cell_records``)."""

    raw: dict[str, Any]
    seq: Any
    cell_key: Any
    run_id: Any
    arm: Any
    task: Any
    controller: Any
    outcome: Any
    shipped: Any
    visible_pass: Any
    hidden_pass: Any
    visible_plain_pass: Any
    hidden_plain_pass: Any
    hidden_checks: Any
    receipts: Any
    protocol_digest: Any
    tree_digest_start: Any
    tree_digest_final: Any

    # the type each field has in a line the harness writes (None aside: a field the line does not hold, or a
    # void's verdicts); ``typed`` reads a field through it, ``type_problems`` names a line's other types
    TYPES: ClassVar[dict[str, type]] = {
        "seq": int, "cell_key": str, "run_id": str, "arm": str, "task": str, "controller": str, "outcome": str,
        "shipped": bool, "visible_pass": bool, "hidden_pass": bool, "visible_plain_pass": bool,
        "hidden_plain_pass": bool, "hidden_checks": list, "receipts": list, "protocol_digest": str,
        "tree_digest_start": str, "tree_digest_final": str}

    @classmethod
    def of(cls, obj: dict[str, Any]) -> LedgerLine:
        """The view of a line's object (every field read with ``dict.get``: None where the line has none)."""
        names = [f.name for f in fields(cls) if f.name != "raw"]
        return cls(obj, **{name: obj.get(name) for name in names})

    def typed(self, name: str) -> Any:
        """The field ``name`` when it holds a value of the type the harness writes there (``TYPES``; a bool is
        not an int), else None: for a check that computes with the value (iterates, hashes, adds), so that a
        forged value of another type is reported (``type_problems``), never a traceback."""
        value = getattr(self, name)
        want = self.TYPES[name]
        if isinstance(value, bool) and want is not bool:
            return None
        return value if isinstance(value, want) else None

    def type_problems(self) -> list[str]:
        """One ``field: what it holds`` for each field the line holds (not null) whose value is not of the type
        the harness writes there (``TYPES``): a line written by hand."""
        return [f"{name}: {type(getattr(self, name)).__name__}, not {self.TYPES[name].__name__}"
                for name in self.TYPES if getattr(self, name) is not None and self.typed(name) is None]

    @property
    def sealed(self) -> bool:
        """Whether the line carries a ``seal`` field at all (whatever its value)."""
        return "seal" in self.raw

    def passed(self, test: str) -> Any:
        """The line's verdict of ``test`` (visible or hidden: ``visible_pass``, ``hidden_pass``), as written."""
        return {"visible": self.visible_pass, "hidden": self.hidden_pass}[test]

    def plain_passed(self, test: str) -> Any:
        """Plain pytest's verdict of ``test`` (``visible_plain_pass``, ``hidden_plain_pass``), as written."""
        return {"visible": self.visible_plain_pass, "hidden": self.hidden_plain_pass}[test]

    def flags(self) -> dict[str, Any]:
        """The flags Eq. 7 ties to the outcome (harness.core.record.eq7_violation), as written."""
        return {"shipped": self.shipped, "visible_pass": self.visible_pass, "hidden_pass": self.hidden_pass}


@dataclass
class Inspection:
    """What a ledger holds, read without changing it."""
    path: Path
    records: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # tampering: never repaired, never resumed
    torn: bytes = b""  # a torn last line a kill left (a crash repair moves it aside)
    head_behind: bool = False  # the head is one record behind a complete last line (a crash repair catches it up)

    @property
    def lines(self) -> list[LedgerLine]:
        """The records as written, each a ``LedgerLine`` (forged lines included)."""
        return [LedgerLine.of(r) for r in self.records]

    @property
    def notes(self) -> list[str]:
        out = []
        if self.torn:
            out.append(f"the last line is torn ({len(self.torn)} bytes, not named by records.head): a kill "
                       f"mid-write; --resume moves it to {self.path.name}.torn")
        if self.head_behind:
            out.append("records.head is one record behind the last line (a kill between writing a line and its "
                       "head); --resume catches it up")
        return out


def _head(path: Path) -> tuple[int, str] | None | str:
    hp = path.with_suffix(".head")
    if not (hp.exists() or hp.is_symlink()):
        return None
    parts = runio.read_bytes(hp, "ledger head", 4096).decode(errors="replace").split()
    if len(parts) != 2 or not parts[0].isdigit():
        return "malformed"
    return int(parts[0]), parts[1]


def inspect(path: Path) -> Inspection:
    """Read and verify a ledger and its head without changing either (see the module docstring):
    the lines, then the chain of seqs and hashes, then the head and a torn last line."""
    path = Path(path)
    ins = Inspection(path)
    raw = runio.read_bytes(path, "ledger") if (path.exists() or path.is_symlink()) else b""
    body, torn = raw, b""
    if raw and not raw.endswith(b"\n"):
        cut = raw.rfind(b"\n") + 1
        body, torn = raw[:cut], raw[cut:]
    recs = _read_lines(body, ins)
    _check_chain(recs, ins)
    ins.records = [r for _, r in recs]
    _check_head(path, recs, torn, ins)
    if ins.head_behind and ins.problems:
        ins.head_behind = False
    return ins


def _read_lines(body: bytes, ins: Inspection) -> list[tuple[int, dict]]:
    """(line number, record) of each complete line that is a JSON object; a blank line, a line
    that is not a record (a key given twice among them: the ledger writes one value per key), and
    one whose hash does not match its content (or that has no canonical form to hash: a NaN, an
    infinite float, a lone surrogate; red team r33b) are problems."""
    recs: list[tuple[int, dict]] = []
    # split on "\n" only: the ledger writes with ensure_ascii=False, so U+2028, U+2029 and U+0085 stand raw
    # inside a record's line, and str.splitlines would break it at each of them (and at a lone "\r")
    texts = body.decode(errors="replace").split("\n")
    if texts[-1] == "":
        texts.pop()  # the body ends with its last line's newline (a torn tail is cut off before)
    for i, line in enumerate(texts, 1):
        if not line.strip():
            ins.problems.append(f"line {i}: blank line inside the ledger")
            continue
        try:
            rec = runio.parse_json(line, str(ins.path), i, unique_keys=True)  # nesting bounded before it is parsed
        except runio.UnsafeFile as exc:
            ins.problems.append(f"line {i}: not a JSON record ({exc.message})")
            continue
        if not isinstance(rec, dict):
            ins.problems.append(f"line {i}: not a JSON record")
            continue
        try:
            rehashed = record_hash(rec)
        except ValueError as exc:  # json.loads reads what canonical() cannot write (UnicodeEncodeError too)
            ins.problems.append(f"line {i}: edited (a value no record has: {str(exc)[:80]}); cell {rec.get('cell_key')}")
            recs.append((i, rec))
            continue
        if not isinstance(rec.get("seq"), int) or rec.get("hash") != rehashed:
            what = "inserted or edited (no valid seq/hash)" if "hash" not in rec else "edited (content does not match its hash)"
            ins.problems.append(f"line {i}: {what}; cell {rec.get('cell_key')}")
        recs.append((i, rec))
    return recs


def _deleted_seqs(seqs: list[int]) -> list[str]:
    """One problem per seq from 0 to the largest that no line carries; a run of more than
    ``_GAP_LISTED`` missing seqs is one line naming its ends and count, so a forged seq in the
    trillions is one line, not a list (or a set) that long."""
    out: list[str] = []
    prev = -1
    for s_ in sorted({s for s in seqs if s >= 0}):
        if s_ - prev - 1 > _GAP_LISTED:
            out.append(f"seqs {prev + 1} to {s_ - 1} ({s_ - prev - 1}): deleted (no line carries them)")
        else:
            out.extend(f"seq {m}: deleted (no line carries it)" for m in range(prev + 1, s_))
        prev = s_
    return out


_GAP_LISTED = 20


def _check_chain(recs: list[tuple[int, dict]], ins: Inspection) -> None:
    """Duplicated, deleted and reordered seqs, and a broken prev_hash chain."""
    seqs: list[int] = [r["seq"] for _, r in recs if isinstance(r.get("seq"), int)]
    seen: dict[int, int] = {}
    for i, r in recs:
        s_ = r.get("seq")
        if isinstance(s_, int):
            if s_ in seen:
                ins.problems.append(f"line {i}: duplicated or inserted (seq {s_} already used by line {seen[s_]})")
            seen.setdefault(s_, i)
    ins.problems.extend(_deleted_seqs(seqs))
    for (i0, a), (i1, b) in zip(recs, recs[1:]):
        sa, sb = a.get("seq"), b.get("seq")
        if isinstance(sa, int) and isinstance(sb, int) and sb < sa:
            ins.problems.append(f"line {i1}: reordered (seq {sb} after seq {sa})")
        elif _is_number(sa or 0) and sb == (sa or 0) + 1 and b.get("prev_hash") != a.get("hash"):
            ins.problems.append(f"line {i1}: chain broken (prev_hash does not match line {i0})")
    if recs and recs[0][1].get("seq") == 0 and recs[0][1].get("prev_hash") != "":
        ins.problems.append(f"line {recs[0][0]}: chain broken (first record has a prev_hash)")
    for n, (_, r) in enumerate(recs):
        if isinstance(r.get("seq"), int) and r["seq"] != n and not any("deleted" in p or "inserted" in p for p in ins.problems):
            ins.problems.append(f"line {n + 1}: carries seq {r['seq']} (expected {n})")
            break


def _is_number(x: object) -> bool:
    """Whether ``x`` is a JSON number (a forged seq may be a string, a list or an object: no arithmetic on it)."""
    return isinstance(x, (int, float))


def _check_head(path: Path, recs: list[tuple[int, dict]], torn: bytes, ins: Inspection) -> None:
    """records.head against the last lines (missing, malformed, edited, behind by one, or naming
    lines removed or appended), and a torn last line the head does or does not name."""
    head = _head(path)
    last = recs[-1][1] if recs else None
    if head == "malformed":
        ins.problems.append("records.head is malformed (expected '<seq> <hash>')")
    elif head is None:
        if recs and len(recs) > 1:
            ins.problems.append("records.head is missing (it anchors the last line; lines may have been removed "
                                "from the end)")
        elif recs:
            ins.head_behind = True  # a kill after the first line, before its head
    elif last is None:
        ins.problems.append(f"records.head names seq {head[0]} but the ledger holds no complete record "
                            f"(every line removed)")
    elif head == (last.get("seq"), last.get("hash")):
        pass
    elif len(recs) >= 2 and head == (recs[-2][1].get("seq"), recs[-2][1].get("hash")):
        ins.head_behind = True
    elif head[0] == last.get("seq"):
        ins.problems.append(f"records.head was edited: it names hash {head[1][:12]}... for seq {head[0]}, the last "
                            f"line's hash is {str(last.get('hash'))[:12]}...")
    elif isinstance(head, tuple) and head[0] > (last["seq"] if isinstance(last.get("seq"), int) else 0):
        ins.problems.append(f"records.head names seq {head[0]}, the last line is seq {last.get('seq')!r} "
                            f"(lines removed from the end{' and the last one cut' if torn else ''})")
    else:
        ins.problems.append(f"records.head names seq {head[0]}, the last line is seq {last.get('seq')!r} "
                            f"(lines appended outside the harness)")
    if torn:
        if (head not in (None, "malformed") and last is not None and _is_number(last.get("seq") or 0)
                and head[0] == (last.get("seq") or 0) + 1):
            ins.problems.append("the last line is torn, but records.head names it: it was complete when its head "
                                "was written and was cut afterwards")
        elif not any("records.head" in p for p in ins.problems):
            ins.torn = torn


def verify(path: Path) -> list[str]:
    """Problems found in a ledger, one human-readable line each (empty list = intact). A torn last
    line the head does not name and a head one record behind are reported too (crash states that
    ``--resume`` repairs), so a ledger is only called intact when it is exactly as written."""
    ins = inspect(path)
    return ins.problems + ins.notes


@dataclass
class Repair:
    torn_bytes: int
    moved_to: Path  # where the torn bytes were appended (the ledger's name + ".torn")


class Ledger:
    """Single-writer append-only ledger. Open it once per run; only the driver writes.

    Opening verifies first: a ledger with any problem raises LedgerRefused and no byte changes.
    Only then are the crash repairs applied (a torn last line moved aside, a head caught up)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.head_path = self.path.with_suffix(".head")
        ins = inspect(self.path)
        if ins.problems:
            raise LedgerRefused(self.path, ins.problems)
        self.records = ins.records
        self._cells: list[CellRecord] = []  # the records parsed as CellRecord objects (``cell_records``)
        self.repair = self._move_torn(ins.torn) if ins.torn else None
        self.last_hash = self.records[-1]["hash"] if self.records else ""
        self.head_repaired = ins.head_behind
        # the driver seals the records with the run's key (harness.ledger.seal): ``sign_record`` gives a
        # record's own seal (before its hash, which covers it); ``on_append`` is called with (the
        # record, the record count) after each record's line and head are written
        self.sign_record: Callable[[dict], str] | None = None
        self.on_append: Callable[[dict, int], None] | None = None
        if ins.head_behind:
            self._write_head(self.records[-1])

    def _write_head(self, rec: dict) -> None:
        from harness.core.statefile import write_atomic
        write_atomic(self.head_path, f"{rec['seq']} {rec['hash']}\n")  # temp, fsync, rename, fsync the directory

    def _move_torn(self, torn: bytes) -> Repair:
        aside = self.path.with_name(self.path.name + ".torn")
        with aside.open("ab") as f:
            f.write(torn + b"\n")
        size = self.path.stat().st_size
        with self.path.open("r+b") as f:
            f.truncate(size - len(torn))
            f.flush()
            os.fsync(f.fileno())
        return Repair(len(torn), aside)

    def keys(self) -> set[str]:
        return {r["cell_key"] for r in self.records}

    def cell_records(self) -> list[CellRecord]:
        """The ledger's records as ``CellRecord`` objects (parsed once each, as lines are read or
        appended); a line that is no cell record is ValueError naming the file and line."""
        self._parse_new()
        return list(self._cells)

    def _parse_new(self) -> None:
        for i in range(len(self._cells), len(self.records)):
            self._cells.append(CellRecord.from_json(self.records[i], source=f"{self.path}:{i + 1}"))

    def append_record(self, rec: CellRecord) -> CellRecord:
        """Append a cell's record (serialized here, at the file's edge); returns it with the
        ledger's stamp (seq, prev_hash, seal, hash)."""
        self.append(rec.to_json())
        self._parse_new()
        return self._cells[-1]

    def append(self, rec: dict) -> dict:
        rec = dict(printable_obj(rec), seq=len(self.records), prev_hash=self.last_hash)
        rec.pop("seal", None)  # the ledger's own field, like the hash: never carried over from elsewhere
        if self.sign_record is not None:
            rec["seal"] = self.sign_record(rec)
        rec["hash"] = record_hash(rec)
        line = canonical(rec) + "\n"
        with self.path.open("a") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self._write_head(rec)
        self.records.append(rec)
        self.last_hash = rec["hash"]
        if self.on_append is not None:
            self.on_append(rec, len(self.records))
        return rec


def read_records(path: Path) -> list[dict]:
    """Every line's object (the safe reader: a FIFO, an oversized file or a line nested too deep is
    ``runio.UnsafeFile``); a malformed line is ValueError naming the file and line."""
    out = []
    try:
        for _, obj in runio.read_jsonl(path, "records file"):
            out.append(obj)
    except runio.UnsafeFile as exc:
        if exc.line is None:
            raise
        raise ValueError(str(exc)) from None
    return out


# -- anchors ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorHead:
    """The head an anchor names, as its typed view: the last record's seq and hash, and how many records."""
    seq: int
    hash: str
    records: int

    @classmethod
    def from_json(cls, anchor: dict) -> AnchorHead:
        """An anchor's object (``make_anchor``'s); a missing key raises."""
        return cls(anchor["seq"], anchor["hash"], anchor["records"])


def make_anchor(path: Path, *, private_key_pem: bytes | None = None) -> dict:
    """The ledger's head as an anchor (signed with ed25519 when a private key is given).
    Raises LedgerRefused for a ledger that does not verify or holds no record."""
    ins = inspect(path)
    if ins.problems or ins.notes:
        raise LedgerRefused(Path(path), ins.problems + ins.notes)
    if not ins.records:
        raise LedgerRefused(Path(path), ["no records to anchor"])
    last = ins.records[-1]
    digests = sorted({str(r.get("protocol_digest")) for r in ins.records})
    body = {"format": ANCHOR_FORMAT, "ledger": Path(path).name, "seq": last["seq"], "hash": last["hash"],
            "records": len(ins.records), "protocol_digest": digests[0] if len(digests) == 1 else digests,
            "run_id": last.get("run_id"), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if private_key_pem is not None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        key = serialization.load_pem_private_key(private_key_pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"a {type(key).__name__}")
        pub = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        body["public_key"] = base64.b64encode(pub).decode()
        body["signature"] = base64.b64encode(key.sign(canonical(body).encode())).decode()
    return body


def check_anchor(path: Path, anchor: dict, *, public_key_pem: bytes | None = None) -> tuple[list[str], list[str]]:
    """(problems, notes): whether the ledger (already verified) extends the anchored head, and
    whether the anchor's signature holds (against ``public_key_pem`` when given)."""
    problems: list[str] = []
    notes: list[str] = []
    need = {"format", "seq", "hash", "records", "protocol_digest"}
    if not isinstance(anchor, dict) or anchor.get("format") != ANCHOR_FORMAT or not need <= set(anchor):
        return [f"not a ledger anchor (expected format {ANCHOR_FORMAT} with {sorted(need)})"], notes
    if "signature" in anchor:
        problems += _check_signature(anchor, public_key_pem, notes)
    elif public_key_pem is not None:
        problems.append("--public-key given but the anchor is not signed")
    recs = inspect(path).records
    seq, h = anchor["seq"], anchor["hash"]
    runs = sorted({str(r.get("run_id")) for r in recs if r.get("run_id") is not None})
    if anchor.get("run_id") is not None and runs and runs != [str(anchor["run_id"])]:
        problems.append(f"the anchor is for run {anchor['run_id']!r}, this ledger holds run "
                        f"{repr(runs[0]) if len(runs) == 1 else runs}: not this run's anchor")
        return problems, notes
    if isinstance(seq, bool) or not isinstance(seq, int) or seq < 0:
        problems.append(f"the anchor's seq {seq!r} is not a record number (expected an integer >= 0)")
        return problems, notes
    if seq >= len(recs):
        problems.append(f"the anchor names seq {seq} but the ledger holds {len(recs)} record(s): records were "
                        f"removed since it was anchored")
    elif recs[seq].get("hash") != h:
        problems.append(f"the ledger does not extend the anchored head: seq {seq} has hash "
                        f"{str(recs[seq].get('hash'))[:12]}..., the anchor says {str(h)[:12]}... (the chain was "
                        f"rewritten)")
    else:
        notes.append(f"extends the anchored head (seq {seq}, anchored {anchor.get('time')}; "
                     f"{len(recs) - seq - 1} record(s) appended since)")
    digests = {str(r.get("protocol_digest")) for r in recs[: seq + 1]} if isinstance(seq, int) else set()
    want = anchor["protocol_digest"]
    if isinstance(want, str) and digests and digests != {want}:
        problems.append(f"the anchored records carry protocol digest(s) {sorted(digests)}, the anchor says {want}")
    return problems, notes


def _check_signature(anchor: dict, public_key_pem: bytes | None, notes: list[str]) -> list[str]:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    body = {k: v for k, v in anchor.items() if k != "signature"}
    try:
        embedded = base64.b64decode(anchor.get("public_key", ""), validate=True)
        sig = base64.b64decode(anchor["signature"], validate=True)
    except (ValueError, TypeError):
        return ["the anchor's signature or public key is not base64"]
    if public_key_pem is not None:
        raw = public_raw_of_pem(public_key_pem)  # ValueError (bad input) unless exactly the key's canonical PEM
        if raw != embedded:
            return ["the anchor was signed with a different key than the one given"]
    else:
        notes.append("signature checked against the key inside the anchor; pass --public-key to check it against "
                     "a key you trust")
    try:
        Ed25519PublicKey.from_public_bytes(embedded).verify(sig, canonical(body).encode())
    except (InvalidSignature, ValueError):
        return ["the anchor's signature does not match its content (the anchor was edited)"]
    return []


