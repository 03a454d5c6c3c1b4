"""Run every benchmark module and write results/bench/bench.json and bench.md.

``python -m benchmarks coverage [--sims N] [--B N]`` instead runs the coverage-and-width study by
estimand and the peeking simulation (benchmarks/bench_coverage.py) and writes
results/bench/coverage-estimands.json and .md; ``--grid`` runs the earlier full grid
(coverage.json/.md); ``--calibrate`` the population rule's calibration grid (coverage-calibration.md).
"""
from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import platform
import sys
import time
from pathlib import Path

import benchmarks


def _methods(spec: str | None) -> list[tuple[str, str]] | None:
    """'tango/cell,population/task' -> [("tango", "cell"), ("population", "task")]; None when not given."""
    if not spec:
        return None
    pairs = [tuple(x.strip().split("/", 1)) for x in spec.split(",") if x.strip()]
    bad = [p for p in pairs if len(p) != 2]
    if bad:
        raise SystemExit(f"--methods: expected method/cluster pairs, got {spec!r}")
    return [(m, c) for m, c in pairs]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("study", nargs="?", choices=["coverage"],
                    help="'coverage': the full coverage study instead of the timing benchmarks")
    ap.add_argument("--only", help="substring of the benchmark module name")
    ap.add_argument("--quick", action="store_true", help="smaller inputs (smoke run)")
    ap.add_argument("--out", default="results/bench")
    ap.add_argument("--sims", type=int, default=None,
                    help="coverage: simulated studies per setting (default 500; 1000 with --grid)")
    ap.add_argument("--B", type=int, default=999, help="coverage: bootstrap resamples per study")
    ap.add_argument("--seed", type=int, default=20261202, help="coverage: simulation seed")
    ap.add_argument("--grid", action="store_true",
                    help="coverage: the earlier 108-setting grid over cluster counts (about 70 minutes)")
    ap.add_argument("--rare-only", action="store_true",
                    help="coverage: only the rare-task section (the paper's H1 shape), to coverage-rare.md")
    ap.add_argument("--calibrate", action="store_true",
                    help="coverage: the population rule's calibration grid (settings separate from the reported "
                         "ones), to coverage-calibration.md")
    ap.add_argument("--methods", help="coverage: comma-separated method/cluster pairs to run instead of all "
                                      "(e.g. tango/cell,stratified/task,population/task); the same simulated studies")
    ap.add_argument("--calibration-seed", type=int, default=None,
                    help="coverage --calibrate: the grid's seed (default 7, the seed the population rule was chosen on)")
    ap.add_argument("--setting", help="coverage: only the reported settings whose name contains this")
    args = ap.parse_args(argv)
    out = Path(args.out)
    if args.study == "coverage":
        from benchmarks.bench_coverage import main as coverage_main

        sims = args.sims or (1000 if args.grid or args.rare_only else 2000 if args.calibrate else 500)
        return coverage_main(out, sims, args.B, args.seed, peek_sims=sims, rare_only=args.rare_only, grid=args.grid,
                             calibration=args.calibrate, methods=_methods(args.methods), setting=args.setting,
                             calibration_seed=args.calibration_seed)
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    for mod in sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__)):
        if not mod.startswith("bench_") or (args.only and args.only not in mod):
            continue
        t0 = time.perf_counter()
        print(f"[bench] {mod} ...", flush=True)
        for row in importlib.import_module(f"benchmarks.{mod}").run(quick=args.quick):
            row.setdefault("module", mod)
            rows.append(row)
            print(f"[bench]   {row['name']}: ratio {row['ratio']:.3g} ({row.get('unit', '')})", flush=True)
        print(f"[bench] {mod} done in {time.perf_counter() - t0:.1f}s", flush=True)
    meta = {"python": sys.version.split()[0], "machine": platform.machine(),
            "cpus": __import__("os").cpu_count(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (out / "bench.json").write_text(json.dumps({"meta": meta, "results": rows}, indent=2))
    lines = ["| benchmark | baseline | baseline s | subject | subject s | ratio | unit | notes |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['name']} | {r['baseline']} | {r['baseline_s']:.3f} | {r['subject']} | "
                     f"{r['subject_s']:.3f} | {r['ratio']:.3g} | {r.get('unit', '')} | {r.get('notes', '')} |")
    (out / "bench.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
