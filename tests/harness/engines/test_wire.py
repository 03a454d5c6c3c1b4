"""The real anthropic and openai SDK clients against a loopback server: turns, usage, faults, deadlines."""
from __future__ import annotations

import sys
import time

import pytest

from harness.control.tools import TOOLS
from harness.core.engine import EngineAuthError, EngineFault, EngineRequest, Message, Usage
from harness.core.events import EventType
from harness.core.pricing import cell_cost, price_for, validate
from harness.engines import EngineContext, make_engine
from harness.engines.limiter import Limiter
from harness.engines.retry import parse_retry_after
from harness.engines.transcript import Redactor
from support.loopback import OPENAI_SECRET, PLANTED, SECRET, SNAPSHOT, Loopback

FLAVORS = ["anthropic", "openai"]


@pytest.fixture(params=FLAVORS)
def live(request, tasks, secret_env):
    flavor = request.param
    with Loopback(flavor, tasks) as lb:
        secret_env.setenv(f"{flavor.upper()}_BASE_URL", lb.url)
        delays = []

        def make(role="worker", **conf):
            conf = {"backoff_base_s": 0.01, "backoff_max_s": 0.05, **conf}
            eng = make_engine(flavor, EngineContext(role, tasks[0], {}, "seed", model="loopback-alias",
                                                    options={"providers": {flavor: conf}}))
            sleep = eng.policy.sleep

            def record_sleep(s):
                delays.append(s)
                sleep(s)
            eng.policy.sleep = record_sleep
            return eng
        yield flavor, lb, make, delays


def worker_request(task, max_tokens=512, deadline=None):
    return EngineRequest("worker", "You are a software engineer.", [Message("user", task.prompt)], TOOLS, max_tokens,
                         deadline)


def test_tool_use_turn_usage_and_snapshot_model_id(live, tasks):
    flavor, lb, make, _ = live
    reply = make().complete(worker_request(tasks[0]))
    assert reply.stop_reason == "tool_use"
    assert [c.name for c in reply.tool_calls] == ["list_files"]
    assert reply.model_id == SNAPSHOT[flavor]  # exactly as the provider returned it, not the alias asked for
    assert lb.requests[-1]["body"]["model"] == "loopback-alias"
    u = reply.usage
    assert u.input_tokens > 0 and u.output_tokens > 0 and u.cache_read_tokens > 0
    if flavor == "anthropic":
        assert u.cache_write_tokens == 7
        h = lb.requests[-1]["headers"]  # the SDK read the key from the environment (header form varies by version)
        assert h.get("x-api-key") == SECRET or h.get("authorization") == f"Bearer {SECRET}"
    else:
        assert u.reasoning_tokens == u.output_tokens // 5
        assert lb.requests[-1]["headers"].get("authorization") == f"Bearer {OPENAI_SECRET}"
        # the cached part of prompt_tokens is not counted twice
        prompt = lb.requests[-1]["body"]
        assert prompt["max_tokens"] == 512  # a compatible server gets max_tokens
    assert reply.raw["status"] == 200 and reply.raw["response"]["model"] == SNAPSHOT[flavor]


def test_clamped_max_tokens_reaches_the_wire_and_truncates(live, tasks):
    flavor, lb, make, _ = live
    req = worker_request(tasks[0], max_tokens=3)
    reply = make().complete(req)
    body = lb.requests[-1]["body"]
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 3
    assert reply.stop_reason == "max_tokens" and reply.tool_calls == []


@pytest.mark.parametrize("fault", ["429", "529", "500", "drop", "malformed", "truncated"])
def test_each_fault_is_retried_then_succeeds(live, tasks, fault):
    flavor, lb, make, delays = live
    lb.queue(fault)
    reply = make().complete(worker_request(tasks[0]))
    assert [c.name for c in reply.tool_calls] == ["list_files"]
    faults = reply.raw["faults"]
    assert len(faults) == 1
    kind = {"429": "status", "529": "status", "500": "status", "drop": "connection", "malformed": "malformed",
            "truncated": "connection"}[fault]
    assert faults[0]["kind"] == kind
    if fault == "429":
        assert faults[0]["retry_after"] == pytest.approx(0.2)
        assert delays and delays[0] >= 0.2  # retry-after respected over the shorter jittered backoff
    if kind == "status":
        assert faults[0]["status"] == int(fault)


