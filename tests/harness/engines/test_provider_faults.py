"""Issue 25 through the real SDKs against the loopback provider: no finished cell is dropped at a
credentials stop; whole-reply deadlines; every billed reply is charged.

Formerly ``tests/engines/test_faults_issue25.py``, named after its origin."""
from __future__ import annotations

import json
import threading

from support.loopback import Loopback, decode_openai
from tests.harness.engines.test_cli_runs import harness, write_proto


def _task_of(body) -> str:
    msgs, _, _ = decode_openai(body)
    first = next(m.content for m in msgs if m.role == "user")
    return "median" if "median" in first.lower() else "other"


def test_a_cell_in_flight_at_a_401_stop_is_recorded_not_dropped(tmp_path, tasks):
    """Two cells in flight: one is refused (401) while the other has its reply and is running its
    tests. The run stops dispatching, and the cell that finishes after the stop is recorded (it was
    dropped, and billed again on resume); resume runs only the refused cell."""
    proto = write_proto(tmp_path, "openai", arms=("A1",))
    proto.write_text(proto.read_text().replace('tasks = ["median"]', 'tasks = ["median", "parse-range"]'))
    out = tmp_path / "run"
    refused = threading.Event()

    with Loopback("openai", tasks) as lb:
        def route(body):
            if _task_of(body) == "median":
                refused.wait(60)  # the median cell gets its reply only after the other cell was refused
                return None
            refused.set()
            return "401"
        lb.route = route
        p = harness(str(proto), "--out", str(out), "--model", "gpt-x", "--exploratory", "--workers", "2",
                    env_extra={"OPENAI_BASE_URL": lb.url})
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("STOPPED:") == 1 and "Traceback" not in p.stderr
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [r["task"] for r in recs] == ["median"]  # finished after the stop, and kept
    with Loopback("openai", tasks) as lb:
        p = harness("--resume", str(out), env_extra={"OPENAI_BASE_URL": lb.url})
        asked = [_task_of(r["body"]) for r in lb.requests]
    assert p.returncode == 0, p.stderr
    assert "median" not in asked  # the recorded cell is not run (nor billed) again
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in recs) == ["median", "parse-range"]


# ---- 6. deadlines on the whole reply ----------------------------------------------------------------
import time  # noqa: E402

import pytest  # noqa: E402

from harness.ledger.spend import Ceiling, CeilingEngine, SpendLedger, input_upper_bound, unseen_billed  # noqa: E402
from tests.harness.engines.test_wire import live, worker_request  # noqa: E402,F401


def test_request_timeout_is_a_deadline_on_the_whole_reply_and_a_cut_reply_is_charged(tmp_path, tasks, live):  # noqa: F811
    """A reply dripping one byte a second (each read well inside the SDK's per-read timeout) is cut at
    request_timeout_s, retried as a timeout fault, and charged its booking (the provider generated it)."""
    _, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    lb.queue(("drip", 1.0))
    req = worker_request(tasks[0])
    t0 = time.monotonic()
    reply = CeilingEngine(make(request_timeout_s=2.0, max_retries=2), led, "k", "worker", None).complete(req)
    elapsed = time.monotonic() - t0
    assert reply.stop_reason != "deadline" and reply.tool_calls  # the retry got the whole reply
    faults = reply.raw["faults"]
    assert [f["kind"] for f in faults] == ["timeout"] and faults[0]["billed"] is True
    assert "ReplyTimeout" in faults[0]["detail"]
    assert lb.dripped < 100 and elapsed < 60  # the dripped body is ~1000 bytes (~1000 s); it was cut
    state = led.read()
    assert state["unseen_billed"] == 1
    assert state["unseen_billed_tokens"] == input_upper_bound(req) + req.max_tokens
    assert "billed send(s) whose usage was never read" in __import__("harness.ledger.spend").ledger.spend.summary(state)


def test_a_call_deadline_bounds_a_dripping_reply(tasks, live):  # noqa: F811
    """A2p's wall budget: the request's deadline cuts a reply still arriving (a deadline reply, the
    in-flight send charged), however slowly its bytes keep coming."""
    _, lb, make, _ = live
    lb.queue(("drip", 1.0))
    reply = make(request_timeout_s=600).complete(worker_request(tasks[0], deadline=time.monotonic() + 2.0))
    assert reply.stop_reason == "deadline" and reply.tool_calls == []
    assert "in-flight" in reply.raw["deadline"] and unseen_billed(reply.raw) == 1
    assert lb.dripped < 100


