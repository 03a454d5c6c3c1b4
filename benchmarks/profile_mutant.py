"""Where one mutant's wall time goes on the fine family's fast pytest path (issue 35), for a
bundled sample (default: websocket-client's _abnf.py, whose suite reloads the module).

    python -m benchmarks.profile_mutant [SAMPLE-INDEX] [--sample N] [--seed S] [--workers W]

``--sample N``: judge only N of the module's mutants, drawn with ``--seed`` (a seeded sample by
mutant id, the same N mutants on every run of one tree: before/after comparisons judge the same
mutants). The judging phase (from the first mutant handed to the workers to the last verdict) is
also measured apart: its wall, and its CPU seconds - the parent's, the fork-servers' and their
children's (read from /proc before the servers are closed), and any cold run's - per mutant, so
that the fixed set-up (generation, the cold control, the coverage run) does not blur them.

Wraps the parent's steps with timers (each wrapped call's wall time, summed over the run; the
workers run in parallel threads, so the parts are worker-seconds, not wall) and prints each
step's share and seconds per judged mutant: generating the mutants, the session's set-up (the
coverage run and the fork-servers, paid once), and per mutant the selection, the compile and
code-object extraction, the private copy, and the child run (swap or fork, as the server reports
it, which includes the child's fork, its pytest run of the selected tests and the reply).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import corpus.measure as cm
from benchmarks.bench_mutmut import SAMPLES, _copy, gate_copy
from corpus import coverage_map, fast_pytest, forkserver
from corpus.catalogue import Loop
from corpus.measure import measure

SPENT: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)
CHILD_CPU: dict[str, float] = defaultdict(float)    # the forked children's CPU, by kind of run
CHILD_RUNS: dict[str, int] = defaultdict(int)
CHILD_WALL: dict[str, float] = defaultdict(float)
_LOCK = threading.Lock()


def _child_cpu(name: str) -> None:
    """Wrap ``ForkServer.swap``/``run``: each child's CPU seconds (the server reports them),
    by kind - swap or fork, and apart the runs stopped by the timeout."""
    fn = getattr(forkserver.ForkServer, name)

    def wrapper(self, *a, **kw):
        r = fn(self, *a, **kw)
        if name == "run" and "swap" in (kw.get("extra") or {}):
            return r        # a swap's request: counted by the swap wrapper (a fork's extra holds no "swap")
        kind = ("swap" if name == "swap" else "fork") + (" (timeout)" if r[0] is None else
                                                         " (could not swap: exit 75)" if r[0] == 75 else "")
        with _LOCK:
            CHILD_CPU[kind] += self.last_cpu
            CHILD_WALL[kind] += r[3]
            CHILD_RUNS[kind] += 1
        return r
    setattr(forkserver.ForkServer, name, wrapper)


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


JUDGING: dict[str, float] = {}


def _tree_cpu(pid: int) -> float:
    """CPU seconds of process ``pid``, of its children it has reaped (/proc/PID/stat's utime,
    stime, cutime, cstime) and of its live descendants (a swap server's twins and spares, forked
    from it and reaped by it only when it closes); 0.0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK") + sum(_tree_cpu(c) for c in _children(pid))