def test_a_burst_of_mixed_faults_within_the_limit(live, tasks):
    _, lb, make, delays = live
    lb.queue("529", "500", "drop", "malformed")
    reply = make(max_retries=4).complete(worker_request(tasks[0]))
    assert len(reply.raw["faults"]) == 4 and len(delays) == 4
    assert all(d <= 0.05 for d in delays)  # backoff capped by backoff_max_s


def test_exhausted_retries_raise_engine_fault_with_the_reason(live, tasks):
    _, lb, make, _ = live
    lb.queue("500", "500", "500")
    with pytest.raises(EngineFault, match="gave up after 2 retries.*HTTP 500") as ei:
        make(max_retries=2).complete(worker_request(tasks[0]))
    assert len(ei.value.wire["faults"]) == 3


def test_bad_request_is_not_retried(live, tasks):
    _, lb, make, delays = live
    lb.queue("400")
    with pytest.raises(EngineFault, match="non-retryable HTTP 400"):
        make().complete(worker_request(tasks[0]))
    assert delays == [] and len(lb.requests) == 1


def test_wall_clock_deadline_cancels_the_in_flight_request(live, tasks, monkeypatch):
    _, lb, make, _ = live
    lb.queue(("slow", 3.0))
    eng = make()  # the SDK's client made outside the timed call: its first import alone can take seconds
    t0 = time.monotonic()
    reply = eng.complete(worker_request(tasks[0], deadline=time.monotonic() + 0.6))
    assert time.monotonic() - t0 < 2.0  # well before the 3 s reply
    assert reply.stop_reason == "deadline" and reply.tool_calls == [] and reply.usage == Usage()
    # a deadline already passed makes no request at all: counted where the SDK's transport sends, not
    # where the loopback server records (the request cut above may reach the server after any line here)
    sent: list = []
    for name in ("httpx", "httpx2"):
        hx = pytest.importorskip(name) if name == "httpx" else sys.modules.get(name)
        if hx is not None:
            real = hx.HTTPTransport.handle_request
            monkeypatch.setattr(hx.HTTPTransport, "handle_request",
                                lambda self, request, real=real: sent.append(request.url) or real(self, request))
    assert make().complete(worker_request(tasks[0], deadline=time.monotonic() - 1)).stop_reason == "deadline"
    assert sent == []
    assert make().complete(worker_request(tasks[0])).stop_reason != "deadline" and len(sent) == 1  # the count sees a send


def test_retry_wait_past_the_deadline_is_a_fault_not_a_budget_stop(live, tasks):
    _, lb, make, _ = live
    lb.queue("429")  # retry-after 0.2 s, deadline in 0.1 s
    with pytest.raises(EngineFault, match="deadline too close"):
        make().complete(worker_request(tasks[0], deadline=time.monotonic() + 0.15))


def test_reviewer_on_the_same_engine_returns_a_json_verdict(live, tasks):
    from harness.control.reviewer import review
    task = tasks[0]
    _, lb, make, _ = live
    eng = make(role="reviewer")
    correct = {p: t for c in task.candidates if c.kind == "correct" for p, t in c.files().items()}
    before = {p: "" for p in correct}
    v = review(eng, task.prompt, before, correct, "digest")
    assert "tools" not in lb.requests[-1]["body"]  # the reviewer gets no tools
    assert v.verdict == "ship" and v.model_id == lb.model_id
    wrong = next(c for c in task.candidates if c.kind == "broken").files()
    v = review(eng, task.prompt, before, wrong, "digest")
    assert v.verdict == "block" and v.findings and v.findings[0]["severity"] == "high"


