"""Analysis at scale (issue 37): ``harness analyze`` and ``harness compare`` on 10,000, 100,000 and 1,000,000
generated records of the powered design's shape (5 arms x 24 tasks x 16 scenarios x k repeats for analyze; one
arm's 24 x 16 x k cells per side for compare), each command run as its own process (``python -m harness.cli``,
as a user runs it: start-up, the ledger check, the read, the tables, every output file and figure) and timed as
wall seconds and CPU seconds (user + system of that process, ``os.wait4``), with its peak memory. The baseline of
each row is the same command on the smallest file, so the ratio is the growth factor against the record count's
(10x, 100x): linear growth keeps the two close. Rows (full run; ``quick`` stops at 100,000):

  * analyze_N: ``harness analyze FILE --out DIR`` (load, validate, tables, H1-H3 bootstraps B=2000, FDR, tidy CSV
    and Parquet, report, figures) on N records.
  * compare_N: ``harness compare A B --out DIR`` on two N-record files (A2p against A4, one arm a side; compare.md,
    compare.json, the figure and the page).
  * load_N_per_row: the per-row validator on 100,000 records, for the scale of what the columnar screen
    (analysis.fastload) removed (not run at 1,000,000: about 20 minutes of CPU).

Wall seconds on a shared machine depend on its load (the notes give the 1-minute load average before each
command); CPU seconds less so, though a loaded machine's shared caches inflate them too.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_analysis import _synthetic

PER_REPEAT = 5 * 24 * 16  # cells of one repeat across the design's arms


def _arm_file(path: Path, arm: str, p_amp: float, k: int, seed: int) -> int:
    """One arm's 24 tasks x 16 scenarios x k repeats, in bench_analysis._synthetic's format."""
    rng = np.random.default_rng(seed)
    n = 0
    with path.open("w") as fh:
        for t in range(24):
            for sc in ["null"] + [f"B{i}" for i in range(1, 16)]:
                u, tok = rng.random(k), rng.integers(100_000, 300_000, k)
                for r in range(k):
                    if sc == "null":
                        o, f = ("completed", "true, true, true") if u[r] > 0.02 else ("false_stop", "false, true, false")
                    else:
                        o, f = ("amplified", "true, false, true") if u[r] < p_amp else ("recovered", "true, true, true")
                    vis, hid, ship = f.split(", ")
                    fh.write(f'{{"arm": "{arm}", "task": "task{t:02d}", "scenario": "{sc}", "repeat": {r + 1}, '
                             f'"outcome": "{o}", "visible_pass": {vis}, "hidden_pass": {hid}, "shipped": {ship}, '
                             f'"tokens_in": {int(tok[r])}, "tokens_out": {int(tok[r]) // 10}, "wall_s": 60.0, '
                             f'"cost_usd": null, "engine": "bench"}}\n')
                    n += 1
    return n


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _command(*args: str) -> tuple[float, float, int]:
    """(wall s, CPU s, peak memory in MiB) of ``harness ARGS`` run as a process of its own."""
    w = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "harness.cli", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"harness {' '.join(args)} failed: {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def _per_row_load(path: Path) -> None:
    from analysis import fastload
    from analysis.records import load_records

    keep = fastload.valid_rows
    fastload.valid_rows = lambda *a, **k: None
    try:
        load_records(path)
    finally:
        fastload.valid_rows = keep


def run(quick: bool) -> list[dict]:
    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    rows: list[dict] = []
    base: dict[str, tuple[int, float, float]] = {}
    with tempfile.TemporaryDirectory() as td:
        td_p = Path(td)
        for target in sizes:
            k = max(1, round(target / PER_REPEAT))
            path = td_p / f"r{target}.jsonl"
            n = _synthetic(path, k, seed=int(np.log10(target)))
            a, b = td_p / f"a{target}.jsonl", td_p / f"b{target}.jsonl"  # compare: one arm a side, ~target rows each
            na = _arm_file(a, "A2p", 0.017, max(1, round(target / (24 * 16))), seed=1)
            _arm_file(b, "A4", 0.001, max(1, round(target / (24 * 16))), seed=2)
            for name, args, count in (("analyze", ("analyze", str(path), "--out", str(td_p / f"o{target}")), n),
                                      ("compare", ("compare", str(a), str(b), "--out", str(td_p / f"c{target}")), na)):
                load = os.getloadavg()[0]
                wall, cpu, mib = _command(*args)
                b0 = base.setdefault(name, (count, wall, cpu))
                rows.append({"name": f"{name}_{count}", "baseline": f"harness {name} on {b0[0]:,} records",
                             "baseline_s": b0[1], "subject": f"harness {name} on {count:,} records", "subject_s": wall,
                             "ratio": wall / b0[1], "unit": f"x the smallest's wall time (records x{count / b0[0]:.0f})",
                             "notes": f"wall {wall:.1f} s, CPU {cpu:.1f} s, peak {mib:,} MiB, load {load:.1f} before; "
                                      f"CPU x{cpu / b0[2]:.1f} for records x{count / b0[0]:.0f}"})
            if target == 100_000:
                wall, cpu = _timed(lambda: _per_row_load(path))
                fw, fc = _timed(lambda: __import__("analysis.records").records.load_records(path))
                rows.append({"name": f"load_{n}_per_row", "baseline": "per-row validator", "baseline_s": wall,
                             "subject": "columnar screen (analysis.fastload)", "subject_s": fw, "ratio": wall / fw,
                             "unit": "x faster", "notes": f"CPU {cpu:.1f} s per row vs {fc:.1f} s columnar"})
            for p in (path, a, b):  # a million rows are 240 MB a file: not kept past their row
                p.unlink()
    return rows
