"""A large run directory made from a small real one, for the report's scale tests and benchmark.

Every cell of a protocol's design (the powered design: 9,240 cells) gets a record, and optionally
the event log, transcript and diffs, of a real cell of the same arm from a template run (chosen
by a hash of the cell key), with the cell's identity rewritten. The outcomes are the template's,
so nothing here is a result: it only gives the report real-sized inputs.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from harness.core.layout import diff_paths, transcript_path
from harness.core.matrix import Cell, enumerate_cells
from harness.core.protocol import load_protocol
from harness.ledger.ledger import canonical, record_hash
from harness.run.cellrun import events_path


def replicate(template: Path, protocol: Path, out: Path, *, with_files: bool = True) -> int:
    """Write a run directory in ``out`` covering every cell of ``protocol``; returns the cell count."""
    template, out = Path(template), Path(out)
    recs = [json.loads(line) for line in (template / "records.jsonl").read_text().splitlines() if line.strip()]
    by_arm: dict[str, list[dict]] = {}
    for r in recs:
        by_arm.setdefault(r["arm"], []).append(r)
    meta = json.loads((template / "run.json").read_text())
    meta.update(protocol_path=str(Path(protocol).resolve()), protocol=f"{load_protocol(protocol).name} (synthetic)",
                run_id="synthetic")
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    lines, prev = [], ""
    cells = enumerate_cells(load_protocol(protocol))
    for seq, c in enumerate(cells):
        pool = by_arm.get(c.arm) or recs
        src = pool[int(hashlib.sha256(c.key.encode()).hexdigest(), 16) % len(pool)]
        rec = {k: v for k, v in src.items() if k not in ("hash", "prev_hash", "seq")}
        rec.update(cell_key=c.key, arm=c.arm, task=c.task, scenario=c.scenario, repeat=c.repeat,
                   factors=dict(c.factors), transcript=transcript_path(out, c.key).relative_to(out).as_posix(),
                   seq=seq, prev_hash=prev)
        rec["hash"] = prev = record_hash(rec)
        lines.append(canonical(rec))
        if with_files:
            _copy_files(template, Cell.from_key(src["cell_key"]), out, c)
    (out / "records.jsonl").write_text("\n".join(lines) + "\n")
    (out / "records.head").write_text(f"{len(cells) - 1} {prev}\n")
    return len(cells)


def _copy_files(template: Path, src: Cell, out: Path, dst: Cell) -> None:
    ev_src, ev_dst = events_path(template, src), events_path(out, dst)
    ev_dst.parent.mkdir(parents=True, exist_ok=True)
    if ev_src.is_file():
        ev_dst.write_text(ev_src.read_text().replace(src.key, dst.key))
    tr_src, tr_dst = transcript_path(template, src.key), transcript_path(out, dst.key)
    tr_dst.parent.mkdir(parents=True, exist_ok=True)
    if tr_src.is_file():
        tr_dst.write_text(tr_src.read_text().replace(src.key, dst.key))
    for a, b in zip(diff_paths(ev_src), diff_paths(ev_dst)):
        if a.is_file():
            shutil.copyfile(a, b)