def test_openai_placeholder_key_for_a_local_server(monkeypatch, tasks):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with Loopback("openai", tasks) as lb:
        monkeypatch.setenv("OPENAI_BASE_URL", lb.url)
        eng = make_engine("openai", EngineContext("worker", tasks[0], {}, "s", model="local-model"))
        assert eng.complete(worker_request(tasks[0])).model_id == lb.model_id


def test_a_live_engine_needs_a_model(tasks, secret_env):
    with pytest.raises(ValueError, match="needs a model"):
        make_engine("anthropic", EngineContext("worker", tasks[0], {}, "s", model=None))


# -- pieces -------------------------------------------------------------------------------------

def test_retry_after_forms():
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert parse_retry_after({}) is None


def test_pricing_matches_snapshots_not_siblings():
    table = {"gpt-4o": {"date": "2025-01-01", "input": 2.5, "output": 10.0},
             "claude-sonnet-4-5": {"date": "2025-10-01", "input": 3.0, "output": 15.0, "cache_read": 0.3}}
    assert price_for(table, "gpt-4o-2024-08-06")[0] == "gpt-4o"
    assert price_for(table, "gpt-4o-mini-2024-07-18") is None
    assert price_for(table, "claude-sonnet-4-5-20250929")[0] == "claude-sonnet-4-5"
    c = cell_cost(table, {"claude-sonnet-4-5-20250929": Usage(1_000_000, 100_000, cache_read_tokens=1_000_000,
                                                                cache_write_tokens=1_000_000)})
    assert c["cost_usd"] == pytest.approx(3.0 + 1.5 + 0.3 + 3.0) and c["price_dates"] == ["2025-10-01"]
    missing = cell_cost(table, {"gpt-4o-mini-2024-07-18": Usage(10, 10)})
    assert missing["cost_usd"] is None and "gpt-4o-mini-2024-07-18" in missing["cost_note"]
    assert validate({"m": {"input": 1, "output": 2}}) == [
        'pricing.m.date: required, a quoted string (the date the prices were taken, e.g. date = "2025-10-01")']
    assert any("unknown token kind" in p for p in validate({"m": {"date": "d", "input": 1, "output": 2, "inptu": 3}}))


def test_limiter_requests_and_tokens_per_minute(tmp_path):
    now = [0.0]
    slept = []

    def sleep(s):
        slept.append(s)
        now[0] += s
    lim = Limiter(tmp_path / "p.json", requests_per_minute=2, tokens_per_minute=1000, sleep=sleep, clock=lambda: now[0])
    t1, w1 = lim.acquire(100)
    t2, w2 = lim.acquire(100)
    assert w1 == w2 == 0
    _, w3 = lim.acquire(100)  # third request in the minute waits for the window
    assert w3 >= 59
    lim.settle(t1, 50)
    now[0] += 61
    _, w4 = lim.acquire(900)
    assert w4 == 0
    _, w5 = lim.acquire(900)  # token budget: 900 + 900 > 1000 within the minute
    assert w5 > 0
    # a second limiter on the same file (another worker process) sees the same window
    other = Limiter(tmp_path / "p.json", requests_per_minute=2, sleep=sleep, clock=lambda: now[0])
    _, w6 = other.acquire(1)  # the window holds one request (the 900-token one): one more fits
    _, w7 = other.acquire(1)  # the third within the minute waits, across limiter instances
    assert w6 == 0 and w7 > 0


def test_redactor_scrubs_keys_headers_and_env_secrets(secret_env):
    r = Redactor()
    text = (f"key {SECRET} and Authorization: Bearer {OPENAI_SECRET} x-api-key: abcdefgh12345 "
            f"token={PLANTED}")
    out = r.text(text)
    for s in (SECRET, OPENAI_SECRET, "abcdefgh12345", PLANTED):
        assert s not in out
    assert r({"headers": {"authorization": f"Bearer {OPENAI_SECRET}"}})["headers"]["authorization"] == "Bearer [REDACTED]"