# ---- 7. every billed reply is charged ------------------------------------------------------------------
def test_a_reply_cut_mid_body_is_charged_its_booking(tmp_path, tasks, live):  # noqa: F811
    _, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    lb.queue("truncated")
    req = worker_request(tasks[0])
    reply = CeilingEngine(make(), led, "k", "worker", None).complete(req)
    f = reply.raw["faults"]
    assert [x["kind"] for x in f] == ["connection"] and f[0]["billed"] is True
    state = led.read()
    assert state["unseen_billed"] == 1 and state["unseen_billed_tokens"] == input_upper_bound(req) + req.max_tokens


def test_a_reply_cut_after_its_usage_arrived_is_charged_exactly_what_the_provider_billed(tmp_path, tasks, live):  # noqa: F811
    """The connection breaks with only the body's closing byte unsent: the usage object arrived, so the
    cut reply is charged the provider's bill for it (the whole reply's usage), not its booking."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    lb.queue(("truncated", -1))
    reply = CeilingEngine(make(), led, "k", "worker", PRICE).complete(worker_request(tasks[0]))
    (cut, whole) = lb.billed
    assert cut["delivered"] == "cut_after_usage" and whole["delivered"] == "whole"
    f = reply.raw["faults"]
    assert [x["kind"] for x in f] == ["connection"] and f[0]["billed"] is True and f[0]["usage"]
    state = led.read()
    assert state["unseen_billed"] == 0 and state["cut_billed"] == 1
    assert state["cut_billed_usd"] == pytest.approx(_provider_usd(flavor, cut["usage"], PRICE), abs=1e-12)
    bill = sum(_provider_usd(flavor, b["usage"], PRICE) for b in lb.billed)
    assert state["spent_usd"] == pytest.approx(bill, abs=1e-12)  # spend.json = the provider's bill


def test_a_word_usage_inside_the_reply_text_is_not_taken_for_its_usage(tmp_path, tasks, live):  # noqa: F811
    """Adversarial: the model's text (and, on Anthropic, a tool call's input object) carries a fake
    usage object before the real one; a cut before the real usage is charged its booking, never the
    fake's tiny numbers."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    fake = '"}, "usage": {"input_tokens": 1, "output_tokens": 1, "prompt_tokens": 1, "completion_tokens": 1}, "x": {"'
    answer = lb.answer
    lb.answer = lambda body: _with_text(answer(body), flavor, fake)
    lb.queue("truncated")
    req = worker_request(tasks[0])
    CeilingEngine(make(), led, "k", "worker", None).complete(req)
    state = led.read()
    assert state["cut_billed"] == 0 and state["unseen_billed"] == 1
    assert state["unseen_billed_tokens"] == input_upper_bound(req) + req.max_tokens


def _with_text(reply: dict, flavor: str, text: str) -> dict:
    if flavor == "anthropic":  # also as an object a naive search for the key would find
        fake = {"usage": {"input_tokens": 1, "output_tokens": 1}}
        reply["content"] = [{"type": "tool_use", "id": "toolu_fake", "name": "list_files", "input": fake},
                            {"type": "text", "text": text * 40}, *reply["content"]]
    else:
        reply["choices"][0]["message"]["content"] = text * 40
    return reply


def test_a_connection_dropped_after_the_request_is_booked_at_its_upper_estimate(tmp_path, tasks, live):  # noqa: F811
    """Issue 34 (every billed byte charged; spend.json never undercounts the bill): the provider had the
    whole request when the connection dropped, so it may bill it; the request is booked at its upper
    estimate, as a reply cut at any later point is (issue 25 booked nothing here)."""
    _, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    lb.queue("drop")
    req = worker_request(tasks[0])
    CeilingEngine(make(), led, "k", "worker", None).complete(req)
    state = led.read()
    assert state["unseen_billed"] == 1
    assert state["unseen_billed_tokens"] == input_upper_bound(req) + req.max_tokens


