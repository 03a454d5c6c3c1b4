"""Retrying infrastructure faults for live engines, and telling them apart from budget stops.

A live engine calls the provider through ``call_with_retry``. The SDKs' own retries are turned
off (``max_retries=0``) so that every attempt is visible, counted and written to the transcript.

Retried (backoff with full jitter, ``retry-after`` respected, up to ``max_retries`` retries):
429 rate limit, 408, 409, 529 overloaded and every other 5xx, timeouts that were not caused by
the cell's wall-clock deadline, dropped or reset connections, and a malformed response body.
Not retried: other 4xx (bad request, not found): the cell is void at once with the status.
Authentication (401, 403) raises ``EngineAuthError``: the run stops (harness.run.driver).

After the last retry the call raises ``EngineFault`` (the cell is void with the reason and is
rerun per the protocol's rerun policy). A request cancelled because the cell's wall-clock
deadline arrived is not a fault: it raises ``DeadlineReached`` and the engine turns it into an
empty reply with ``stop_reason = "deadline"`` (the budget binds; the record says so). A retry
wait that would run past the deadline is a fault, not a budget stop: the outcome would
otherwise be decided by the provider's availability rather than the agent.
"""
from __future__ import annotations

import email.utils
import json
import random
import time
from dataclasses import dataclass, field
from typing import Callable

from harness.core.engine import EngineAuthError, EngineFault
from harness.core.errors import HarnessError

RETRY_DEFAULTS = {"max_retries": 6, "backoff_base_s": 1.0, "backoff_max_s": 60.0, "request_timeout_s": 600.0}
RETRYABLE_STATUS = {408, 409, 429}


class DeadlineReached(HarnessError):
    """The cell's wall-clock deadline arrived before or during the request."""


@dataclass
class Fault:
    kind: str  # "status" | "timeout" | "connection" | "malformed"
    detail: str
    status: int | None = None
    retry_after: float | None = None
    retryable: bool = True
    billed: bool | None = None  # the provider had started sending a 2xx reply: it is billed (harness.ledger.spend)
    usage: dict | None = None  # a billed reply's usage, when it arrived before the cut (charged as reported)

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class RetryPolicy:
    max_retries: int = 6
    backoff_base_s: float = 1.0
    backoff_max_s: float = 60.0
    request_timeout_s: float = 600.0
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)

    @classmethod
    def from_options(cls, opts: dict) -> "RetryPolicy":
        vals = {**RETRY_DEFAULTS, **{k: opts[k] for k in RETRY_DEFAULTS if k in opts}}
        return cls(max_retries=int(vals["max_retries"]), backoff_base_s=float(vals["backoff_base_s"]),
                   backoff_max_s=float(vals["backoff_max_s"]), request_timeout_s=float(vals["request_timeout_s"]))

    def delay(self, retry: int, fault: Fault) -> float:
        """Full jitter over an exponential ceiling; never shorter than the server's retry-after."""
        ceiling = min(self.backoff_max_s, self.backoff_base_s * (2 ** retry))
        d = self.rng.uniform(0, ceiling)
        if fault.retry_after is not None:
            d = max(d, fault.retry_after)
        return d


def parse_retry_after(headers) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(ra)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def classify(exc: BaseException) -> Fault | None:
    """Map an exception from either SDK (or the JSON layer) to a Fault; None if it is not one."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if status is not None and hasattr(exc, "response"):
        headers = getattr(exc.response, "headers", None)
        retryable = status in RETRYABLE_STATUS or status >= 500
        kind = "auth" if status in (401, 403) else "status"
        return Fault(kind, f"HTTP {status} {name}: {str(exc)[:300]}", status, parse_retry_after(headers), retryable)
    if name == "ReplyDeadline":  # the whole-reply deadline cut it (harness/engines/deadline.py)
        return Fault("timeout", str(exc), billed=bool(getattr(exc, "billed", False)) or None,
                     usage=getattr(exc, "usage", None))
    if name == "ReplyCut":
        return Fault("connection", f"{name}: {exc}", billed=True, usage=getattr(exc, "usage", None))
    if name == "APITimeoutError" or "Timeout" in name:
        return Fault("timeout", f"{name}: {exc}")
    if name == "APIConnectionError" or isinstance(exc, (ConnectionError, OSError)):
        cause = exc.__cause__ or exc.__context__
        return Fault("connection", f"{name}: {exc}" + (f" ({type(cause).__name__}: {cause})" if cause else ""))
    if name in ("APIResponseValidationError", "MalformedReply") or isinstance(exc, (json.JSONDecodeError, UnicodeDecodeError)):
        return Fault("malformed", f"{name}: {str(exc)[:300]}", usage=getattr(exc, "usage", None))
    return None


def call_with_retry(send: Callable[[float], object], policy: RetryPolicy, *, deadline: float | None,
                    faults: list[dict], what: str = "request", on_fault: Callable[[Fault, float], None] | None = None,
                    check: Callable[[object], None] | None = None):
    """Call ``send(timeout_s)`` until it succeeds; returns its result.

    ``faults`` collects every fault seen (for the transcript). ``check`` may raise on a reply that
    arrived but is unusable (a malformed body the SDK accepted); it is treated as a retryable fault.
    """
    retry = 0
    while True:
        timeout = policy.request_timeout_s
        deadline_limited = False
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DeadlineReached(f"wall-clock deadline reached before the {what}")
            if left < timeout:
                timeout, deadline_limited = left, True
        try:
            result = send(timeout)
            if check is not None:
                check(result)
            return result
        except DeadlineReached:
            raise
        except Exception as exc:  # noqa: BLE001 - classified below, unknown errors propagate
            fault = classify(exc)
            if fault is None:
                raise
            if fault.kind == "timeout" and deadline is not None and deadline_limited and time.monotonic() >= deadline - 0.05:
                raise DeadlineReached(f"wall-clock deadline cancelled the in-flight {what}") from exc
        faults.append({**fault.as_dict(), "retry": retry})
        if fault.kind == "auth":
            raise EngineAuthError(f"{what}: the provider refused the credentials ({fault.detail})")
        if not fault.retryable:
            raise EngineFault(f"{what}: non-retryable {fault.detail}")
        if retry >= policy.max_retries:
            raise EngineFault(f"{what}: gave up after {retry} retries; last fault: {fault.detail}")
        wait = policy.delay(retry, fault)
        if deadline is not None and time.monotonic() + wait >= deadline:
            raise EngineFault(f"{what}: infrastructure fault with the wall-clock deadline too close to retry "
                              f"(would wait {wait:.1f}s); last fault: {fault.detail}")
        if on_fault:
            on_fault(fault, wait)
        policy.sleep(wait)
        retry += 1
