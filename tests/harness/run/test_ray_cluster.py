"""Joining a Ray cluster someone else started (harness.run.ray_cluster).

First the checks one by one (address, credentials, versions, a node's corpus), then the real
thing: a head and a worker node started with the ``ray`` CLI and token authentication, on
127.0.0.1 inside a network namespace that holds only loopback (tests/support/ray_start.py). Every
refusal is one line and exit 2 with no record written; the quickstart through ``--address`` gives
the local pool's outcome on every cell key (the pins test_pinned_outcomes.py holds the local pool
to); a worker node killed mid-run, then the driver killed too, ends after ``--resume`` with one
record per key; and no Ray process outlives the cluster.
"""
from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.cli.cli import main as cli
from harness.core.errors import InputError
from harness.ledger.ledger import verify
from harness.run import ray_cluster
from support import ray_start
from support.ray_start import BIN
from support.scripted import REPO, copy_tasks

PINNED = json.loads((REPO / "tests" / "fixtures" / "pinned_outcomes.json").read_text())["quickstart"]
FIELDS = ("outcome", "visible_pass", "hidden_pass", "shipped", "stop_reason", "attempts", "review_rounds")
QUICKSTART = REPO / "protocols" / "quickstart.toml"
HARNESS = str(Path(sys.executable).parent / "harness")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- the address ---------------------------------------------------------------------------------
def test_address_comes_from_the_flag_else_RAY_ADDRESS_else_a_local_instance():
    env = {"RAY_ADDRESS": "10.0.0.5:6379"}
    assert ray_cluster.resolve_address("127.0.0.1:7000", env) == ray_cluster.Address("127.0.0.1:7000", "--address",
                                                                                        "127.0.0.1", 7000)
    assert ray_cluster.resolve_address(None, env) == ray_cluster.Address("10.0.0.5:6379", "RAY_ADDRESS", "10.0.0.5", 6379)
    assert ray_cluster.resolve_address(None, {}) is None
    assert ray_cluster.resolve_address(None, {"RAY_ADDRESS": " "}) is None
    assert ray_cluster.resolve_address("auto", {}).host is None


@pytest.mark.parametrize("address,loopback", [("127.0.0.1:6379", True), ("localhost:6379", True),
                                              ("[::1]:6379", True), ("127.0.0.2:6379", True),
                                              ("10.0.0.5:6379", False), ("head.example:6379", False)])
def test_a_loopback_address_is_recognised(address, loopback):
    assert ray_cluster.resolve_address(address, {}).loopback is loopback


@pytest.mark.parametrize("address", ["10.0.0.5", "10.0.0.5:http", ":6379", "10.0.0.5:0", "10.0.0.5:70000",
                                     "ray://10.0.0.5:10001"])
def test_a_malformed_address_names_where_it_came_from(address):
    with pytest.raises(InputError) as e:
        ray_cluster.resolve_address(None, {"RAY_ADDRESS": address})
    assert "RAY_ADDRESS" in str(e.value) and address in str(e.value)


def test_an_unreachable_address_fails_fast():
    port = _closed_port()
    t0 = time.monotonic()
    with pytest.raises(InputError, match=f"nothing answers at 127.0.0.1:{port}"):
        ray_cluster.check_reachable(ray_cluster.resolve_address(f"127.0.0.1:{port}", {}))
    assert time.monotonic() - t0 < ray_cluster.CONNECT_TIMEOUT_S