def _provider_usd(flavor: str, usage: dict, price: dict) -> float:
    """What the loopback 'provider' bills for one reply, priced independently of harness.core.pricing."""
    if flavor == "anthropic":
        return (usage["input_tokens"] * price["input"] + usage["output_tokens"] * price["output"]
                + usage["cache_read_input_tokens"] * price["cache_read"]
                + usage["cache_creation_input_tokens"] * price["cache_write"]) / 1e6
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    return ((usage["prompt_tokens"] - cached) * price["input"] + cached * price["cache_read"]
            + usage["completion_tokens"] * price["output"]) / 1e6


PRICE = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}


CUTS = {  # where a reply is cut in transit: after its usage arrived (all but the closing byte), or anywhere
    "after_usage": [("truncated", -1)],
    "anywhere": ["truncated", ("truncated", -1), ("drip", 0.5)],
}


@pytest.mark.parametrize("cuts", sorted(CUTS))
@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_faults_at_30_percent_provider_bill_within_ceiling_plus_declared_overrun(tmp_path, tasks, write_protocol,
                                                                                  secret_env, flavor, cuts):
    """Cut replies, slow replies, 429 storms and a 401 mid-run at 30% of requests, through the real SDK,
    against a provider that bills a cut reply as the whole reply (docs/reference/spend.md's billing model): the
    bill never exceeds the ceiling plus the declared overrun; spend.json equals the bill for every
    whole reply and every reply cut after its usage arrived, and charges each reply cut before it at
    its booking, declared (``unseen_billed_usd``) and never below what the provider billed. With
    only cuts after the usage, spend.json = the provider's bill."""
    import json
    import random

    from support.loopback import SNAPSHOT
    proto = write_protocol(flavor, arms='[arms.A1]\ncontroller = "A1"\n[arms.A2]\ncontroller = "A2"\n',
                           scenarios=("null",), max_retries=4)
    text = proto.read_text().replace("max_tokens = 4096", "max_tokens = 600")
    text = text.replace("max_retries = 4", "max_retries = 4\nrequest_timeout_s = 3")  # a drip is cut at 3 s
    proto.write_text(text + "\n[budget]\nmax_usd = 0.15\n")
    out = tmp_path / "run"
    rng = random.Random(25)
    n = {"req": 0}

    def route(body):
        n["req"] += 1
        if n["req"] == 6:
            return "401"  # the key is revoked mid-run, once
        if n["req"] in (3, 9):  # at least one cut before the usage and one after it ("anywhere")
            return CUTS[cuts][(n["req"] == 9) % len(CUTS[cuts])]
        if rng.random() >= 0.3:
            return None
        return rng.choice([*CUTS[cuts], ("slow", 0.3), "429", "429"])
    env = {"ANTHROPIC_API_KEY" if flavor == "anthropic" else "OPENAI_API_KEY": "k"}
    from tests.harness.engines.test_cli_runs import harness
    with Loopback(flavor, tasks) as lb:
        lb.route = route
        url = {f"{flavor.upper()}_BASE_URL": lb.url, **env}
        first = harness(str(proto), "--out", str(out), "--model", SNAPSHOT[flavor], "--exploratory",
                        env_extra=url)
        assert first.returncode == 4 and "STOPPED:" in first.stderr, first.stderr
        for _ in range(3):  # resume until done or halted at the ceiling (a resume may meet another fault)
            p = harness("--resume", str(out), env_extra=url)
            if p.returncode in (0, 3) or "STOPPED: budget ceiling" in p.stderr:
                break
        billed = list(lb.billed)
    assert p.returncode in (0, 3) or "STOPPED: budget ceiling" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    state = json.loads((out / "spend.json").read_text())
    usd = {kind: sum(_provider_usd(flavor, b["usage"], PRICE) for b in billed if b["delivered"] == kind)
           for kind in ("whole", "cut_after_usage", "cut")}
    bill = sum(usd.values())
    ceiling = state["ceilings"][-1]["max_usd"]
    declared = state["overrun_usd"] + state["orphaned_usd"] + state["unseen_billed_usd"]
    assert bill <= ceiling + declared + 1e-9
    # spend.json = the bill of every reply whose usage the harness read, whole or cut ...
    assert state["spent_usd"] - state["unseen_billed_usd"] == pytest.approx(usd["whole"] + usd["cut_after_usage"],
                                                                             abs=1e-9)
    assert state["cut_billed_usd"] == pytest.approx(usd["cut_after_usage"], abs=1e-9)
    assert state["cut_billed"] == sum(b["delivered"] == "cut_after_usage" for b in billed) >= 1
    # ... and each reply cut before its usage arrived at its booking, declared, never below the bill
    assert state["unseen_billed"] == sum(b["delivered"] == "cut" for b in billed)
    assert state["unseen_billed_usd"] >= usd["cut"] - 1e-9
    if cuts == "after_usage":
        assert state["unseen_billed"] == 0 and state["spent_usd"] == pytest.approx(bill, abs=1e-9)
    else:
        assert state["unseen_billed"] >= 1
    print(f"{flavor}/{cuts}: provider bill ${bill:.6f} (whole ${usd['whole']:.6f}, cut after usage "
          f"${usd['cut_after_usage']:.6f}, cut before ${usd['cut']:.6f}); spend.json ${state['spent_usd']:.6f} "
          f"(declared unseen_billed ${state['unseen_billed_usd']:.6f}, overrun ${state['overrun_usd']:.6f}); "
          f"ceiling ${ceiling}")