def _children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (read from every /proc/N/stat's parent field)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if int((d / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(d.name))
            except (OSError, ValueError, IndexError):
                pass
    return out


def _cpu_now(session) -> float:
    """This process's CPU, its reaped children's (cold runs) and every live fork-server's."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
            + sum(_tree_cpu(s.proc.pid) for s in list(session._all) if s.proc is not None))


def _time_judging() -> None:
    """Wrap ``measure._fast_rows`` (one gate's mutants through the fast path): its wall and CPU."""
    fn = cm._fast_rows

    def wrapper(todo, session, *a, **kw):
        t0, c0 = time.perf_counter(), _cpu_now(session)
        servers0 = {s.proc.pid: _tree_cpu(s.proc.pid) for s in session._all if s.proc is not None}
        try:
            return fn(todo, session, *a, **kw)
        finally:
            JUDGING["wall_s"] = JUDGING.get("wall_s", 0.0) + time.perf_counter() - t0
            JUDGING["cpu_s"] = JUDGING.get("cpu_s", 0.0) + _cpu_now(session) - c0
            JUDGING["server_setup_cpu_s"] = JUDGING.get("server_setup_cpu_s", 0.0) + sum(servers0.values())
            JUDGING["mutants"] = JUDGING.get("mutants", 0) + len(todo)
    cm._fast_rows = wrapper  # type: ignore[assignment]


def sampled(sample, n: int | None, seed: int):
    """(predicate, why) keeping ``n`` of the sample's fine mutants, the n smallest by
    sha256(seed:id) (None: every mutant), for ``measure``'s ``keep``."""
    if n is None:
        return None
    from corpus.model import ArtifactSpec
    from corpus.operators import generate
    spec = ArtifactSpec(loop="profile", kind="python", target=sample.target,
                        content=(sample.dir / sample.target).read_bytes(), hints={"role": "code"})
    ids = sorted((m.id for m in generate(spec, "fine")),
                 key=lambda i: hashlib.sha256(f"{seed}:{i}".encode()).hexdigest())[:n]
    chosen = set(ids)
    return (lambda job: job.mutant is not None and job.mutant.id in chosen), f"not in the seeded sample of {n}"


def profile(sample_index: int = 2, workers: int = 2, n: int | None = None, seed: int = 0) -> dict:
    sample = SAMPLES[sample_index]
    _time_judging()
    _child_cpu("swap")
    _child_cpu("run")
    keep = sampled(sample, n, seed)
    _timed(fast_pytest, "materialize", "private copy of the artifact directory")
    _timed(coverage_map.CoverageMap, "select", "test selection (changed lines -> covering tests)")
    _timed(fast_pytest, "changed_function", "changed-function check (compile, compare code objects)")
    _timed(fast_pytest, "function_codes", "mutated code objects (marshal)")
    _timed(forkserver.ForkServer, "swap", "child run: swap (fork + selected tests + reply)")
    _timed(forkserver.ForkServer, "run", "child run: fork (fork + pytest.main on selected tests)")
    _timed(fast_pytest, "measure_coverage", "set-up: coverage run of the suite (once)")
    _timed(cm, "generate", "generating the mutants (libcst, once)")
    with tempfile.TemporaryDirectory(prefix="profile-") as tmp:
        art = Path(tmp) / "artifact"
        art.mkdir()
        _copy(sample, art)
        loop = Loop(id="profile", dir=Path(tmp), title=sample.name, domains=["software"], requirement="(profile)",
                    kind="python", target=sample.target, artifact_dir=art, hints={"role": "code"},
                    not_applicable=(), gate_paths=[gate_copy(sample, Path(tmp))])
        t0 = time.perf_counter()
        c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        m = measure([loop], families=("fine",), tier2=False, workers=workers, keep=keep)
        wall = time.perf_counter() - t0
        c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime for a, b in zip(c0, c1))
    judged = [r for r in m.rows if not r.is_control and r.verdict in ("accept", "reject", "incapacity")]
    by_exec: dict[str, int] = defaultdict(int)
    for r in judged:
        by_exec[r.executor] += 1
    # ForkServer.run also carries the swap's request (swap calls run): report run net of swap
    SPENT["child run: fork (fork + pytest.main on selected tests)"] -= SPENT["child run: swap (fork + selected tests + reply)"]
    CALLS["child run: fork (fork + pytest.main on selected tests)"] -= CALLS["child run: swap (fork + selected tests + reply)"]
    by_verdict: dict[str, int] = defaultdict(int)
    for r in m.rows:
        if not r.is_control:
            by_verdict[r.verdict] += 1
    return {"sample": sample.name, "wall_s": wall, "cpu_s": cpu, "workers": workers, "judged": len(judged),
            "mutants": sum(not r.is_control for r in m.rows), "verdicts": dict(by_verdict),
            "seed": seed, "n": n, "load": os.getloadavg(),
            "executors": dict(by_exec), "spent": dict(SPENT), "calls": dict(CALLS), "judging": dict(JUDGING),
            "child_cpu": dict(CHILD_CPU), "child_runs": dict(CHILD_RUNS),
            "child_wall": dict(CHILD_WALL)}


def render(p: dict) -> str:
    n = max(p["judged"], 1)
    total = sum(p["spent"].values())
    jd = p["judging"]
    k = max(jd.get("mutants", 0), 1)
    out = [f"{p['sample']}: {p['judged']} mutants judged in {p['wall_s']:.1f}s wall, {p['cpu_s']:.1f}s CPU, "
           f"{p['workers']} workers (executors: {', '.join(f'{k} {v}' for k, v in sorted(p['executors'].items()))}; "
           f"verdicts: {', '.join(f'{k} {v}' for k, v in sorted(p['verdicts'].items()))})"
           + (f"; seeded sample of {p['n']}, seed {p['seed']}" if p["n"] is not None else ""),
           f"judging phase: {jd.get('mutants', 0)} mutants, {jd.get('wall_s', 0):.1f}s wall "
           f"({1000 * jd.get('wall_s', 0) / k:.0f} ms/mutant), {jd.get('cpu_s', 0):.1f}s CPU "
           f"({1000 * jd.get('cpu_s', 0) / k:.0f} ms/mutant; servers' set-up before it "
           f"{jd.get('server_setup_cpu_s', 0):.1f}s CPU, not counted); load average at the end "
           + " ".join(f"{x:.1f}" for x in p["load"]),
           f"{'step':62} {'calls':>6} {'worker-s':>9} {'ms/mutant':>10} {'share':>6}"]
    for label, s in sorted(p["spent"].items(), key=lambda kv: -kv[1]):
        out.append(f"{label:62} {p['calls'].get(label, 0):6d} {s:9.1f} {1000 * s / n:10.1f} {s / total:6.1%}")
    out.append(f"{'children (CPU, as the fork-server reaped them; wall, as the worker waited)':62} {'runs':>6} "
               f"{'CPU-s':>9} {'ms/run':>10} {'wall-s':>9} {'ms/run':>10}")
    for kind, c in sorted(p["child_cpu"].items()):
        runs, w = p["child_runs"][kind], p["child_wall"][kind]
        out.append(f"{kind:62} {runs:6d} {c:9.2f} {1000 * c / max(runs, 1):10.1f} {w:9.1f} {1000 * w / max(runs, 1):10.0f}")
    return "\n".join(out)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.profile_mutant")
    ap.add_argument("index", nargs="?", type=int, default=2, help="SAMPLES index (2: websocket _abnf.py)")
    ap.add_argument("--sample", type=int, default=None, help="judge only N mutants (a seeded sample)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    print(render(profile(a.index, a.workers, a.sample, a.seed)))


if __name__ == "__main__":
    main(sys.argv[1:])
