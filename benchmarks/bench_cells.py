"""Cells: per-cell harness overhead, the powered design's throughput (1 and 2 workers, with and
without the verdict cache), the Ray executor on a local two-node cluster against the local pool,
and the share of a test execution that is interpreter + pytest start-up.

The design is ``protocols/powered-ablation.toml`` when it exists, else an exploratory protocol
generated over every task in tasks/ (5 arms x tasks x null+B1..B15 x k=5, A1 not applicable to
B4/B5/B10: 9,240 cells for 24 tasks). A bench run executes a sample: the first N cells of the
design's seeded run order (whole matched units, as a real run starts) and extrapolates the full
design's wall time from the measured rate; the notes say so. With a cold cache the sample is
the worst case for the cache: the hit rate rises as the run goes on.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POWERED = ROOT / "protocols" / "powered-ablation.toml"
SCENARIOS = ["null"] + [f"B{i}" for i in range(1, 16)]


def _design(tmp: Path, tasks: list[str] | None = None, scenarios: list[str] | None = None,
            name: str = "bench-powered.toml") -> Path:
    if POWERED.is_file() and tasks is None:
        return POWERED
    tasks = tasks or sorted(p.name for p in (ROOT / "tasks").iterdir() if (p / "task.toml").is_file())
    text = f"""[protocol]
name = "bench-powered"
description = "bench: the powered design's shape over every task in tasks/ (exploratory)"
seed = 20261202
repeats = 5
tasks_dir = "{(ROOT / 'tasks').as_posix()}"
tasks = {json.dumps(tasks)}
scenarios = {json.dumps(scenarios or SCENARIOS)}
engine = "simulated"

[arms.A1]
controller = "A1"
[arms.A2]
controller = "A2"
retries = 3
[arms.A2p]
controller = "A2p"
retries = 3
token_budget = 5000
wall_budget_s = 120.0
[arms.A3]
controller = "A3"
retries = 3
[arms.A4]
controller = "A4"
attempts = 3
review_rounds = 2
reflection = true

[applicability]
A1 = {{ exclude = {json.dumps([x for x in ("B4", "B5", "B10") if x in (scenarios or SCENARIOS)])} }}

[limits]
test_timeout_s = 60
memory_mb = 2048
max_turns = 12
max_tokens = 4096

