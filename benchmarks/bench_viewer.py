"""The run report at the powered design's scale: `harness view` over 9,240 cells, each with the
event log, transcript and diffs of a real quickstart cell (tests/support/synthrun.py).

Rows: (1) writing the report against copying its inputs (cells/ and transcripts/, the I/O floor);
ratio = report seconds / copy seconds; the note gives the absolute time, whose target is < 60 s.
(2) cell pages written by 4 threads against 1; ratio = 1-thread seconds / 4-thread seconds."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(quick: bool = False) -> list[dict]:
    sys.path.insert(0, str(REPO / "tests"))
    from support.synthrun import replicate
    from viewer.site import build

    with tempfile.TemporaryDirectory(prefix="hx-bench-view-") as td:
        td = Path(td)
        template = td / "template"
        cmd = [sys.executable, "-m", "harness.cli.cli", "run", str(REPO / "protocols" / "quickstart.toml"), "--out",
               str(template), "--workers", "2"] + (["--limit-cells", "20"] if quick else [])
        subprocess.run(cmd, check=True, capture_output=True, cwd=REPO)
        run_dir = td / "powered"
        n = replicate(template, REPO / "protocols" / "powered-ablation.toml", run_dir)
        t0 = time.perf_counter()
        for sub in ("cells", "transcripts"):
            shutil.copytree(run_dir / sub, td / "copy" / sub)
        copy_s = time.perf_counter() - t0
        t4 = build(run_dir, td / "report4", workers=4).seconds
        t1 = build(run_dir, td / "report1", workers=1).seconds
        size = sum(p.stat().st_size for p in (td / "report4").rglob("*") if p.is_file()) / 2**20
    return [
        {"name": f"harness view, powered design ({n} cells)", "baseline": "copy cells/ + transcripts/",
         "baseline_s": copy_s, "subject": "write the report (4 threads)", "subject_s": t4, "ratio": t4 / copy_s,
         "unit": "x the copy time (lower is better)",
         "notes": f"report written in {t4:.1f} s (target < 60 s), {size:.0f} MiB"},
        {"name": "harness view: cell pages by 4 threads vs 1", "baseline": "1 thread", "baseline_s": t1,
         "subject": "4 threads", "subject_s": t4, "ratio": t1 / t4, "unit": "x faster", "notes": f"{n} cells"},
    ]
