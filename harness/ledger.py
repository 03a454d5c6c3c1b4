"""The append-only, hash-chained records ledger (records.jsonl).

Each line is one JSON record carrying ``seq`` (0-based line number), ``prev_hash`` (the previous
line's hash, "" for the first) and ``hash`` = sha256 of the canonical JSON of the record without
``hash`` (sorted keys, nulls kept: a canonicalizer that drops null would let a mutation after
signing go unnoticed). ``verify`` names each edited, deleted, inserted or reordered line.
A torn last line (a kill mid-write) is detected and moved aside on open, never kept silently.
The head hash is mirrored to ``records.head`` so truncation of whole lines is detected too.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from harness.safe_text import printable_obj


def canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def record_hash(rec: dict) -> str:
    return hashlib.sha256(canonical({k: v for k, v in rec.items() if k != "hash"}).encode()).hexdigest()


@dataclass
class Repair:
    torn_bytes: int
    moved_to: Path | None


class Ledger:
    """Single-writer append-only ledger. Open it once per run; only the driver writes."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.head_path = self.path.with_suffix(".head")
        self.repair = self._repair_torn_tail()
        self.records = read_records(self.path) if self.path.exists() else []
        self.last_hash = self.records[-1]["hash"] if self.records else ""
        self.head_repaired = self._reconcile_head()

    def _reconcile_head(self) -> bool:
        """A kill between a line's fsync and the head update leaves the head exactly one record
        behind (or absent after the first line): catch it up. Any other mismatch is tampering."""
        if not self.records:
            return False
        last = self.records[-1]
        head = self.head_path.read_text().split() if self.head_path.exists() else None
        if head == [str(last["seq"]), last["hash"]]:
            return False
        behind_one = (head is None and len(self.records) == 1) or (
            head is not None and len(self.records) >= 2 and head == [str(self.records[-2]["seq"]), self.records[-2]["hash"]])
        if not behind_one:
            raise ValueError(f"{self.path}: records.head does not match the ledger (lines removed or appended "
                             f"outside the harness); run `harness ledger verify`")
        self._write_head(last)
        return True

    def _write_head(self, rec: dict) -> None:
        tmp = self.head_path.with_suffix(".head.tmp")
        tmp.write_text(f"{rec['seq']} {rec['hash']}\n")
        os.replace(tmp, self.head_path)

    def _repair_torn_tail(self) -> Repair | None:
        if not self.path.exists():
            return None
        data = self.path.read_bytes()
        if not data or data.endswith(b"\n"):
            return None
        cut = data.rfind(b"\n") + 1
        torn = data[cut:]
        aside = self.path.with_name(self.path.name + ".torn")
        with aside.open("ab") as f:
            f.write(torn + b"\n")
        with self.path.open("r+b") as f:
            f.truncate(cut)
            f.flush()
            os.fsync(f.fileno())
        return Repair(len(torn), aside)

    def keys(self) -> set[str]:
        return {r["cell_key"] for r in self.records}

    def append(self, rec: dict) -> dict:
        rec = dict(printable_obj(rec), seq=len(self.records), prev_hash=self.last_hash)
        rec["hash"] = record_hash(rec)
        line = canonical(rec) + "\n"
        with self.path.open("a") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())
        self._write_head(rec)
        self.records.append(rec)
        self.last_hash = rec["hash"]
        return rec


def read_records(path: Path) -> list[dict]:
    out = []
    for i, line in enumerate(Path(path).read_text().splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{i}: not valid JSON ({exc.msg})") from exc
    return out


def verify(path: Path) -> list[str]:
    """Problems found in a ledger, one human-readable line each (empty list = intact)."""
    path = Path(path)
    problems = []
    raw = path.read_bytes()
    if raw and not raw.endswith(b"\n"):
        problems.append("last line is torn (no trailing newline)")
    recs: list[tuple[int, dict]] = []
    for i, line in enumerate(raw.decode(errors="replace").splitlines(), 1):
        try:
            rec = json.loads(line)
            assert isinstance(rec, dict)
        except (json.JSONDecodeError, AssertionError):
            problems.append(f"line {i}: not a JSON record")
            continue
        if not isinstance(rec.get("seq"), int) or rec.get("hash") != record_hash(rec):
            what = "inserted or edited (no valid seq/hash)" if "hash" not in rec else "edited (content does not match its hash)"
            problems.append(f"line {i}: {what}; cell {rec.get('cell_key')}")
        recs.append((i, rec))
    seqs = [r.get("seq") for _, r in recs if isinstance(r.get("seq"), int)]
    seen: dict[int, int] = {}
    for i, r in recs:
        s_ = r.get("seq")
        if isinstance(s_, int):
            if s_ in seen:
                problems.append(f"line {i}: inserted (seq {s_} already used by line {seen[s_]})")
            seen.setdefault(s_, i)
    if seqs:
        missing = sorted(set(range(max(seqs) + 1)) - set(seqs))
        for m in missing:
            problems.append(f"seq {m}: deleted (no line carries it)")
    for (i0, a), (i1, b) in zip(recs, recs[1:]):
        sa, sb = a.get("seq"), b.get("seq")
        if isinstance(sa, int) and isinstance(sb, int) and sb < sa:
            problems.append(f"line {i1}: reordered (seq {sb} after seq {sa})")
        elif sb == (sa or 0) + 1 and b.get("prev_hash") != a.get("hash"):
            problems.append(f"line {i1}: chain broken (prev_hash does not match line {i0})")
    if recs and recs[0][1].get("seq") == 0 and recs[0][1].get("prev_hash") != "":
        problems.append(f"line {recs[0][0]}: chain broken (first record has a prev_hash)")
    head = path.with_suffix(".head")
    if recs and not head.exists():
        problems.append("end of file: records.head is missing (it anchors the last line; lines may have been "
                        "removed from the end)")
    if head.exists() and recs:
        seq_s, h = head.read_text().split()
        last = recs[-1][1]
        if int(seq_s) != last.get("seq") or h != last.get("hash"):
            problems.append(f"end of file: records.head names seq {seq_s}, the last line is seq "
                            f"{last.get('seq')} (lines removed from the end, or appended)")
    return problems
