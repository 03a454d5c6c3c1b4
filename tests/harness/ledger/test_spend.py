"""The run-wide spend ledger (harness.ledger.spend): the booking arithmetic, the ceiling across processes,
declared overrun, orphaned bookings, and the driver's halt (Ray: tests/harness/run/test_executors.py)."""
from __future__ import annotations

import json
import multiprocessing as mp

import pytest

from harness.core.engine import EngineReply, EngineRequest, Message, Usage
from harness.ledger.ledger import Ledger
from harness.ledger.spend import (
    Ceiling,
    CeilingReached,
    SpendLedger,
    booking,
    clamp,
    input_upper_bound,
    summary,
)
from harness.run.driver import _Settler
from support import records

PRICE = {"input": 1.0, "output": 2.0}  # USD per million tokens


def test_clamp_is_what_is_left_after_the_input_bound():
    # USD: 0.003 left, the input can cost 1000 * 1e-6 = 0.001, so 0.002 / 2e-6 = 1000 output tokens
    assert clamp(4096, 1000, PRICE, 0.003, None) == 1000
    assert clamp(4096, 1000, PRICE, None, 1500) == 500  # tokens: 1500 left minus 1000 of input
    assert clamp(200, 1000, PRICE, 1.0, 10 ** 6) == 200  # never more than the call asked for
    assert clamp(4096, 1000, PRICE, 0.0009, None) == 0  # the input alone does not fit: no call
    assert clamp(4096, 1000, {"input": 3.0, "output": 15.0, "cache_write": 3.75}, 0.005, None) == 83  # input at 3.75
    assert booking(1000, 1000, PRICE) == (pytest.approx(0.003), 2000)


def test_input_bound_counts_every_byte_sent():
    req = EngineRequest("worker", "sys", [Message("user", "héllo")], [], 10)
    assert input_upper_bound(req) >= len(b"sys") + len("héllo".encode())


def _spend(run_dir, n):
    led = SpendLedger(run_dir)
    for _ in range(n):
        try:
            ticket, out = led.reserve("k", "worker", 100, 100, PRICE)
        except CeilingReached:
            return
        led.settle(ticket, "k", "worker", EngineReply("", [], Usage(100, out), "end_turn", "m"), PRICE, out, 100)


def test_processes_sharing_the_ledger_never_pass_the_ceiling(tmp_path):
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=5_000))
    procs = [mp.get_context("fork").Process(target=_spend, args=(tmp_path, 40)) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    state = led.read()
    assert state["spent_tokens"] <= 5_000 and state["halted"] and state["open"] == {}
    assert state["spent_tokens"] >= 5_000 - 200  # it halted at the ceiling, not before: less than one call was left
    rows = [json.loads(line) for line in (tmp_path / "spend.jsonl").read_text().splitlines()]
    assert sum(r["tokens"] for r in rows if r.get("spent")) == state["spent_tokens"]
    assert sum(1 for r in rows if r.get("spent") is False) == state["refused"] >= 4  # each process refused once


def test_overrun_missing_usage_and_orphaned_bookings_are_counted(tmp_path):
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_usd=1.0))
    t, out = led.reserve("k", "worker", 100, 100, PRICE)
    led.settle(t, "k", "worker", EngineReply("", [], Usage(150, 100), "end_turn", "m"), PRICE, out, 100)
    s = led.read()
    assert s["overrun_tokens"] == 50 and s["overrun_usd"] == pytest.approx(50e-6)  # input above the bound: declared
    t, out = led.reserve("k", "worker", 100, 100, PRICE)
    led.settle(t, "k", "worker", EngineReply("", [], Usage(missing=1), "end_turn", "m"), PRICE, out, 100)
    assert led.read()["spent_tokens"] == 250 + 200  # no usage reported: the whole booking is spent
    led.reserve("k", "worker", 100, 100, PRICE)  # then the process is killed before settling
    raised = led.open_session(Ceiling(max_usd=1.0), Ceiling(max_usd=2.0))
    s = led.read()
    assert s["orphaned_tokens"] == 200 and s["open"] == {} and s["spent_tokens"] == 650
    assert raised == Ceiling(2.0, None) and [c["max_usd"] for c in s["ceilings"]] == [1.0, 2.0]


def test_at_the_ceiling_the_driver_takes_in_flight_cells_and_drops_the_halted_one(tmp_path):
    ledger = Ledger(tmp_path / "records.jsonl")
    settle = _Settler(ledger, {}, tmp_path / "voids.jsonl", 2, {}, lambda m: None, tmp_path)
    halted = records.of_key("A1|t|null|1", "void", stop_run="budget ceiling: no room")
    done = records.of_key("A2|t|null|1", "completed")
    assert settle.take(halted) is True and settle.stopped.startswith("budget ceiling")  # keep draining in-flight cells
    assert settle.take(done) is True
    assert [r["cell_key"] for r in ledger.records] == ["A2|t|null|1"]  # the halted cell is not run, not void
    assert "finished_after_ceiling_s" in ledger.records[0] and len(settle.after_halt) == 1
    assert not (tmp_path / "voids.jsonl").exists()



