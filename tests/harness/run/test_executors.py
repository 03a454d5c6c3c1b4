"""Executors: the Ray executor on a local two-node cluster (same records as the local pool, files
shipped back, a killed worker's cell re-queued with one record per key, resume), and the local
pool surviving a dead worker process."""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from harness.core.matrix import enumerate_cells
from harness.core.protocol import load_protocol
from harness.ledger.ledger import verify
from harness.run.driver import execute, prepare
from support.records import as_json
from support.scripted import copy_tasks

PROTO = """
[protocol]
name = "ex"
seed = 3
repeats = {k}
tasks_dir = "tasks"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]

[arms.A2]
[arms.A4]
"""


@pytest.fixture
def project(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    return tmp_path


def _proto(project, k=1):
    p = project / "p.toml"
    p.write_text(PROTO.format(k=k))
    return p


@pytest.fixture(scope="module")
def ray_cluster():
    from harness.run.executors import loopback_ray
    loopback_ray()  # the two nodes and the driver talk over 127.0.0.1 only
    import ray
    from ray.cluster_utils import Cluster
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
    cluster.wait_for_nodes()
    yield cluster
    ray.shutdown()
    cluster.shutdown()


def _run(project, name, k=1, **kw):
    p = _proto(project, k)
    if not (project / name / "run.json").exists():
        prepare(p, project / name, engine=None, reviewer_engine=None, model=None, exploratory=True)
    return execute(project / name, log=lambda m: None, **kw)


def _one_per_key(res, proto_path):
    keys = [r["cell_key"] for r in as_json(res.records)]
    want = {c.key for c in enumerate_cells(load_protocol(proto_path))}
    assert sorted(keys) == sorted(want) and len(keys) == len(set(keys))
    assert verify(res.run_dir / "records.jsonl") == []


def test_ray_two_nodes_match_local_and_ship_files_back(project, ray_cluster):
    import ray
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    local = _run(project, "local", workers=1, cache=False)
    rr = _run(project, "ray", executor="ray", cache=False, executor_options={"force_ship": True})
    _one_per_key(rr, project / "p.toml")
    lo = {r["cell_key"]: r["outcome"] for r in as_json(local.records)}
    assert {r["cell_key"]: r["outcome"] for r in as_json(rr.records)} == lo
    for r in as_json(rr.records):  # the worker ran in node-local scratch; the driver wrote its files here
        safe = r["cell_key"].replace("|", "__")
        ev = rr.run_dir / "cells" / f"{safe}.events.jsonl"
        assert ev.is_file() and ev.read_text().strip()
        assert (rr.run_dir / r["transcript"]).is_file()
        assert r["requeues"] == 0


def _busy_ray_workers() -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if cmd.startswith(b"ray::remote_cell"):
                out.append(int(d.name))
    return out


def test_killed_ray_worker_is_requeued_with_one_record_per_key(project, ray_cluster):
    killed = []

    def killer():
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and not killed:
            pids = _busy_ray_workers()
            if pids:
                os.kill(pids[0], signal.SIGKILL)  # a process this test's cluster started, by its id
                killed.append(pids[0])
            time.sleep(0.05)

    th = threading.Thread(target=killer)
    th.start()
    res = _run(project, "killed", executor="ray")
    th.join()
    assert killed, "no busy ray worker was found to kill"
    _one_per_key(res, project / "p.toml")
    requeues = (res.run_dir / "requeues.jsonl").read_text().splitlines()
    assert len(requeues) >= 1
    assert sum(r["requeues"] for r in as_json(res.records)) == len(requeues)


def test_resume_a_ray_run(project, ray_cluster):
    first = _run(project, "resumed", executor="ray", limit_cells=3)
    assert len(as_json(first.records)) == 3
    second = _run(project, "resumed", executor="ray")
    assert second.executed == len(enumerate_cells(load_protocol(project / "p.toml"))) - 3
    _one_per_key(second, project / "p.toml")


def test_a_ray_run_halts_at_the_spend_ceiling_booked_through_one_actor(project, ray_cluster):
    """Cells shipped to nodes that cannot see the run directory book every engine call through the
    spend actor on the driver's node (harness.ledger.spend): the run halts with its spend under the ceiling."""
    import json
    p = project / "p.toml"
    p.write_text(PROTO.format(k=1) + "\n[budget]\nmax_tokens = 8000\n")
    prepare(p, project / "ceiling", engine=None, reviewer_engine=None, model=None, exploratory=True)
    res = execute(project / "ceiling", log=lambda m: None, executor="ray", cache=False,
                  executor_options={"force_ship": True})
    state = json.loads((project / "ceiling" / "spend.json").read_text())
    assert res.exit_code == 4 and res.stopped.startswith("budget ceiling")
    assert 0 < state["spent_tokens"] <= 8000 and state["halted"] and state["calls"] >= 1
    assert sum(res.not_run.values()) == 8 - len(as_json(res.records)) and all(r["outcome"] != "void" for r in as_json(res.records))


def _pool_children() -> list[int]:
    """This process's forked pool workers (same command line; not the Ray cluster's processes)."""
    me, out = os.getpid(), []
    mine = Path(f"/proc/{me}/cmdline").read_bytes()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == me and cmd == mine:
                out.append(int(d.name))
    return out


def test_local_pool_survives_a_dead_worker(project):
    killed = []

    def killer():
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and not killed:
            kids = _pool_children()
            if kids and time.monotonic() - t0 > 1.0:
                os.kill(kids[0], signal.SIGKILL)  # one of this process's own pool workers
                killed.append(kids[0])
            time.sleep(0.05)

    th = threading.Thread(target=killer)
    th.start()
    res = _run(project, "pool", workers=2, cache=False)
    th.join()
    assert killed
    _one_per_key(res, project / "p.toml")
    assert (res.run_dir / "requeues.jsonl").read_text().strip()


def test_the_pool_is_capped_by_the_cells_to_run_and_says_what_it_used():
    """Issue 34: ``--workers 100000`` forked over 2,000 processes for a 2-cell run."""
    from harness.run.executors import capped_workers
    used, why = capped_workers(100_000, 2)
    assert used == 2 and why == "--workers 100000: using 2 (capped by 2 cell(s) to run)"
    assert capped_workers(1, 50) == (1, None)


def test_the_machine_cap_is_the_smaller_of_cores_and_memory():
    from harness.run.executors import MEMORY_PER_WORKER, WORKERS_PER_CORE, capped_workers, machine_cap
    assert machine_cap(cores=2, available=100 * MEMORY_PER_WORKER)[0] == 2 * WORKERS_PER_CORE
    cap, rule = machine_cap(cores=64, available=3 * MEMORY_PER_WORKER)
    assert cap == 3 and "64 cores" in rule and "MiB per worker" in rule
    assert machine_cap(cores=1, available=1)[0] == 1  # never below one worker
    used, why = capped_workers(100_000, 100_000)
    assert used == machine_cap()[0] and "this machine's cap" in why
