"""A run through a cluster started with ``ray start`` (a head and a worker node, one CPU each,
token authentication, on 127.0.0.1 in a private network namespace: tests/support/ray_start.py)
against the local pool with the same two CPUs, over the same cells of the quickstart design.

Both are timed the same way: the wall of the whole ``harness run`` command (interpreter start-up
included; for Ray also joining the cluster and the per-node corpus check, not the cluster's own
start-up, which is reported apart). The row also gives the simulated engine's throughput per
node, the figure docs/reference/measurements.md quotes.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "protocols" / "quickstart.toml"
HARNESS = str(Path(sys.executable).parent / "harness")


def _outcomes(run: Path) -> list[tuple[str, str]]:
    recs = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    return sorted((r["cell_key"], r["outcome"]) for r in recs)


def run(quick: bool = False) -> list[dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from support import ray_start
    why = ray_start.unavailable()
    if why:
        print(f"[bench] ray start cluster skipped: {why}", flush=True)
        return []
    limit = ["--limit-cells", "20"] if quick else []
    with tempfile.TemporaryDirectory(prefix="hx-bench-raystart-") as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        subprocess.run([HARNESS, "run", str(QUICKSTART), "--out", str(tmp / "local"), "--workers", "2", *limit],
                       check=True, capture_output=True, cwd=ROOT)
        local_s = time.perf_counter() - t0
        cluster = ray_start.RayStartCluster()
        try:
            t0 = time.perf_counter()
            cluster.start_head(num_cpus=1)
            cluster.start_worker("w1", num_cpus=1)
            start_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            cluster.run([HARNESS, "run", str(QUICKSTART), "--out", str(tmp / "ray"), "--executor", "ray",
                         "--address", cluster.address, *limit], cwd=ROOT, check=True, timeout=1800)
            ray_s = time.perf_counter() - t0
        finally:
            left = cluster.stop()
        lo, ra = _outcomes(tmp / "local"), _outcomes(tmp / "ray")
    n = len(ra)
    same = "outcomes identical" if lo == ra else "OUTCOMES DIFFER"
    return [{"name": "ray start cluster (2 nodes x 1 CPU, token auth) vs local pool (2 workers)",
             "baseline": f"local pool 2w {len(lo) / local_s:.2f} cells/s", "baseline_s": local_s,
             "subject": f"--address 2 nodes {n / ray_s:.2f} cells/s ({n / ray_s / 2:.2f} per node)",
             "subject_s": ray_s, "ratio": local_s / ray_s, "unit": "x throughput (whole harness run command)",
             "notes": f"quickstart, {n} cells, simulated engine, verdict cache per run; {same}; cluster start-up "
                      f"(ray start head + worker) {start_s:.1f}s excluded; processes left after stop: {len(left)}"}]