def test_the_budget_table_is_validated_and_frozen_with_the_protocol(tmp_path):
    from harness.core.errors import InputError
    from harness.core.protocol import load_protocol
    from support.scripted import TASKS
    head = (f'[protocol]\nname = "b"\nseed = 1\nrepeats = 1\ntasks_dir = "{TASKS}"\ntasks = ["median"]\n'
            'scenarios = ["null"]\n[arms.A1]\n')
    p = tmp_path / "p.toml"
    p.write_text(head + "[budget]\nmax_usd = 25\nmax_tokens = 1000\n")
    proto = load_protocol(p)
    assert (proto.budget.max_usd, proto.budget.max_tokens) == (25, 1000)
    assert proto.raw["budget"] == proto.budget.model_dump()  # in the digest
    for bad, what in (("max_usd = 0", "budget.max_usd"), ('max_tokens = "many"', "budget.max_tokens"),
                      ("max_dollars = 3", "budget.max_dollars")):
        p.write_text(head + f"[budget]\n{bad}\n")
        with pytest.raises(InputError, match=what):
            load_protocol(p)


def test_an_edited_spend_ledger_is_a_named_error(tmp_path):
    from harness.core.errors import InputError
    (tmp_path / "spend.json").write_text("{not json")
    with pytest.raises(InputError, match="spend.json"):
        SpendLedger(tmp_path).read()


class _BilledRetries:
    """An engine like harness/engines/live.py: its retry layer re-sent a request whose 200 reply
    arrived malformed (the provider billed it; the harness never read its usage), recorded in
    ``raw["faults"]`` (or ``exc.wire["faults"]`` when it gave up)."""

    name = "fake"

    def __init__(self, malformed: int, give_up: bool = False, deadline: str | None = None):
        self.malformed, self.give_up, self.deadline = malformed, give_up, deadline

    def complete(self, req):
        from harness.core.engine import EngineFault
        meta = {"faults": [{"kind": "malformed", "detail": "malformed reply", "retry": i} for i in range(self.malformed)]}
        if self.give_up:
            exc = EngineFault("gave up")
            exc.wire = meta
            raise exc
        if self.deadline is not None:
            return EngineReply("", [], Usage(), "deadline", "m", {**meta, "deadline": self.deadline})
        return EngineReply("", [], Usage(10, 10), "end_turn", "m", meta)


def test_replies_the_retry_layer_discarded_are_charged_not_hidden(tmp_path):
    """A malformed 200 reply was billed by the provider, and an in-flight request the deadline cut
    off may have been: their usage was never read, so each is charged its booking (declared as
    overrun), never counted as free. Otherwise a run can pass its ceiling with spend.json below it."""
    from harness.core.engine import EngineFault
    from harness.ledger.spend import CeilingEngine
    req = EngineRequest("worker", "s", [Message("user", "x")], [], 100)
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    est = input_upper_bound(req)
    CeilingEngine(_BilledRetries(2), led, "k", "worker", PRICE).complete(req)
    assert led.read()["spent_tokens"] == 20 + 2 * (est + 100)
    with pytest.raises(EngineFault):
        CeilingEngine(_BilledRetries(3, give_up=True), led, "k", "worker", PRICE).complete(req)
    assert led.read()["spent_tokens"] == 20 + 5 * (est + 100)
    CeilingEngine(_BilledRetries(0, deadline="wall-clock deadline cancelled the in-flight worker request"),
                  led, "k", "worker", PRICE).complete(req)
    assert led.read()["spent_tokens"] == 20 + 6 * (est + 100)
    CeilingEngine(_BilledRetries(0, deadline="wall-clock deadline reached before the worker request"),
                  led, "k", "worker", PRICE).complete(req)  # never sent: nothing billed
    s = led.read()
    assert s["spent_tokens"] == 20 + 6 * (est + 100) and s["overrun_tokens"] == 3 * (est + 100) + 20  # charged above the one booking each


def test_a_token_ceiling_books_a_call_whose_model_has_no_price(tmp_path):
    """[budget] max_tokens needs no [pricing] (the driver asks for prices only under max_usd), so a
    call at an unpriced model is booked and settled in tokens, its USD unknown, not a harness error
    that voids the cell."""
    from harness.ledger.spend import CeilingEngine
    req = EngineRequest("worker", "s", [Message("user", "x")], [], 100)
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 6))

    class Inner:
        def complete(self, sent):
            return EngineReply("", [], Usage(10, sent.max_tokens), "end_turn", "unpriced-1")

    CeilingEngine(Inner(), led, "k", "worker", None).complete(req)
    s = led.read()
    assert s["spent_tokens"] == 110 and s["open"] == {} and s["calls"] == 1 and s["unpriced_calls"] == 1
    assert "USD leaves out 1 call(s) at a model with no [pricing] entry" in summary(s)
    assert clamp(100, 10, None, 1.0, None) == 0  # under a USD ceiling an unpriced call is never made


def test_the_spend_line_declares_bookings_a_killed_process_left_open(tmp_path):
    """A pool worker killed mid-call leaves its booking open: the ceiling keeps counting it, and the
    run's printed spend says so instead of showing only the settled calls."""
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_usd=1.0))
    led.reserve("k", "worker", 100, 100, PRICE)  # the process dies here: never settled
    line = summary(led.read())
    assert "1 call(s) still open (booked $0.000300 / 200 tokens" in line