[rerun]
max_reruns = 2
"""
    p = tmp / name
    p.write_text(text)
    return p


def _run(proto: Path, out: Path, n: int, **kw) -> dict:
    from harness.run.driver import execute, prepare
    prepare(proto, out, engine=None, reviewer_engine=None, model=None, exploratory=True)
    t0 = time.perf_counter()
    res = execute(out, log=lambda m: None, limit_cells=n, progress_stream=open(os.devnull, "w"), **kw)
    wall = time.perf_counter() - t0
    recs = res.records
    return {"wall": wall, "n": len(recs), "cell_s": sum(r.wall_s for r in recs),
            "test_s": sum(r.test_exec_s or 0 for r in recs), "runs": sum(r.test_runs or 0 for r in recs),
            "cached": sum(r.cached_verdicts or 0 for r in recs),
            "voids": sum(not r.scored for r in recs), "requeues": sum(r.extra.get("requeues", 0) for r in recs),
            "outcomes": sorted((r.cell_key, r.outcome.value) for r in recs)}


def _startup_share(n: int) -> dict:
    """Mean wall of `python -I -c 'import pytest'` vs a real harness test execution."""
    from harness.core.tasks import load_task
    from harness.judge.testrun import run_pytest
    task = load_task(ROOT / "tasks" / "median")
    hide = (ROOT / "tasks",)
    execs, starts = [], []
    for _ in range(n):
        execs.append(run_pytest(task.root / "workspace", task.acceptance, dest_rel=task.acceptance_dest, hide=hide).wall_s)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "import pytest"], check=True)
        starts.append(time.perf_counter() - t0)
    return {"exec": sum(execs) / n, "start": sum(starts) / n}


def _warm_vs_cold(proto: Path, tmp: Path, runs: int, cells: int) -> list[dict]:
    """harness.sandbox.warm against the cold path: one test execution (median task, alternating so load
    hits both alike) and whole uncached cells (same first-N cells, 1 worker)."""
    from harness.core.tasks import load_task
    from harness.judge.testrun import run_pytest
    from harness.sandbox import warm
    task = load_task(ROOT / "tasks" / "median")
    hide = (ROOT / "tasks",)
    walls: dict[str, list[float]] = {"0": [], "1": []}
    old = os.environ.get("HARNESS_WARM")
    try:
        for mode in ("1", "0"):  # start the zygote outside the timed runs (once per harness process)
            os.environ["HARNESS_WARM"] = mode
            run_pytest(task.root / "workspace", task.acceptance, dest_rel=task.acceptance_dest, hide=hide)
        for _ in range(runs):
            for mode in ("0", "1"):
                os.environ["HARNESS_WARM"] = mode
                t0 = time.perf_counter()
                run_pytest(task.root / "workspace", task.acceptance, dest_rel=task.acceptance_dest, hide=hide)
                walls[mode].append(time.perf_counter() - t0)
        cell = {}
        for mode in ("0", "1"):
            os.environ["HARNESS_WARM"] = mode
            cell[mode] = _run(proto, tmp / f"warm{mode}", cells, workers=1, cache=False)
    finally:
        if old is None:
            os.environ.pop("HARNESS_WARM", None)
        else:
            os.environ["HARNESS_WARM"] = old
    cold_t, warm_t = sum(walls["0"]) / runs, sum(walls["1"]) / runs
    c, w = cell["0"], cell["1"]
    same = "outcomes identical" if c["outcomes"] == w["outcomes"] else "OUTCOMES DIFFER"
    used = "warm path used" if warm.enabled() and warm.STATS["fallback"] == 0 else "WARM FELL BACK TO COLD"
    return [{"name": "warm vs cold: one test execution", "baseline": "cold (python -I -m pytest per run)",
             "baseline_s": cold_t, "subject": "warm (zygote fork per run)", "subject_s": warm_t,
             "ratio": cold_t / warm_t, "unit": "x faster (mean of run_pytest wall)",
             "notes": f"median task acceptance, {runs} runs each, alternating; {used}"},
            {"name": "warm vs cold: per cell (uncached, 1 worker)", "baseline": "cold mean cell wall",
             "baseline_s": c["cell_s"] / c["n"], "subject": "warm mean cell wall", "subject_s": w["cell_s"] / w["n"],
             "ratio": (c["cell_s"] / c["n"]) / (w["cell_s"] / w["n"]), "unit": "x faster",
             "notes": f"{c['n']} cells, {c['runs']} / {w['runs']} test executions; overhead cold "
                      f"{c['cell_s'] / c['test_s']:.2f}x, warm {w['cell_s'] / w['test_s']:.2f}x of own test time; {same}"}]


def _ray_two_nodes():
    """A two-node Ray cluster on this machine, one CPU per node (ray.cluster_utils), on 127.0.0.1."""
    from harness.run.executors import loopback_ray
    loopback_ray()
    import ray
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    cluster.wait_for_nodes()
    return cluster


def run(quick: bool = False) -> list[dict]:
    from harness.core.matrix import enumerate_cells
    from harness.core.protocol import load_protocol
    n = 10 if quick else 60
    rows = []
    with tempfile.TemporaryDirectory(prefix="hx-bench-cells-") as tmp:
        tmp = Path(tmp)
        proto = _design(tmp)
        total = len(enumerate_cells(load_protocol(proto)))
        src = "protocols/powered-ablation.toml" if proto == POWERED else "generated over tasks/ (exploratory)"
        u1 = _run(proto, tmp / "u1", n, workers=1, cache=False)
        u2 = _run(proto, tmp / "u2", n, workers=2, cache=False)
        c1 = _run(proto, tmp / "c1", n, workers=1, cache=True)
        c2 = _run(proto, tmp / "c2", n, workers=2, cache=True)
        rows += _sample_rows(u1, u2, c1, c2, n, total, src)
        rows.append(_group_row(tmp, quick, u2, total))
        s = _startup_share(3 if quick else 10)
        rows.append({"name": "start-up share of a test execution", "baseline": "harness test execution (median task)",
                     "baseline_s": s["exec"], "subject": "python -I -c 'import pytest'", "subject_s": s["start"],
                     "ratio": s["start"] / s["exec"], "unit": "fraction of an uncached execution",
                     "notes": "what warm (pre-imported, fork-per-run) execution could save per cache miss"})
        rows += _warm_vs_cold(proto, tmp, 5 if quick else 20, n)
        rows += _ray_rows(proto, tmp, n, u2)
    return rows


def _projected_min(total: int, r: dict) -> float:
    """Minutes the whole design of ``total`` cells would take at run ``r``'s rate."""
    return total / (r["n"] / r["wall"]) / 60


