"""The run-wide spend ceiling ([budget], harness.ledger.spend) against a loopback provider through the real
OpenAI SDK: the run halts at the ceiling with its spend at or below it, its unrun cells are not run
(never void, never scored), and `--resume --raise-budget-usd` continues it."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from support.loopback import OPENAI_SECRET, Loopback
from tests.harness.engines.test_cli_runs import write_proto
from tests.harness.engines.test_wire import live, worker_request  # noqa: F401 - the live-engine fixture

BUDGET = "\n[budget]\nmax_usd = 0.005\n"


def harness(*args, env_extra=None):
    """`harness run ARGS` in this process (a subprocess would pay the imports on every call)."""
    res = CliRunner().invoke(main, ["run", *args], env={"OPENAI_API_KEY": OPENAI_SECRET,
                                                                         **(env_extra or {})})
    res.returncode = res.exit_code
    if res.exception and not isinstance(res.exception, SystemExit):
        raise res.exception
    return res


def _rows(run):
    return [json.loads(line) for line in (run / "spend.jsonl").read_text().splitlines()]


def test_a_tiny_max_usd_halts_at_the_ceiling_and_a_raised_ceiling_resumes(tmp_path, tasks):
    out = tmp_path / "run"
    proto = write_proto(tmp_path, "openai", arms=("A1", "A2"), extra=BUDGET)
    with Loopback("openai", tasks) as lb:
        p = harness(str(proto), "--out", str(out), "--model", "gpt-loopback", "--exploratory",
                    env_extra={"OPENAI_BASE_URL": lb.url})
        served = len(lb.requests)
    assert p.returncode == 4, p.stderr
    assert "STOPPED: budget ceiling" in p.stderr and "Traceback" not in p.stderr
    assert "NOT RUN:" in p.stderr
    state = json.loads((out / "spend.json").read_text())
    assert 0 < state["spent_usd"] <= 0.005 and state["overrun_usd"] == 0  # never borrowed past the ceiling
    assert state["halted"] and state["refused"] >= 1
    rows = [r for r in _rows(out) if r.get("event") == "call"]
    assert sum(r["spent"] for r in rows) == served == state["calls"]  # one row per call the provider served
    assert any(r["spent"] is False for r in rows)  # the refused call: its attempt was not spent
    assert any(r.get("clamped") for r in rows)  # a call before it was clamped to what was left
    assert sum(r["usd"] for r in rows if r["spent"]) <= 0.005
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()] \
        if (out / "records.jsonl").exists() else []
    assert all(r["outcome"] != "void" for r in records)  # the halted cell is unrun, not void
    assert not (out / "voids.jsonl").exists()
    stop = json.loads((out / "stops.jsonl").read_text().splitlines()[-1])
    assert sum(stop["not_run"].values()) == 2 - len(records)

    with Loopback("openai", tasks) as lb:  # the ceiling still holds: nothing more is spent
        p = harness("--resume", str(out), env_extra={"OPENAI_BASE_URL": lb.url})
        assert p.returncode == 4 and not lb.requests, p.stderr
    p = harness("--resume", str(out), "--raise-budget-usd", "0.004")
    assert p.returncode == 2 and "expected a ceiling above the one in force" in p.stderr
    with Loopback("openai", tasks) as lb:
        p = harness("--resume", str(out), "--raise-budget-usd", "5", env_extra={"OPENAI_BASE_URL": lb.url})
    assert p.returncode == 0, p.stderr
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert sorted(r["arm"] for r in records) == ["A1", "A2"] and all(r["outcome"] != "void" for r in records)
    state = json.loads((out / "spend.json").read_text())
    assert [c["max_usd"] for c in state["ceilings"]] == [0.005, 5.0]  # the raise is on the record
    assert state["spent_usd"] >= sum(r["cost_usd"] for r in records) - 1e-9  # halted cells' spend stays counted
    assert "spend: $" in p.stdout and "of max_usd $5.0" in p.stdout


def test_max_usd_needs_a_price_for_every_model(tmp_path):
    proto = write_proto(tmp_path, "openai", extra=BUDGET)
    p = harness(str(proto), "--out", str(tmp_path / "run"), "--model", "gpt-unpriced", "--exploratory")
    assert p.returncode == 2 and "budget.max_usd" in p.stderr and "gpt-unpriced" in p.stderr
    assert "Traceback" not in p.stderr


def test_raising_a_ceiling_needs_resume(tmp_path):
    proto = write_proto(tmp_path, "openai", extra=BUDGET)
    p = harness(str(proto), "--out", str(tmp_path / "run"), "--raise-budget-usd", "1")
    assert p.returncode == 2 and "--resume" in p.stderr


def test_a_malformed_reply_the_retry_layer_discarded_is_charged_against_the_ceiling(tmp_path, tasks, live):  # noqa: F811
    """Through the real SDK: the provider served (and billed) a 200 reply whose body did not parse;
    the engine retried. The spend ledger charges that reply its booking instead of nothing."""
    from harness.ledger.spend import Ceiling, CeilingEngine, SpendLedger, input_upper_bound
    _, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    req = worker_request(tasks[0])
    lb.queue("malformed")
    reply = CeilingEngine(make(), led, "k", "worker", None).complete(req)
    state = led.read()
    booked = input_upper_bound(req) + req.max_tokens
    reported = reply.usage.input_tokens + reply.usage.output_tokens + reply.usage.cache_read_tokens \
        + reply.usage.cache_write_tokens
    assert state["spent_tokens"] == reported + booked and state["overrun_tokens"] == reported


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_a_reply_cut_while_its_status_line_and_headers_drip_is_charged_its_booking(flavor, tasks, monkeypatch,
                                                                                     tmp_path):
    """Issue 34, through the real SDKs: a reply whose status line and headers drip past
    ``request_timeout_s`` is cut on time, and the provider may have generated (and billed) it: it
    is charged its booking, an upper bound (``unseen_billed``), never nothing. Before, spend.json
    counted $0.2529 against $0.3367 billed."""
    from harness.core.engine import EngineFault
    from harness.engines import EngineContext, make_engine
    from harness.ledger.spend import Ceiling, CeilingEngine, SpendLedger, input_upper_bound
    from tests.harness.engines.test_deadline import HeaderDrip
    srv = HeaderDrip()
    host, port = srv.sock.getsockname()
    monkeypatch.setenv(f"{flavor.upper()}_BASE_URL", f"http://{host}:{port}" + ("/v1" if flavor == "openai" else ""))
    monkeypatch.setenv(f"{flavor.upper()}_API_KEY", "sk-test-loopback")
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    req = worker_request(tasks[0])
    try:
        eng = make_engine(flavor, EngineContext("worker", tasks[0], {}, "seed", model="m", options={
            "providers": {flavor: {"request_timeout_s": 1.0, "max_retries": 0}}}))
        with pytest.raises(EngineFault):
            CeilingEngine(eng, led, "k", "worker", None).complete(req)
    finally:
        srv.close()
    state = led.read()
    booked = input_upper_bound(req) + req.max_tokens
    assert state["unseen_billed"] == 1 and state["unseen_billed_tokens"] == booked
    assert state["spent_tokens"] == booked and not state["open"]