@pytest.mark.parametrize("status", ["401", "403"])
def test_refused_credentials_are_an_auth_error_never_retried(live, tasks, status):
    _, lb, make, delays = live
    lb.queue(status)
    with pytest.raises(EngineAuthError, match=f"refused the credentials.*HTTP {status}"):
        make().complete(worker_request(tasks[0]))
    assert delays == [] and len(lb.requests) == 1


def test_a_reply_without_usage_is_unknown_not_void(live, tasks):
    _, lb, make, _ = live
    lb.queue("nousage")
    reply = make().complete(worker_request(tasks[0]))
    assert reply.usage.missing == 1 and reply.usage.total == 0


def test_bad_tool_arguments_reach_the_controller_on_every_provider(live, tasks, tmp_path):
    """Both providers pass arguments that are not an object on: the controller's parse failure."""
    from harness.control.tools import ToolSurface
    from harness.sandbox.workspace import EventLog, Workspace
    flavor, lb, make, _ = live
    lb.queue("badargs")
    reply = make().complete(worker_request(tasks[0]))
    assert len(reply.tool_calls) == 1 and not isinstance(reply.tool_calls[0].arguments, dict)
    ws = Workspace.create(tasks[0])
    try:
        log = EventLog(tmp_path / "ev.jsonl")
        out = ToolSurface(ws, tasks[0], log, (), None).execute(reply.tool_calls[0])
        assert out.content.startswith("error: malformed call") and log.of_type(EventType.PARSE_FAILURE)
    finally:
        ws.destroy()


def test_retries_are_counted_as_retries(tmp_path):
    """A call that succeeded after 2 faults made 2 retries; one that gave up after 3 retries saw 4 faults."""
    from harness.core.engine import EngineReply
    from harness.engines.transcript import Transcript
    t = Transcript(tmp_path / "t.jsonl", "k")
    ok = EngineReply("", [], Usage(1, 1), "end_turn", "m", {"faults": [{"retry": 0}, {"retry": 1}]})
    t.call(EngineRequest("worker", "", [], [], 10), ok, 0.1)
    fault = EngineFault("gave up after 3 retries")
    fault.wire = {"faults": [{"retry": i} for i in range(4)]}
    t.fault(EngineRequest("worker", "", [], [], 10), fault)
    assert (t.retries, t.faults) == (5, 6)
    t.reload()
    assert (t.retries, t.faults, t.n) == (5, 6, 2)


def test_a_token_sub_field_the_provider_does_not_report_is_unreported_not_zero():
    """Schema v2 (issue 23): a cached or reasoning count the reply does not carry is unknown; the
    cell's record field is then null ("not exposed" in harness compare), never a reported 0."""
    from harness.engines.anthropic import AnthropicEngine
    from harness.engines.openai import OpenAIEngine
    from harness.run.cellrun import _sub_field

    bare = OpenAIEngine.usage_from_wire({"prompt_tokens": 10, "completion_tokens": 5})  # a compatible server
    full = OpenAIEngine.usage_from_wire({"prompt_tokens": 10, "completion_tokens": 5,
                                         "prompt_tokens_details": {"cached_tokens": 0},
                                         "completion_tokens_details": {"reasoning_tokens": 2}})
    assert (bare.cache_read_unreported, bare.reasoning_unreported, bare.cache_write_unreported) == (1, 1, 0)
    assert (full.cache_read_unreported, full.reasoning_unreported) == (0, 0)
    assert [_sub_field(full, k) for k in ("cache_read", "cache_write", "reasoning")] == [0, 0, 2]
    assert [_sub_field(bare, k) for k in ("cache_read", "cache_write", "reasoning")] == [None, 0, None]
    both = Usage()
    both.add(full)
    both.add(bare)  # one call of the cell did not report it: the sum is not a count
    assert _sub_field(both, "cache_read") is None and _sub_field(both, "reasoning") is None
    a = AnthropicEngine.usage_from_wire({"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 1})
    assert (a.cache_read_unreported, a.cache_write_unreported, a.reasoning_unreported) == (0, 1, 1)
    assert [_sub_field(a, k) for k in ("cache_read", "cache_write", "reasoning")] == [1, None, None]
