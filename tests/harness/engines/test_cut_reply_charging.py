"""Red team of issue 25 (a): cut and malformed replies charged at the usage the provider reported,
through the real SDK clients against the loopback provider (tests/support/loopback.py). The
provider's bytes are hostile: a usage the harness cannot read as the provider's one bill for the
reply is charged the booking (an upper bound, docs/reference/spend.md, "Billing model"), never less, never a crash.

Formerly ``tests/engines/test_redteam_issue25b.py``, named after its origin."""
from __future__ import annotations

import json

import pytest

from harness.engines.deadline import usage_in_prefix
from harness.ledger.spend import Ceiling, CeilingEngine, SpendLedger, input_upper_bound
from tests.harness.engines.test_wire import live, worker_request  # noqa: F401

PRICE = {"input": 3.0, "output": 15.0, "cache_read": 0.3, "cache_write": 3.75}


def _cut(body: bytes, k: int, billed: dict, lb):
    """A fault sending the 200 reply ``body`` cut after ``k`` bytes (its declared length the whole);
    the provider bills ``billed``."""
    def serve(handler, _req):
        handler.close_connection = True
        lb.billed.append({"usage": billed, "delivered": "cut"})
        handler._send(200, body[:k], length=len(body))
        handler.connection.shutdown(2)
    return serve


def _whole(mangle, lb):
    """A fault sending the provider's reply as ``mangle(reply) -> bytes`` whole."""
    def serve(handler, req):
        reply = lb.answer(req)
        lb.billed.append({"usage": reply.get("usage"), "delivered": "whole"})
        handler._send(200, mangle(reply))
    return serve


def _booked(led, req) -> int:
    return input_upper_bound(req) + req.max_tokens


def _run(make, led, req):
    return CeilingEngine(make(), led, "k", "worker", PRICE).complete(req)


def _usage_key(flavor):
    return ("input_tokens", "output_tokens") if flavor == "anthropic" else ("prompt_tokens", "completion_tokens")


def _true_reply(lb, req) -> dict:
    from support.loopback import encode_anthropic, encode_openai  # noqa: F401
    body = {"messages": [{"role": "user", "content": req.messages[0].content}], "max_tokens": req.max_tokens,
            "tools": [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                      if lb.flavor == "anthropic" else
                      {"type": "function", "function": {"name": t.name, "parameters": t.parameters}}
                      for t in req.tools]}
    return lb.answer(body)


def test_a_duplicated_top_level_usage_cut_before_the_last_one_is_charged_the_booking(tmp_path, tasks, live):  # noqa: F811
    """A body with two top-level ``usage`` keys (a JSON parser keeps the last): cut after the first
    (small) one arrived, mid-way through the second (the real one). Charging the first undercounts
    the bill; the reply's usage is ambiguous, so it is charged its booking."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    req = worker_request(tasks[0])
    reply = _true_reply(lb, req)
    real = reply.pop("usage")
    i, o = _usage_key(flavor)
    small = {i: 1, o: 1}
    text = json.dumps(reply)[:-1] + ', "usage": ' + json.dumps(small) + ', "usage": ' + json.dumps(real) + "}"
    body = text.encode()
    lb.queue(_cut(body, len(body) - 5, real, lb))
    _run(make, led, req)
    state = led.read()
    assert state["cut_billed"] == 0 and state["unseen_billed"] == 1
    assert state["unseen_billed_tokens"] == _booked(led, req)


def _cut_with_output_count(tmp_path, tasks, live, bad: str) -> dict:  # noqa: F811 (live: the fixture's value)
    """The spend state after one reply cut one byte short, whose usage reads ``bad`` (raw JSON
    text) as its output count."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    req = worker_request(tasks[0])
    reply = _true_reply(lb, req)
    i, o = _usage_key(flavor)
    body = json.dumps({**reply, "usage": {i: 10, o: "@"}}).replace('"@"', bad).encode()
    lb.queue(_cut(body, len(body) - 1, reply["usage"], lb))
    _run(make, led, req)
    return led.read()


@pytest.mark.parametrize("bad", ["Infinity", "-Infinity", "NaN", "1e400"])
def test_a_cut_reply_whose_usage_is_not_finite_is_charged_its_booking_not_a_crash(tmp_path, tasks, live, bad):  # noqa: F811
    state = _cut_with_output_count(tmp_path, tasks, live, bad)
    assert state["cut_billed"] == 0 and state["unseen_billed"] == 1


