"""Mutants judged per second: the corpus's ``fine`` family on its fast pytest path (subject) against
mutmut (baseline), on the same bundled module and suite (corpus/examples/isbn), in the same run,
with the same number of parallel workers. ratio = subject throughput / baseline throughput.

Each side is timed from start to finish as a user would run it: generating its mutants, its
own set-up (mutmut: copying the project, its clean and stats runs; the corpus: the cold control,
the coverage run, the fork-servers) and judging. Judged = mutants that got a verdict (mutmut: an
exit code; the corpus: accept, reject or incapacity; equivalent mutants are not judged and not
counted). mutmut is a bench-only extra: ``pip install -e '.[bench]'`` (``make bench`` installs it).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus.catalogue import Loop
from corpus.measure import measure, summarize

SAMPLE = Path(__file__).resolve().parents[1] / "corpus" / "examples" / "isbn"


def _mutmut_bin() -> str:
    exe = Path(sys.executable).with_name("mutmut")
    if not exe.exists():
        raise SystemExit("bench_mutmut needs mutmut: pip install -e '.[bench]' (make bench installs it)")
    return str(exe)


def run_mutmut(workers: int) -> dict:
    """mutmut 3 on a fresh copy of the sample: wall seconds, judged, survived (exit code 0)."""
    with tempfile.TemporaryDirectory(prefix="bench-mutmut-") as tmp:
        proj = Path(tmp) / "proj"
        proj.mkdir()
        shutil.copy(SAMPLE / "isbn.py", proj / "isbn.py")
        shutil.copytree(SAMPLE / "tests", proj / "tests")
        (proj / "setup.cfg").write_text("[mutmut]\nsource_paths=isbn.py\ntests_dir=tests/\n")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
        t0 = time.perf_counter()
        r = subprocess.run([_mutmut_bin(), "run", "--max-children", str(workers)], cwd=proj, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1800)
        wall = time.perf_counter() - t0
        meta = proj / "mutants" / "isbn.py.meta"
        if not meta.is_file():
            raise RuntimeError(f"mutmut run failed (exit {r.returncode}): {(r.stdout + r.stderr)[-500:]}")
        codes = json.loads(meta.read_text())["exit_code_by_key"]
    judged = [c for c in codes.values() if c is not None]
    return {"wall_s": wall, "mutants": len(codes), "judged": len(judged),
            "survived": sum(c == 0 for c in judged)}


def run_corpus(workers: int) -> dict:
    """The corpus's fine family through ``measure`` (the fast pytest path) on a fresh copy."""
    with tempfile.TemporaryDirectory(prefix="bench-fine-") as tmp:
        art = Path(tmp) / "artifact"
        art.mkdir()
        shutil.copy(SAMPLE / "isbn.py", art / "isbn.py")
        loop = Loop(id="isbn", dir=Path(tmp), title="isbn", domains=["software"], requirement="(bench)",
                    kind="python", target="isbn.py", artifact_dir=art, hints={"role": "code"}, not_applicable=(),
                    gate_paths=[SAMPLE / "gate.toml"])
        t0 = time.perf_counter()
        m = measure([loop], families=("fine",), tier2=False, workers=workers)
        wall = time.perf_counter() - t0
    g = summarize(m)["gates"][0]
    rows = [r for r in m.rows if not r.is_control]
    judged = [r for r in rows if r.verdict in ("accept", "reject", "incapacity")]
    return {"wall_s": wall, "mutants": len(rows), "judged": len(judged), "equivalent": g["all"]["equivalent"],
            "survived": g["all"]["false_accept"]["k"], "control": g["control_verdict"],
            "finds_gap": any("10 -> 11" in m.mutants[s["mutant"]].note and "L28" in m.mutants[s["mutant"]].note
                             for s in g["survivors"])}


def run(quick: bool = False) -> list[dict]:
    """mutmut wall / corpus wall (issue 26: what a user waits for), median of interleaved pairs
    (mutmut first, then the corpus, repeated; 1 pair with ``quick``). Judged per second is in the notes."""
    workers = 2
    pairs = [(run_mutmut(workers), run_corpus(workers)) for _ in range(1 if quick else 3)]
    ratios = sorted(b["wall_s"] / s["wall_s"] for b, s in pairs)
    ratio = ratios[len(ratios) // 2]
    base, subj = pairs[[b["wall_s"] / s["wall_s"] for b, s in pairs].index(ratio)]
    base_tp, subj_tp = base["judged"] / base["wall_s"], subj["judged"] / subj["wall_s"]
    return [{"name": "fine family vs mutmut: wall time, mutmut / corpus (isbn sample, 19 tests)",
             "baseline": f"mutmut {base['wall_s']:.1f}s", "baseline_s": base["wall_s"],
             "subject": f"corpus fine {subj['wall_s']:.1f}s", "subject_s": subj["wall_s"],
             "ratio": ratio, "unit": "x (mutmut wall / corpus wall; >1 = corpus faster)",
             "notes": f"median of {len(pairs)} interleaved pairs (ratios {', '.join(f'{r:.2f}' for r in ratios)}); "
                      f"{workers} workers each; mutmut {base['judged']}/{base['mutants']} judged "
                      f"({base_tp:.2f}/s), {base['survived']} survived; corpus {subj['judged']}/{subj['mutants']} "
                      f"judged ({subj_tp:.2f}/s; {subj['equivalent']} equivalent, not judged), {subj['survived']} "
                      f"survived, control {subj['control']}, ISBN-13 '% 10 -> % 11' gap found: {subj['finds_gap']}"}]
