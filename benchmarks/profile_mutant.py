"""Where one mutant's wall time goes on the fine family's fast pytest path (issue 35), for a
bundled sample (default: websocket-client's _abnf.py, whose suite reloads the module).

    python -m benchmarks.profile_mutant [SAMPLE-INDEX]

Wraps the parent's steps with timers (each wrapped call's wall time, summed over the run; the
workers run in parallel threads, so the parts are worker-seconds, not wall) and prints each
step's share and seconds per judged mutant: generating the mutants, the session's set-up (the
coverage run and the fork-servers, paid once), and per mutant the selection, the compile and
code-object extraction, the private copy, and the child run (swap or fork, as the server reports
it, which includes the child's fork, its pytest run of the selected tests and the reply).
"""
from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from benchmarks.bench_mutmut import SAMPLES, _copy
from corpus import coverage_map, fast_pytest, forkserver
from corpus.catalogue import Loop
from corpus.measure import measure

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)
_LOCK = threading.Lock()


def _timed(owner, name: str, label: str) -> None:
    fn = getattr(owner, name)

    def wrapper(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            with _LOCK:
                SPENT[label] += time.perf_counter() - t0
                CALLS[label] += 1
    setattr(owner, name, wrapper)


def profile(sample_index: int = 2, workers: int = 2) -> dict:
    sample = SAMPLES[sample_index]
    _timed(fast_pytest, "materialize", "private copy of the artifact directory")
    _timed(coverage_map.CoverageMap, "select", "test selection (changed lines -> covering tests)")
    _timed(fast_pytest, "changed_function", "changed-function check (compile, compare code objects)")
    _timed(fast_pytest, "function_codes", "mutated code objects (marshal)")
    _timed(forkserver.ForkServer, "swap", "child run: swap (fork + selected tests + reply)")
    _timed(forkserver.ForkServer, "run", "child run: fork (fork + pytest.main on selected tests)")
    _timed(fast_pytest, "measure_coverage", "set-up: coverage run of the suite (once)")
    import corpus.measure as cm
    _timed(cm, "generate", "generating the mutants (libcst, once)")
    with tempfile.TemporaryDirectory(prefix="profile-") as tmp:
        art = Path(tmp) / "artifact"
        art.mkdir()
        _copy(sample, art)
        loop = Loop(id="profile", dir=Path(tmp), title=sample.name, domains=["software"], requirement="(profile)",
                    kind="python", target=sample.target, artifact_dir=art, hints={"role": "code"},
                    not_applicable=(), gate_paths=[sample.dir / "gate.toml"])
        t0 = time.perf_counter()
        m = measure([loop], families=("fine",), tier2=False, workers=workers)
        wall = time.perf_counter() - t0
    judged = [r for r in m.rows if not r.is_control and r.verdict in ("accept", "reject", "incapacity")]
    by_exec: dict[str, int] = defaultdict(int)
    for r in judged:
        by_exec[r.executor] += 1
    # ForkServer.run also carries the swap's request (swap calls run): report run net of swap
    SPENT["child run: fork (fork + pytest.main on selected tests)"] -= SPENT["child run: swap (fork + selected tests + reply)"]
    CALLS["child run: fork (fork + pytest.main on selected tests)"] -= CALLS["child run: swap (fork + selected tests + reply)"]
    return {"sample": sample.name, "wall_s": wall, "workers": workers, "judged": len(judged),
            "executors": dict(by_exec), "spent": dict(SPENT), "calls": dict(CALLS)}


def render(p: dict) -> str:
    n = max(p["judged"], 1)
    total = sum(p["spent"].values())
    out = [f"{p['sample']}: {p['judged']} mutants judged in {p['wall_s']:.1f}s wall, {p['workers']} workers "
           f"(executors: {', '.join(f'{k} {v}' for k, v in sorted(p['executors'].items()))})",
           f"{'step':62} {'calls':>6} {'worker-s':>9} {'ms/mutant':>10} {'share':>6}"]
    for label, s in sorted(p["spent"].items(), key=lambda kv: -kv[1]):
        out.append(f"{label:62} {p['calls'].get(label, 0):6d} {s:9.1f} {1000 * s / n:10.1f} {s / total:6.1%}")
    return "\n".join(out)


if __name__ == "__main__":
    print(render(profile(int(sys.argv[1]) if len(sys.argv) > 1 else 2)))