@pytest.mark.parametrize("bad", ["true", "0.5", "99.9", '"7"', "[]", "{}", "null"])
def test_a_cut_reply_whose_counts_are_not_integers_is_charged_its_booking(tmp_path, tasks, live, bad):  # noqa: F811
    """``true`` read as 1, 99.9 read as 99, "7" read as 7: each lowers the charge below what a count the
    harness cannot read might stand for; only JSON integers are counts."""
    state = _cut_with_output_count(tmp_path, tasks, live, bad)
    assert state["cut_billed"] == 0 and state["unseen_billed"] == 1


@pytest.mark.parametrize("bad", ["-1000000", "true", "0.5"])
def test_a_whole_reply_with_a_count_that_is_not_a_non_negative_integer_is_not_charged_it(tmp_path, tasks, live, bad):  # noqa: F811
    """A whole 200 reply reporting a negative output count was charged a negative cost (spend went
    down). Its usage is unknown: charged its booking (``Usage.missing``)."""
    flavor, lb, make, _ = live
    led = SpendLedger(tmp_path)
    led.open_session(Ceiling(max_tokens=10 ** 9))
    req = worker_request(tasks[0])
    i, o = _usage_key(flavor)

    def mangle(reply):
        return json.dumps({**reply, "usage": {**reply["usage"], o: "@"}}).replace('"@"', bad).encode()
    lb.queue(_whole(mangle, lb))
    _run(make, led, req)
    state = led.read()
    assert state["spent_tokens"] >= _booked(led, req) and state["spent_usd"] > 0


def test_usage_in_prefix_reads_only_the_top_level_key():
    """Hand-worked prefixes: a usage in a string (with escapes and a brace), nested in content,
    or after an escaped quote is never taken; the top-level one is."""
    top = b'{"content":[{"text":"\\"usage\\": {\\"input_tokens\\": 1}}"},{"usage":{"input_tokens":2}}],' \
          b'"usage":{"input_tokens":3,"output_tokens":4}}'
    assert usage_in_prefix(top) == {"input_tokens": 3, "output_tokens": 4}
    assert usage_in_prefix(top[:top.rindex(b'"usage"')]) is None
    assert usage_in_prefix(b'{"a":"}\\\\","usage":{"x":1}') == {"x": 1}


# ---- (c) proxies ------------------------------------------------------------------------------------
PROXY_VARS = [v for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY") for v in (name, name.lower())]


@pytest.mark.parametrize("url", ["http://user:hunter2@[::1", "http://user:hunter2@host:port"])
def test_a_proxy_url_that_is_not_a_url_is_bad_input_before_the_run_and_its_credentials_never_printed(tmp_path, url):
    """httpx refuses the URL only when a client is made, in every cell: each was void. It is bad
    input, named by its variable, and the URL (with its password) is not repeated."""
    from tests.harness.engines.test_cli_runs import harness, write_proto
    out = tmp_path / "run"
    env = {v: "" for v in PROXY_VARS}
    p = harness(str(write_proto(tmp_path, "openai")), "--out", str(out), "--model", "gpt-x", "--exploratory",
                env_extra={**env, "HTTP_PROXY": url, "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert p.returncode == 2, p.stderr
    (line,) = [x for x in p.stderr.splitlines() if x.strip()]
    assert line.startswith("error: environment: HTTP_PROXY: ") and "hunter2" not in p.stderr + p.stdout
    assert not (out / "records.jsonl").exists()


def test_a_top_level_usage_key_spelt_with_escapes_counts_as_usage():
    """``"usag\\u0065"`` is the key ``usage`` to a JSON parser: a first, small ``usage`` followed by an
    escaped second one is ambiguous (booking), and an escaped one alone is the usage."""
    dup = b'{"id":"m","usage":{"input_tokens":1,"output_tokens":1},"usag\\u0065":{"input_tokens":900,"output_tokens":900}}'
    assert json.loads(dup)["usage"]["input_tokens"] == 900
    assert usage_in_prefix(dup) is None
    assert usage_in_prefix(b'{"id":"m","\\u0075sage":{"input_tokens":5,"output_tokens":6},"x"') == \
        {"input_tokens": 5, "output_tokens": 6}