def _sample_rows(u1: dict, u2: dict, c1: dict, c2: dict, n: int, total: int, src: str) -> list[dict]:
    """The first-N sample: per-cell overhead, 2 workers vs 1, and the verdict cache on 1 and 2 workers."""
    same = "outcomes identical" if u1["outcomes"] == u2["outcomes"] == c1["outcomes"] == c2["outcomes"] \
        else "OUTCOMES DIFFER between runs"

    def proj(r):
        return _projected_min(total, r)

    rows = []
    rows.append({"name": "per-cell overhead (uncached, 1 worker)", "baseline": "summed test-subprocess wall",
                 "baseline_s": u1["test_s"], "subject": "summed cell wall", "subject_s": u1["cell_s"],
                 "ratio": u1["cell_s"] / u1["test_s"], "unit": "x (target <= 1.25)",
                 "notes": f"{u1['n']} cells, {u1['runs']} test executions, design {src}"})
    rows.append({"name": "powered design: 2 workers vs 1 (uncached)", "baseline": f"1 worker {u1['n'] / u1['wall']:.2f} cells/s",
                 "baseline_s": u1["wall"], "subject": f"2 workers {u2['n'] / u2['wall']:.2f} cells/s",
                 "subject_s": u2["wall"], "ratio": u1["wall"] / u2["wall"], "unit": "x throughput",
                 "notes": f"sample of {n}/{total} cells; projected full design: {proj(u1):.0f} min (1w), "
                          f"{proj(u2):.0f} min (2w); {same}"})
    rows.append({"name": "verdict cache, 1 worker (cold cache)", "baseline": f"uncached {u1['n'] / u1['wall']:.2f} cells/s",
                 "baseline_s": u1["wall"], "subject": f"cached {c1['n'] / c1['wall']:.2f} cells/s",
                 "subject_s": c1["wall"], "ratio": u1["wall"] / c1["wall"], "unit": "x throughput",
                 "notes": f"{c1['cached']}/{c1['runs']} verdicts from the cache; projected full design "
                          f"{proj(c1):.1f} min; {same}"})
    rows.append({"name": "verdict cache, 2 workers (cold cache)", "baseline": f"uncached 2w {u2['n'] / u2['wall']:.2f} cells/s",
                 "baseline_s": u2["wall"], "subject": f"cached 2w {c2['n'] / c2['wall']:.2f} cells/s",
                 "subject_s": c2["wall"], "ratio": u2["wall"] / c2["wall"], "unit": "x throughput",
                 "notes": f"{c2['cached']}/{c2['runs']} verdicts cached; PROJECTED full design ({total} cells) "
                          f"{proj(c2):.1f} min on 2 workers (target <= 20; extrapolated from a {n}-cell sample)"})
    return rows


def _group_row(tmp: Path, quick: bool, u2: dict, total: int) -> dict:
    """The verdict cache over whole (task, scenario) groups (every arm x every repeat), seeded: the
    cache's reuse within a group is what the full design sees, so this extrapolates better than the
    first N cells."""
    import random

    from harness.core.matrix import enumerate_cells
    from harness.core.protocol import load_protocol
    rng = random.Random(7)
    all_tasks = sorted(p.name for p in (ROOT / "tasks").iterdir() if (p / "task.toml").is_file())
    gt, gs = rng.sample(all_tasks, 1 if quick else 2), rng.sample(SCENARIOS, 2)
    gproto = _design(tmp, gt, gs, "bench-groups.toml")
    gcells = len(enumerate_cells(load_protocol(gproto)))
    g2 = _run(gproto, tmp / "g2", None, workers=2, cache=True)
    return {"name": "verdict cache, 2 workers, whole matched groups", "baseline": "uncached 2w (first-N sample rate)",
            "baseline_s": gcells / (u2["n"] / u2["wall"]), "subject": f"cached 2w {g2['n'] / g2['wall']:.2f} cells/s",
            "subject_s": g2["wall"], "ratio": (gcells / (u2["n"] / u2["wall"])) / g2["wall"],
            "unit": "x throughput",
            "notes": f"tasks {gt} x scenarios {gs}: {gcells} cells, {g2['cached']}/{g2['runs']} verdicts cached; "
                     f"PROJECTED full design ({total} cells) {_projected_min(total, g2):.1f} min on 2 workers "
                     f"(target <= 20; extrapolated from {len(gt) * len(gs)} whole groups)"}


def _ray_rows(proto: Path, tmp: Path, n: int, u2: dict) -> list[dict]:
    """Ray on a local two-node cluster against the local pool (none without the ray extra)."""
    try:
        import ray  # noqa: F401
    except ModuleNotFoundError:
        return []
    cluster = _ray_two_nodes()
    try:
        from harness.run.executors import RayExecutor
        RayExecutor()  # attach to the cluster ray.init joined
        r2 = _run(proto, tmp / "r2", n, executor="ray", cache=False)
    finally:
        import ray
        ray.shutdown()
        cluster.shutdown()
    same_r = "outcomes identical" if r2["outcomes"] == u2["outcomes"] else "OUTCOMES DIFFER"
    return [{"name": "ray: local 2-node cluster vs local pool (uncached)",
             "baseline": f"local pool 2w {u2['n'] / u2['wall']:.2f} cells/s", "baseline_s": u2["wall"],
             "subject": f"ray 2 nodes x 1 CPU {r2['n'] / r2['wall']:.2f} cells/s", "subject_s": r2["wall"],
             "ratio": u2["wall"] / r2["wall"], "unit": "x throughput (target >= 0.8)",
             "notes": f"same {n} cells, same 2 CPUs; {same_r}; requeues {r2['requeues']}; cluster start-up excluded"}]
