"""Receipts (issue 33): what signing and keeping the final tree cost per cell, and the tree store's size.

Rows:
  * receipts_per_cell: a cell's evidence work (its three receipts signed and written: a gate check and
    the final visible and hidden; its record's seal signed and the ledger's head seal written; its
    final tree kept in a fresh store) vs one judged visible test
    run of the same tree (the unit of work a cell already does several times), over the final trees
    of a real simulated run.
  * tree_store_bytes: bytes the tree store holds per cell over a real run (blobs deduplicated across
    cells, manifests included) vs the bytes of the same trees stored whole (no deduplication); the
    notes project a 9,240-cell run from the measured bytes per cell.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = """
[protocol]
name = "bench-receipts"
seed = 3
repeats = {k}
tasks_dir = "{tasks}"
tasks = ["parse-range", "median", "text-stats"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.A2]
controller = "A2"
[arms.A4]
controller = "A4"
"""


def _run(tmp: Path, k: int) -> Path:
    from harness.run.driver import execute, prepare
    proto = tmp / "bench-receipts.toml"
    proto.write_text(PROTOCOL.format(k=k, tasks=(ROOT / "tasks").as_posix()))
    prepare(proto, tmp / "run", engine=None, reviewer_engine=None, model=None, exploratory=True)
    execute(tmp / "run", workers=1, log=lambda m: None)
    return tmp / "run"


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _records(run: Path) -> list[dict]:
    import json
    return [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]


def _evidence_row(run: Path, tmp: Path, n: int) -> dict:
    from harness.core.tasks import load_task, read_entries
    from harness.judge import evidence
    from harness.judge.testrun import run_pytest
    from harness.ledger.receipts import run_signer
    from harness.ledger.seal import Sealer
    from harness.sandbox.sandbox import Limits
    from harness.sandbox.treestore import load_tree, materialize, store_tree
    recs = [r for r in _records(run) if r.get("tree_digest_final")][:n]
    evid_s = judge_s = 0.0
    sealer = Sealer(tmp / "sealed", "0" * 64, "bench")
    for i, rec in enumerate(recs):
        tree = load_tree(run / "trees", rec["tree_digest_final"])
        root = tmp / f"t{i}"
        materialize(tree, root)
        reading = read_entries(root)  # the cell reads its final tree anyway (its digest): not timed here
        task = load_task(ROOT / "tasks" / rec["task"])
        t0 = time.perf_counter()
        v = run_pytest(root, task.acceptance, dest_rel=task.acceptance_dest, limits=Limits(timeout_s=60))
        judge_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        ctx = evidence.Context("bench", rec["cell_key"], "0" * 64, "1" * 64, "2" * 64,
                               evidence.command_set_hash(task.acceptance_dest), task.acceptance_dest)
        notary = evidence.Notary(run_signer(tmp / "keys"), tmp / "out", ctx)
        for stage, kind in (("gate", "visible"), ("final", "visible"), ("final", "hidden")):
            notary.issue(stage, kind, tree.digest or "", v.summary())
        store_tree(tmp / f"store{i}", root, reading)
        sealed = dict(rec, seal=None)
        sealed["seal"] = sealer.sign(sealed)  # the record's own seal, then the head seal written (the driver's append)
        sealer(sealed, i + 1)
        evid_s += time.perf_counter() - t0
    return {"name": f"receipts: a cell's 3 receipts signed + record sealed + final tree kept vs one judged visible run "
                    f"({len(recs)} trees)",
            "baseline": "one judged visible test run", "baseline_s": judge_s / len(recs),
            "subject": "sign + write 3 receipts, seal the record and the ledger head, store the final tree (fresh store)",
            "subject_s": evid_s / len(recs),
            "ratio": evid_s / judge_s, "unit": "per cell, lower is better",
            "notes": "a cell runs >= 3 judged test runs (gate, final visible, final hidden), so the share of a cell is "
                     "below ratio/3"}


def _store_row(run: Path) -> dict:
    from harness.sandbox.treestore import load_tree
    recs = _records(run)
    whole = sum(sum(len(d) for d in load_tree(run / "trees", r["tree_digest_final"]).data.values()) for r in recs
                if r.get("tree_digest_final"))
    stored = _size(run / "trees")
    per_cell = stored / len(recs)
    return {"name": f"tree store: bytes per cell over a {len(recs)}-cell simulated run", "baseline": "trees stored whole",
            "baseline_s": whole / len(recs), "subject": "content-addressed store (blobs deduplicated)",
            "subject_s": per_cell, "ratio": stored / whole if whole else float("nan"), "unit": "bytes per cell (not s)",
            "notes": f"projected 9,240-cell run at this rate: {per_cell * 9240 / 1e6:.1f} MB (an upper bound: "
                     f"deduplication improves as repeats of one task share files)"}


def run(quick: bool = False) -> list[dict]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-receipts-"))
    try:
        run_dir = _run(tmp, 1 if quick else 2)
        return [_evidence_row(run_dir, tmp, 3 if quick else 8), _store_row(run_dir)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