def test_a_cell_past_its_overall_deadline_is_cut_and_void_with_the_reason(tmp_path, tasks):
    """[limits] cell_deadline_s: a provider that drips every reply cannot hold a cell past it; the
    cell is recorded void as an engine fault naming the deadline, and the run ends (exit 3)."""
    import json

    from tests.harness.engines.test_cli_runs import harness, write_proto
    proto = write_proto(tmp_path, "openai", arms=("A2",), extra="request_timeout_s = 600\n")
    proto.write_text(proto.read_text().replace("[rerun]\nmax_reruns = 1", "[rerun]\nmax_reruns = 0")
                     + "\n[limits]\ncell_deadline_s = 3\n")
    out = tmp_path / "run"
    with Loopback("openai", tasks, always=("drip", 1.0)) as lb:
        p = harness(str(proto), "--out", str(out), "--model", "gpt-x", "--exploratory",
                    env_extra={"OPENAI_BASE_URL": lb.url})
        dripped = lb.dripped
    assert p.returncode == 3, p.stderr
    (rec,) = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert rec["outcome"] == "void" and "cell deadline" in rec["void_reason"]
    assert dripped < 100  # each dripped reply is ~1000 bytes at one a second: the deadline cut it


@pytest.mark.parametrize("usage", [{"input_tokens": -10 ** 6, "output_tokens": 5, "prompt_tokens": -10 ** 6,
                                    "completion_tokens": 5},
                                   {"input_tokens": "many", "output_tokens": [], "prompt_tokens": "many",
                                    "completion_tokens": {}}], ids=["negative", "not-numbers"])
def test_a_cut_replys_usage_that_is_not_counts_is_charged_its_booking(tmp_path, tasks, live, usage):  # noqa: F811
    """Adversarial usage in a cut reply (negative counts would lower the charge; strings would crash
    the parse): the reply is charged its booking, as if no usage had arrived, and the call completes."""
    _, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    answer, n = lb.answer, {"calls": 0}

    def bad_first(body):
        n["calls"] += 1
        reply = answer(body)
        return {**reply, "usage": usage} if n["calls"] == 1 else reply
    lb.answer = bad_first
    lb.queue(("truncated", -1))
    req = worker_request(tasks[0])
    assert CeilingEngine(make(), led, "k", "worker", None).complete(req).tool_calls
    state = led.read()
    assert state["cut_billed"] == 0 and state["unseen_billed"] == 1
    assert state["unseen_billed_tokens"] == input_upper_bound(req) + req.max_tokens


def test_a_whole_reply_discarded_as_malformed_is_charged_the_usage_it_reported(tmp_path, tasks, live):  # noqa: F811
    """A 200 reply with its usage but no model id is discarded and re-asked: both replies are billed,
    and spend.json charges each exactly its reported usage (not the discarded one's booking)."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    lb.queue("nomodel")
    reply = CeilingEngine(make(), led, "k", "worker", PRICE).complete(worker_request(tasks[0]))
    assert [f["kind"] for f in reply.raw["faults"]] == ["malformed"] and len(lb.billed) == 2
    state = led.read()
    assert state["unseen_billed"] == 0 and state["cut_billed"] == 1
    bill = sum(_provider_usd(flavor, b["usage"], PRICE) for b in lb.billed)
    assert state["spent_usd"] == pytest.approx(bill, abs=1e-12)
