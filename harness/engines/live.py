"""What the anthropic and openai engines share: deadline, limiter, retries and the wire record.

Engine options (``EngineContext.options``) come from the protocol's ``[providers.<name>]`` table
(``requests_per_minute``, ``tokens_per_minute``, ``max_retries``, ``backoff_base_s``,
``backoff_max_s``, ``request_timeout_s``, ``base_url``) and the run directory. Credentials and
endpoints otherwise come the way the SDKs read them (``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``); keys are never copied into
the engine's state, the transcript or the records.
"""
from __future__ import annotations

import dataclasses
import json
import time

from harness.core.engine import EngineFault, EngineReply, EngineRequest, Usage, estimate_tokens
from harness.core.errors import HarnessError
from harness.engines.deadline import ReplyCut, ReplyDeadline, usage_in_prefix, watch
from harness.engines.limiter import Limiter
from harness.engines.retry import DeadlineReached, RetryPolicy, call_with_retry, classify


class LiveEngine:
    name = "live"
    provider = "live"

    def __init__(self, ctx):
        self.ctx = ctx
        self.role = ctx.role
        self.conf = {**(ctx.options.get("providers") or {}).get(self.provider, {})}
        self.model = ctx.model
        if not self.model:
            raise ValueError(f"the {self.provider} engine needs a model: --model ID, or model = ... on the arm "
                             "or as a factor in the protocol")
        self.policy = RetryPolicy.from_options(self.conf)
        self.limiter = Limiter.for_provider(self.provider, ctx.options)
        self.client = self.make_client()

    # -- provider-specific parts ----------------------------------------------------------------
    def make_client(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def to_wire(self, req: EngineRequest) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def send(self, wire: dict, timeout: float):  # -> (parsed object, raw http response)
        raise NotImplementedError

    def from_wire(self, obj) -> EngineReply:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def endpoint(self) -> str:
        return str(self.client.base_url)

    def _send_watched(self, wire: dict, timeout: float):
        """``send`` under a whole-reply deadline ``timeout`` seconds from now (harness/engines/deadline.py):
        a reply still arriving then is cut (``ReplyDeadline``, a timeout fault); a 2xx reply whose
        connection broke mid-body is a ``ReplyCut``. Either is marked billed when the request had been
        sent and no error status came back (``Watch.billable``), so the spend ledger charges it."""
        with watch(time.monotonic() + timeout) as w:
            try:
                return self.send(wire, timeout)
            except Exception as exc:
                fault = classify(exc)
                # the SDK was given the same ``timeout``: its own timeout (a read, a connect) fires no sooner than the
                # watch, and under load first; either is this deadline's cut (it was read as a cut connection)
                if w.fired or (fault is not None and fault.kind == "timeout"):
                    raise ReplyDeadline(f"ReplyTimeout: the reply was not complete within {timeout:.1f}s ("
                                        + ("cut after the provider started sending it" if w.reply_started
                                           else "cut before its status and headers were complete" if w.billable
                                           else "no reply yet") + ")", w.billable, self._cut_usage(w)) from exc
                if w.billable and fault is not None and fault.kind in ("connection", "timeout"):
                    what = f"a {w.status} reply" if w.status is not None else "the request (no status yet)"
                    raise ReplyCut(f"the connection broke after the provider received {what} "
                                   f"({fault.detail})", self._cut_usage(w)) from exc
                raise

    def usage_from_wire(self, u: dict | None) -> Usage | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _cut_usage(self, w) -> dict | None:
        """The usage the provider reported for a reply cut in transit, when its ``usage`` object was
        among the bytes that arrived (``usage_in_prefix``): what the provider bills for the reply."""
        return _counts(self, usage_in_prefix(bytes(w.received))) if w.reply_started else None

    # -- the engine interface --------------------------------------------------------------------
    def complete(self, req: EngineRequest) -> EngineReply:
        wire = self.to_wire(req)
        faults: list[dict] = []
        meta = {"endpoint": self.endpoint, "faults": faults, "limiter_wait_s": 0.0}
        est = estimate_tokens(json.dumps(wire.get("messages", []), default=str) + str(wire.get("system", ""))) \
            + req.max_tokens
        holder = {}

        def send(timeout: float):
            ticket, waited = self.limiter.acquire(est)
            meta["limiter_wait_s"] += waited
            holder["ticket"] = ticket
            if req.deadline is not None:
                timeout = min(timeout, req.deadline - time.monotonic())
                if timeout <= 0:
                    raise DeadlineReached("wall-clock deadline reached while waiting for the rate limiter")
            obj, http = self._send_watched(wire, timeout)
            meta["status"] = http.status_code
            meta["request_id"] = http.headers.get("request-id") or http.headers.get("x-request-id")
            try:
                meta["response"] = json.loads(http.text)
            except ValueError:
                meta["response"] = http.text[:2000]
            holder["wire_usage"] = meta["response"].get("usage") if isinstance(meta["response"], dict) else None
            return obj

        def check(obj):
            reply = self.from_wire(obj)  # raises ValueError/KeyError/TypeError on a malformed body
            # the usage as the provider sent it: the SDK's parse coerces (``true`` becomes 1)
            reply.usage = self.usage_from_wire(holder.get("wire_usage")) or Usage(missing=1)
            holder["reply"] = reply

        try:
            call_with_retry(send, self.policy, deadline=req.deadline, faults=faults,
                            what=f"{self.provider} {req.role} request", check=_as_malformed(check, lambda _obj: _counts(self, holder.get("wire_usage"))))
        except DeadlineReached as exc:
            meta["deadline"] = str(exc)
            cut = getattr(exc.__cause__, "usage", None)
            if cut is not None:
                meta["deadline_usage"] = cut  # the in-flight reply's usage arrived before the cut
            return EngineReply("", [], Usage(), "deadline", self.model, meta)
        except EngineFault as exc:
            exc.wire = meta
            raise
        reply = holder["reply"]
        reply.raw = meta
        self.limiter.settle(holder.get("ticket"), reply.usage.total + reply.usage.cache_read_tokens
                            + reply.usage.cache_write_tokens)
        return reply


def token_count(value, optional: bool = False) -> int:
    """A provider's token count: a JSON integer (not a bool, float or string), at least 0; absent
    (None) is 0 when ``optional``. Anything else raises ValueError: reading ``true`` as 1, 99.9 as 99
    or -5 as -5 would charge a reply less than the provider may bill, so its usage is unknown and
    the send is charged its booking (``Usage.missing``)."""
    if value is None and optional:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"token count {value!r} is not a non-negative integer")
    return value


def _counts(engine, wire_usage: dict | None) -> dict | None:
    """``engine.usage_from_wire(wire_usage)`` as a dict of counts, or None when it is missing or holds
    anything but non-negative integers (negative counts would lower the charge): then the send is
    charged its booking, as if no usage had arrived."""
    try:
        u = engine.usage_from_wire(wire_usage)
    except (TypeError, ValueError, AttributeError):
        return None
    fields = None if u is None else dataclasses.asdict(u)
    return fields if fields and min(fields.values()) >= 0 else None


class MalformedReply(HarnessError, ValueError):
    """A reply that arrived whole but is unusable; ``usage``: its provider-reported usage, if it had one."""
    usage: dict | None = None


def _as_malformed(check, reported=None):
    """``check`` raising MalformedReply, carrying ``reported(obj)``: the usage the discarded reply
    reported (it was billed; charged exactly that, else its booking)."""
    def wrapped(obj):
        try:
            check(obj)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            err = MalformedReply(f"malformed reply: {type(exc).__name__}: {exc}")
            err.usage = reported(obj) if reported is not None else None
            raise err from exc
    return wrapped
