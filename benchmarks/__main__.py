"""Run every benchmark module and write results/bench/bench.json and bench.md."""
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks")
    ap.add_argument("--only", help="substring of the benchmark module name")
    ap.add_argument("--quick", action="store_true", help="smaller inputs (smoke run)")
    ap.add_argument("--out", default="results/bench")
    args = ap.parse_args(argv)
    out = Path(args.out)
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
