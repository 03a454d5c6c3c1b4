"""Whole cells of every arm through the real SDK clients on a loopback server; then replay offline."""
from __future__ import annotations

import json
import socket

import pytest

from harness.control.tools import TOOLS
from harness.core.engine import EngineRequest, Message, Usage
from harness.core.pricing import cell_cost
from harness.engines import EngineContext
from harness.engines.replay import ReplayEngine, ReplayMismatch
from harness.run.driver import execute, prepare
from support.loopback import OPENAI_SECRET, PLANTED, SECRET, SNAPSHOT, Loopback, files_containing
from support.records import as_json

ARMS = ["A1", "A2", "A2p", "A3", "A4"]
# Fields that may differ between a recorded run and its replay: timings, run identity and the
# chain over them, which engine produced the proposals, the live engine's wire statistics, and
# how many test verdicts the verdict cache served (execution accounting, not results), and the digests of
# the cell's signed receipts (each carries its run, its time and the run's own key; docs/receipts.md).
NOT_REPLAYED = {"wall_s", "test_exec_s", "run_id", "hash", "prev_hash", "engine", "endpoint", "limiter_wait_s",
                "engine_retries", "engine_faults", "cached_verdicts", "verdict_cache", "receipts", "receipt_key_id",
                "seal"}  # a record's seal is signed with each run's own key, as its receipts are


def run(proto, out, engine, **opts):
    prepare(proto, out, engine=engine, reviewer_engine=None, model="loopback-alias", exploratory=True,
            engine_options=opts)
    return execute(out, workers=1, log=lambda m: None)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """One recorded run per provider (every arm x median x {null, B2}), shared by the tests below."""
    import os

    from harness.core.tasks import load_task
    from support.loopback import ALL_ARMS, PROTO, TASKS
    tmp = tmp_path_factory.mktemp("live")
    saved = dict(os.environ)
    out = {}
    try:
        os.environ.update(ANTHROPIC_API_KEY=SECRET, OPENAI_API_KEY=OPENAI_SECRET, MY_SERVICE_TOKEN=PLANTED)
        tasks = [load_task(TASKS / "median")]
        for flavor in ("anthropic", "openai"):
            proto = tmp / f"{flavor}.toml"
            proto.write_text(PROTO.format(name=flavor, tasks=TASKS, tasks_list='["median"]', scenarios='["null", "B2"]',
                                          engine=flavor, arms=ALL_ARMS, max_retries=6, max_reruns=2,
                                          price_model={"anthropic": "claude-loopback-4-5", "openai": "gpt-loopback"}[flavor]))
            with Loopback(flavor, tasks) as lb:
                os.environ[f"{flavor.upper()}_BASE_URL"] = lb.url
                lb.queue("429", "529", "500", "drop", "malformed", "truncated")  # early faults, all retried
                res = run(proto, tmp / f"run-{flavor}", flavor)
                out[flavor] = (proto, res, len(lb.requests), lb.served)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return tmp, out


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_every_arm_runs_whole_cells_through_the_sdk(recorded, flavor):
    tmp, out = recorded
    proto, res, n_requests, served = out[flavor]
    assert res.exit_code == 0 and not res.still_void
    recs = as_json(res.records)
    assert sorted(r["arm"] for r in recs) == sorted(ARMS * 2)
    assert n_requests == served + 6  # each queued fault cost one extra request
    assert sum(r["engine_retries"] for r in recs) == 6
    for r in recs:
        assert r["outcome"] in ("completed", "recovered", "amplified", "safe_stop", "false_stop", "acceptance_fail")
        assert r["model_id"] == SNAPSHOT[flavor]
        assert r["engine"] == flavor and r["endpoint"].startswith("http://127.0.0.1:")
        assert r["tokens_in"] > 0 and r["tokens_out"] > 0 and r["cache_read_tokens"] > 0
        usage = {m: Usage(**u) for m, u in r["usage_by_model"].items()}
        assert r["cost_usd"] == pytest.approx(cell_cost({"claude-loopback-4-5" if flavor == "anthropic" else "gpt-loopback":
                                                         {"date": "2025-10-01", "input": 3.0, "output": 15.0,
                                                          "cache_read": 0.3, "cache_write": 3.75}}, usage)["cost_usd"])
        assert r["cost_usd"] > 0 and r["price_dates"] == ["2025-10-01"]
        assert sum(u.input_tokens for u in usage.values()) == r["tokens_in"]
        lines = [json.loads(x) for x in (res.run_dir / r["transcript"]).read_text().splitlines()]
        calls = [x for x in lines if x["kind"] == "call"]
        assert len(calls) == r["engine_calls"] > 0
        assert all(c["reply"]["model_id"] == SNAPSHOT[flavor] and c["wire"]["status"] == 200 for c in calls)
        if r["arm"] in ("A3", "A4") and r["attempts"] and r["stop_reason"] not in ("retries_exhausted",):
            assert any(c["role"] == "reviewer" for c in calls) or r["visible_pass"] is False
    assert {r["outcome"] for r in recs if r["scenario"] == "B2" and r["arm"] == "A4"} <= {"recovered", "safe_stop"}
    assert any(r["budget_bound"] is None for r in recs)
    # keys never reach the run directory (records, transcripts, event logs, run.json)
    for s in (SECRET, OPENAI_SECRET, PLANTED):
        assert files_containing(res.run_dir, s) == []


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_replay_with_the_network_disabled_gives_identical_records(recorded, flavor, monkeypatch, tmp_path):
    tmp, out = recorded
    proto, res, _, _ = out[flavor]

    def no_network(self, *a, **k):
        raise AssertionError("network used during replay")
    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    again = run(proto, tmp_path / "replayed", "replay", replay_from=str(res.run_dir))
    assert again.exit_code == 0
    a = {r["cell_key"]: r for r in as_json(res.records)}
    b = {r["cell_key"]: r for r in as_json(again.records)}
    assert a.keys() == b.keys()
    for k in a:
        ra = {f: v for f, v in a[k].items() if f not in NOT_REPLAYED and f != "transcript"}
        rb = {f: v for f, v in b[k].items() if f not in NOT_REPLAYED and f != "transcript"}
        assert ra == rb, k
        assert b[k]["engine"] == "replay"


def test_a_request_that_differs_from_the_transcript_names_the_turn(recorded, tasks):
    tmp, out = recorded
    _, res, _, _ = out["openai"]
    rec = next(r for r in as_json(res.records) if r["arm"] == "A1")
    eng = ReplayEngine(EngineContext("worker", tasks[0], {}, "s", options={"replay_from": str(res.run_dir),
                                                                            "cell_key": rec["cell_key"]}))
    first = json.loads((res.run_dir / rec["transcript"]).read_text().splitlines()[1])
    msgs = [Message(m["role"], m["content"]) for m in first["request"]["messages"]]
    ok = eng.complete(EngineRequest("worker", first["request"]["system"], msgs, TOOLS, first["request"]["max_tokens"]))
    assert ok.model_id == SNAPSHOT["openai"]
    with pytest.raises(ReplayMismatch, match=r"worker turn 2 .*messages"):
        eng.complete(EngineRequest("worker", first["request"]["system"], msgs + [Message("user", "something else")],
                                   TOOLS, first["request"]["max_tokens"]))