@pytest.mark.parametrize("via_env", [False, True])
def test_cli_unreachable_address_is_one_line_and_exit_2_before_any_cell(tmp_path, monkeypatch, via_env):
    port = _closed_port()
    args = ["run", str(QUICKSTART), "--out", str(tmp_path / "run"), "--executor", "ray"]
    if via_env:
        monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    else:
        monkeypatch.delenv("RAY_ADDRESS", raising=False)
        args += ["--address", f"127.0.0.1:{port}"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2
    assert r.stderr.strip() == (f"error: ray cluster 127.0.0.1:{port}: {'RAY_ADDRESS' if via_env else '--address'}: "
                                f"nothing answers at 127.0.0.1:{port} (Connection refused): start the head there "
                                f"with `ray start --head --port {port}` or give the address it printed")
    assert not (tmp_path / "run" / "records.jsonl").exists()


def test_cli_address_without_the_ray_executor_is_a_usage_error(tmp_path):
    r = CliRunner().invoke(cli, ["run", str(QUICKSTART), "--out", str(tmp_path / "r"), "--address", "127.0.0.1:6379"])
    assert r.exit_code == 2 and "add --executor ray" in r.stderr
    assert not (tmp_path / "r").exists()


# ---- credentials and versions --------------------------------------------------------------------
def test_token_problems_before_anything_is_sent(tmp_path):
    yes, no = (lambda: True), (lambda: False)

    def never():
        raise AssertionError("Ray's token loader must not be asked: it fails on an unreadable path")

    assert ray_cluster.token_problem(False, never, {}) is None  # not in token mode: nothing to check
    assert ray_cluster.token_problem(True, yes, {}) is None
    missing = ray_cluster.token_problem(True, no, {})
    assert "RAY_AUTH_MODE=token but the driver has no token" in missing and "auth_token" in missing
    empty = tmp_path / "tok"
    empty.write_text("\n")
    assert "is empty" in ray_cluster.token_problem(True, never, {"RAY_AUTH_TOKEN_PATH": str(empty)})
    gone = tmp_path / "nope"
    assert "cannot be read" in ray_cluster.token_problem(True, never, {"RAY_AUTH_TOKEN_PATH": str(gone)})
    # RAY_AUTH_TOKEN wins over the path (Ray's precedence): the path is not read then
    assert ray_cluster.token_problem(True, yes, {"RAY_AUTH_TOKEN": "x", "RAY_AUTH_TOKEN_PATH": str(gone)}) is None


def test_a_refused_driver_is_told_the_cause_and_the_fix():
    off = ray_cluster.refused_credentials(False, {})
    assert "export RAY_AUTH_MODE=token" in off and "~/.ray/auth_token" in off and "RAY_AUTH_TOKEN" in off
    wrong = ray_cluster.refused_credentials(True, {"RAY_AUTH_TOKEN": "abc"})
    assert "not the head's token" in wrong and "read from the RAY_AUTH_TOKEN variable" in wrong
    assert "abc" not in wrong  # the token itself is never printed
    assert "read from RAY_AUTH_TOKEN_PATH=/t" in ray_cluster.refused_credentials(True, {"RAY_AUTH_TOKEN_PATH": "/t"})


@pytest.mark.parametrize("cluster,level,ok", [
    ({"ray_version": "2.60.0", "python_version": "3.11.7"}, "patch", True),
    ({"ray_version": "2.59.0", "python_version": "3.11.7"}, "patch", False),
    ({"ray_version": "2.60.0", "python_version": "3.11.9"}, "patch", False),  # Ray's default: patch must match
    ({"ray_version": "2.60.0", "python_version": "3.11.9"}, "minor", True),
    ({"ray_version": "2.60.0", "python_version": "3.12.1"}, "minor", False),
    ({}, "patch", True),  # a cluster that publishes no versions: Ray itself decides
])
def test_versions_must_match_as_ray_requires(cluster, level, ok):
    why = ray_cluster.version_problem(cluster, "2.60.0", "3.11.7", level)
    assert (why is None) is ok
    if not ok:
        assert f"the cluster runs Ray {cluster['ray_version']} on Python {cluster['python_version']}" in why
        assert "this driver has Ray 2.60.0 on Python 3.11.7" in why


# ---- a node's corpus -------------------------------------------------------------------------------
def _lock_files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_node_report_hashes_every_file_the_lock_names(tmp_path):
    copy_tasks(tmp_path, ("median",))
    tasks = tmp_path / "tasks"
    files = _lock_files(tasks)
    rep = ray_cluster.node_report(str(tasks), files)
    assert rep["missing"] == [] and rep["differ"] == []
    (tasks / "median" / "oracle" / "test_oracle.py").write_text("# changed\n")
    (tasks / "scenarios.toml").unlink()
    rep = ray_cluster.node_report(str(tasks), files)
    assert rep["missing"] == ["scenarios.toml"] and rep["differ"] == ["median/oracle/test_oracle.py"]
    assert ray_cluster.node_report(str(tmp_path / "elsewhere"), files)["missing"] == sorted(files)


def test_report_problem_names_what_differs_first_versions_then_corpus_then_harness():
    driver = {"ray": "2.60.0", "python": "3.11.7", "harness": "h"}
    good = {**driver, "host": "n1", "missing": [], "differ": []}
    assert ray_cluster.report_problem(good, "/c", 10, driver) is None
    assert "runs Ray 2.59.0" in ray_cluster.report_problem({**good, "ray": "2.59.0"}, "/c", 10, driver)
    assert "on Python 3.11.9" in ray_cluster.report_problem({**good, "python": "3.11.9"}, "/c", 10, driver)
    assert ray_cluster.report_problem({**good, "python": "3.11.9"}, "/c", 10, driver, "minor") is None
    why = ray_cluster.report_problem({**good, "missing": ["a/x", "b/y"], "differ": ["c"]}, "/c", 10, driver)
    assert why.startswith("lacks 2 of the 10 task-corpus files the lock names under /c (first: a/x)")
    assert "sha256 differs from the lock (first: c)" in ray_cluster.report_problem({**good, "differ": ["c"]}, "/c", 10,
                                                                                     driver)
    assert "different harness" in ray_cluster.report_problem({**good, "harness": "other"}, "/c", 10, driver)


# ---- a cluster started with `ray start` ---------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    why = ray_start.unavailable()
    if why:
        pytest.skip(why)
    c = ray_start.RayStartCluster()
    try:
        c.start_head(num_cpus=1)
        c.start_worker("w1", num_cpus=1)
        yield c
    finally:
        left = c.stop()
        assert left == [], f"processes outlived the cluster: {left}"


def _one_line_refusal(r: subprocess.CompletedProcess, *phrases: str) -> str:
    err = r.stderr.strip()
    assert r.returncode == 2, (r.returncode, err[-3000:])
    assert len(err.splitlines()) == 1 and err.startswith("error: ray cluster "), err[-3000:]
    for p in phrases:
        assert p in err, err
    return err


def _alt_corpus(tmp_path: Path, name: str) -> Path:
    """The quickstart over its own copy of the corpus (frozen), so one node can be shown another."""
    root = tmp_path / name
    root.mkdir()
    copy_tasks(root, ("parse-range", "median", "text-stats"))
    proto = root / "quickstart.toml"
    proto.write_text(QUICKSTART.read_text().replace('tasks_dir = "../tasks"', 'tasks_dir = "tasks"'))
    subprocess.run([HARNESS, "protocol", "freeze", str(proto)], check=True, capture_output=True)
    return proto


def test_every_refusal_is_one_line_and_exit_2_before_any_cell(cluster, tmp_path):
    missing, differ = _alt_corpus(tmp_path, "missing"), _alt_corpus(tmp_path, "differ")
    # the worker node sees an empty directory at the first corpus's path, and at the second a copy
    # with one oracle byte changed; the head and the driver see the frozen corpus
    cluster.in_worker_mounts("w1", ["mount", "-t", "tmpfs", "tmpfs", str(missing.parent / "tasks")])
    d = differ.parent / "tasks"
    cluster.in_worker_mounts("w1", ["sh", "-c", f"cp -a {d} {tmp_path}/copy && mount -t tmpfs tmpfs {d} && "
                                    f"cp -a {tmp_path}/copy/. {d}/ && echo '#' >> {d}/median/oracle/test_oracle.py"])
    n_locked = len(json.loads(missing.with_suffix(".lock.json").read_text())["files"])

    def harness(proto, out, env=None, address=True, wrap=()):
        argv = [*wrap, HARNESS, "run", str(proto), "--out", str(tmp_path / out), "--executor", "ray"]
        argv += ["--address", cluster.address] if address else []
        return cluster.popen(argv, env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def check(cases):
        for name, (proc, phrases) in cases.items():
            out, err = proc.communicate(timeout=240)
            _one_line_refusal(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), *phrases)

    # the cluster is up as docs/how-to/run-on-ray.md says to check it, and each node is checked before any cell
    status = cluster.popen([str(BIN / "ray"), "status"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check({
        "not-a-node": (harness(QUICKSTART, "o1", wrap=("unshare", "--pid", "--fork", "--mount-proc")),
                       ["this machine runs no node of the cluster (2 node(s) alive elsewhere)"]),
        "corpus-missing": (harness(missing, "o2"),
                           [f"lacks {n_locked} of the {n_locked} task-corpus files the lock names under "
                            f"{missing.parent / 'tasks'}", "every node needs the corpus at the driver's path"]),
        "corpus-differs": (harness(differ, "o3"),
                           [f"holds 1 task-corpus file(s) under {d} whose sha256 differs from the lock "
                            "(first: median/oracle/test_oracle.py)"]),
    })
    assert status.communicate(timeout=120)[0].count(" node_") == 2  # `ray status`: two active nodes
    # the head publishes another Ray version; credentials are checked before versions
    ours = cluster.set_published_ray_version("2.0.0")
    try:
        check({
            "no-auth-mode": (harness(QUICKSTART, "o4", {"RAY_AUTH_MODE": None, "RAY_ADDRESS": cluster.address},
                                     address=False),
                             ["RAY_ADDRESS: the cluster refused the driver's credentials",
                              "export RAY_AUTH_MODE=token", f"here: {cluster.home}/.ray/auth_token"]),
            "wrong-token": (harness(QUICKSTART, "o5", {"RAY_AUTH_TOKEN": "0" * 64}),
                            ["--address: the cluster refused the driver's token (read from the RAY_AUTH_TOKEN "
                             "variable)"]),
            "no-token": (harness(QUICKSTART, "o6", {"HOME": str(tmp_path / "nohome")}),
                         [f"RAY_AUTH_MODE=token but the driver has no token: copy the head's token to "
                          f"{tmp_path}/nohome/.ray/auth_token"]),
            "version": (harness(QUICKSTART, "o7"),
                        ["the cluster runs Ray 2.0.0 on Python", f"this driver has Ray {ours}"]),
        })
    finally:
        cluster.set_published_ray_version(ours)
    for o in ("o1", "o2", "o3", "o4", "o5", "o6", "o7"):  # no cell was dispatched, no record written
        assert not (tmp_path / o / "records.jsonl").exists()


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _running_a_cell(pids: list[int]) -> bool:
    """A Ray worker process among pids is running a cell (Ray names it after the task)."""
    for p in pids:
        try:
            if Path(f"/proc/{p}/cmdline").read_bytes().startswith(b"ray::remote_cell"):
                return True
        except OSError:
            pass
    return False


def _wait_for(pred, proc, timeout, what):
    deadline = time.monotonic() + timeout
    while not pred():
        assert proc.poll() is None, f"the driver exited ({proc.returncode}) before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def test_quickstart_through_address_matches_the_local_pool_and_survives_a_node_kill(cluster, tmp_path):
    cluster.outward_address(True)  # as on a host with a real interface: 127.0.0.1 must stay 127.0.0.1
    run = tmp_path / "run"
    argv = [HARNESS, "run", str(QUICKSTART), "--out", str(run), "--executor", "ray", "--address", cluster.address]
    driver = cluster.popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    records, requeues = run / "records.jsonl", run / "requeues.jsonl"
    try:
        _wait_for(lambda: len(_lines(records)) >= 6 and _running_a_cell(cluster.worker_pids("w1")), driver, 240,
                  "6 records and a cell running on the worker node")
        assert cluster.kill_worker("w1") > 0  # the worker node dies mid-run, its cells in flight with it
        _wait_for(lambda: _lines(requeues), driver, 120, "a re-queue")
        at = len(_lines(records))
        _wait_for(lambda: len(_lines(records)) >= at + 3, driver, 120, "3 more records on the head alone")
        harness_pid = int(Path(f"/proc/{driver.pid}/task/{driver.pid}/children").read_text().split()[0])
        os.kill(harness_pid, signal.SIGKILL)  # then the driver itself (this test's own process, by id)
        _, err = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
    killed_at = len(_lines(records))
    assert killed_at < len(PINNED), "the run ended before the driver could be killed mid-run"
    assert f"the cluster at {cluster.address} (2 node(s), 2 CPUs, token auth" in err
    assert "re-queued" in err and "192.0.2.1" not in err

    # resume through RAY_ADDRESS this time (no --address)
    resumed = cluster.run([HARNESS, "run", "--resume", str(run), "--executor", "ray"], {"RAY_ADDRESS": cluster.address})
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    assert f"{killed_at} cells already recorded, {len(PINNED) - killed_at} to run" in resumed.stderr
    assert f"executor=ray: the cluster at {cluster.address}" in resumed.stderr

    recs = [json.loads(line) for line in _lines(records)]
    keys = [r["cell_key"] for r in recs]
    assert sorted(keys) == sorted(PINNED) and len(keys) == len(set(keys))  # one record per key
    assert verify(records) == []
    got = {r["cell_key"]: {k: r[k] for k in FIELDS} for r in recs}
    diff = {k: (PINNED[k], got[k]) for k in PINNED if got[k] != PINNED[k]}
    assert not diff, f"{len(diff)} cells differ from the local pool: {dict(list(diff.items())[:3])}"
    lost = [json.loads(line) for line in _lines(requeues)]
    assert lost and all(q["reason"].startswith("ray worker lost") and q["cell_key"] in got for q in lost)
    assert sum(r["requeues"] for r in recs) <= len(lost)
