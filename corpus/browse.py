"""What a finished measurement leaves to browse: every mutant as a splice of its conforming
artifact, so ``harness corpus results / show / apply / retest`` work from ``--out`` alone.

``--out``/mutants.jsonl holds one line per mutant: id, loop, operator, label, note, target, the
sha256 of the conforming artifact it was made from (``parent_digest``) and the change as a splice
(``start``, ``end`` byte offsets into the conforming bytes and the ``replacement`` bytes, hex), or
``deleted``. ``--out``/conforming/ keeps each loop's conforming bytes and ``--out``/run.json how
the run was made (gate, artifact, hints, context directory, families), for ``retest`` and ``apply``.
A splice is applied only to bytes whose sha256 is ``parent_digest``: a mutant of an artifact that
has changed since is refused, never applied to the wrong text.
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from corpus.model import Mutant, sha256
from harness.core import runio

MUTANTS = "mutants.jsonl"
RUN = "run.json"


class BrowseError(ValueError):
    """A missing or stale measurement, or an unknown mutant (one line, for a UsageError)."""


def splice(parent: bytes, child: bytes) -> tuple[int, int, bytes]:
    """(start, end, replacement): ``parent[:start] + replacement + parent[end:] == child``, the
    smallest such change (common prefix and suffix removed)."""
    lo = 0
    top = min(len(parent), len(child))
    while lo < top and parent[lo] == child[lo]:
        lo += 1
    hi = 0
    while hi < top - lo and parent[-1 - hi] == child[-1 - hi]:
        hi += 1
    return lo, len(parent) - hi, child[lo:len(child) - hi]


def _slug(loop: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", loop)


def write_index(out: Path, mutants: dict[str, Mutant], conforming: dict[str, tuple[str, bytes]],
                run: dict) -> list[Path]:
    """mutants.jsonl, conforming/<loop> and run.json under ``out``, a staging directory
    (``runio.staged_dir``: published whole by the caller, so each file is ``runio.write_staged``)."""
    (out / "conforming").mkdir(parents=True, exist_ok=True)
    for loop, (_, data) in conforming.items():
        runio.write_staged(out / "conforming" / _slug(loop), data)
    lines: list[str] = []
    for m in mutants.values():
        d: dict[str, object] = {"id": m.id, "loop": m.loop, "family": m.family, "operator": m.operator,
                                "label": m.label, "note": m.note, "target": m.target, "parent_digest": m.parent_digest, "probe": m.probe}
        parent = conforming.get(m.loop, ("", b""))[1]
        if m.content is None:
            d["deleted"] = True
        else:
            lo, hi, rep = splice(parent, m.content)
            d.update(start=lo, end=hi, replacement=rep.hex())
        lines.append(json.dumps(d) + "\n")
    runio.write_staged(out / MUTANTS, "".join(lines))
    runio.write_staged(out / RUN, json.dumps(run, indent=2) + "\n")
    return [out / MUTANTS, out / RUN]


@dataclass(frozen=True)
class Stored:
    """One mutant as stored: rebuilt against the conforming bytes it was made from."""

    d: dict
    where: str = ""  # mutants.jsonl:LINE, named when a stored field is malformed

    @property
    def id(self) -> str:
        return self.d["id"]

    def content(self, parent: bytes) -> bytes | None:
        if sha256(parent) != self.d["parent_digest"]:
            raise BrowseError(f"{self.id}: the artifact changed since it was measured (sha256 "
                              f"{sha256(parent)[:12]}, the mutant was made from {self.d['parent_digest'][:12]}); "
                              f"run `harness corpus measure` again")
        if self.d.get("deleted"):
            return None
        start, end, rep = self.d.get("start"), self.d.get("end"), self.d.get("replacement")
        for name, value in (("start", start), ("end", end)):
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= len(parent):
                raise BrowseError(f"{self.where or self.id}: field {name!r} is not an offset into the artifact "
                                  f"({value!r}); run `harness corpus measure` again")
        try:
            raw = bytes.fromhex(rep) if isinstance(rep, str) else None
        except ValueError:
            raw = None
        if raw is None:
            raise BrowseError(f"{self.where or self.id}: field 'replacement' is not hex ({str(rep)[:40]!r}); "
                              "run `harness corpus measure` again")
        return parent[:start] + raw + parent[end:]

    def mutant(self, parent: bytes) -> Mutant:
        return Mutant(id=self.id, loop=self.d["loop"], family=self.d["family"], tier=1 if self.d["family"] != "tier2"
                      else 2, operator=self.d["operator"], label=self.d["label"],
                      parent_digest=self.d["parent_digest"], target=self.d["target"],
                      content=self.content(parent), probe=self.d.get("probe"), note=self.d["note"])


def _present(out: Path, path: Path) -> None:
    """A measurement's file is there (as anything: a FIFO or a link is then refused by the safe
    reader, naming what it is, not reported as missing)."""
    if not (path.exists() or path.is_symlink()):
        raise BrowseError(f"{out}: no {path.name}: not the --out of a finished `harness corpus measure`")


def load_index(out: Path) -> dict[str, Stored]:
    """``--out``/mutants.jsonl by id, read by the safe reader (a FIFO, a link, a line nested past
    the bound: one line naming the file and line)."""
    path = out / MUTANTS
    _present(out, path)
    out_d: dict[str, Stored] = {}
    for i, d in runio.read_jsonl(path, "mutant index"):
        try:
            out_d[d["id"]] = Stored(d, f"{path}:{i}")
        except (KeyError, TypeError):
            raise BrowseError(f"{path}:{i}: not a mutant record") from None
    return out_d


def find(index: dict[str, Stored], ident: str) -> Stored:
    """A mutant by its full id, or by a suffix that names exactly one (``fine/arithmetic/3``)."""
    if ident in index:
        return index[ident]
    hits = [k for k in index if k.endswith("/" + ident)]
    if len(hits) == 1:
        return index[hits[0]]
    if not hits:
        raise BrowseError(f"no mutant {ident!r} (see `harness corpus results --all`)")
    raise BrowseError(f"{ident!r} names {len(hits)} mutants ({', '.join(hits[:3])}, ...): give the full id")


def conforming(out: Path, loop: str) -> bytes:
    p = out / "conforming" / _slug(loop)
    if not (p.exists() or p.is_symlink()):
        raise BrowseError(f"{out}: no conforming copy for loop {loop!r}")
    return runio.read_bytes(p, "conforming artifact")


def diff(s: Stored, parent: bytes) -> str:
    """The mutant as a unified diff against its conforming artifact."""
    new = s.content(parent)
    a = parent.decode("utf-8", "replace").splitlines(keepends=True)
    b = [] if new is None else new.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"a/{s.d['target']}", "/dev/null" if new is None else f"b/{s.d['target']}"))


def judgments(out: Path) -> list[dict]:
    """``--out``/judgments.csv's rows, read by the safe reader (see ``load_index``)."""
    path = out / "judgments.csv"
    _present(out, path)
    return runio.read_csv(path, "judgments file")


def is_survivor(row: dict) -> bool:
    """A destroying mutant the gate accepted (a false accept: the gap a developer looks for)."""
    return row["label"] == "destroying" and row["verdict"] == "accept"
