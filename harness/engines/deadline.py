"""A deadline on a whole reply, enforced outside the SDKs (issue 25).

The SDKs' ``timeout`` bounds each socket read, not the reply: a provider dripping one byte a
second never trips it, so ``request_timeout_s = 3`` let such a call run 30 s and an A2p cell
with ``wall_budget_s = 10`` run 25-53 s. Here every request a live engine sends goes through
``DeadlineTransport`` (an httpx transport like the SDK's usual one): while a send is watched
(``watch(deadline)``, set by harness/engines/live.py for the current thread), a timer shuts the
connection's socket down at the deadline, so the read in progress fails at once and the send
raises ``ReplyDeadline``. The watch also records whether the request was sent and whether the
provider had started sending a 2xx reply (its headers arrived): a send cut at any point after the
request left (while the status line or headers drip in, mid-body, before the usage) may have been
generated and billed by the provider, so it is charged its booking, an upper bound
(harness.ledger.spend: ``unseen_billed``; ``Watch.billable``), never counted free.

The connection's socket is handed to the watch at every read and write (``_WatchedBackend``), so
a reply whose status line and headers drip in is cut at the deadline too.

The bytes of a reply's body that arrived before a cut are kept (``Watch.received``, at most
``RECEIVED_CAP``): when the provider's ``usage`` object is among them (``usage_in_prefix``), the
cut reply is charged exactly what the provider bills for it (the usage of the whole reply: a
non-streamed reply is generated before its first byte is sent), not its booking.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass, field

from harness.core.errors import HarnessError

_current = threading.local()
RECEIVED_CAP = 4 << 20  # bytes of a reply body kept for ``usage_in_prefix``; a reply is far smaller


@dataclass
class Watch:
    """One send's deadline (``time.monotonic()``) and what happened to it."""
    deadline: float
    status: int | None = None  # the reply's HTTP status, once its headers arrived
    fired: bool = False  # the deadline passed while the reply was in flight
    sock: socket.socket | None = None
    received: bytearray = field(default_factory=bytearray)  # the body's first bytes (RECEIVED_CAP)
    lock: threading.Lock = field(default_factory=threading.Lock)

    request_sent: bool = False  # a write of the request reached the socket: the provider may act on it

    @property
    def reply_started(self) -> bool:
        """The provider began sending a successful reply: it generated it, and bills it."""
        return self.status is not None and 200 <= self.status < 300

    @property
    def billable(self) -> bool:
        """The provider may bill this send: a 2xx reply began, or the request was sent and no status
        arrived (cut while the status line or headers dripped in, or reset before them: the reply
        may have been generated). Charged its booking, an upper bound, unless its usage arrived:
        spend.json never undercounts (issue 34). A non-2xx status is an error reply: not billed."""
        return self.reply_started or (self.status is None and self.request_sent)

    def fire(self) -> None:
        with self.lock:
            self.fired = True
            sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read: the reply is cut here


class ReplyDeadline(HarnessError):
    """The whole-reply deadline passed (a ``timeout`` fault; ``billed`` when the reply had started;
    ``usage``: the harness's usage fields of the provider's usage object, when it arrived before the cut)."""

    def __init__(self, message: str, billed: bool, usage: dict | None = None):
        super().__init__(message)
        self.billed, self.usage = billed, usage


class ReplyCut(HarnessError, ConnectionError):
    """The connection broke after the provider started sending a 2xx reply (billed, never read whole;
    ``usage`` as for ``ReplyDeadline``)."""
    billed = True

    def __init__(self, message: str, usage: dict | None = None):
        super().__init__(message)
        self.usage = usage


@contextlib.contextmanager
def watch(deadline: float):
    """Watch the sends this thread makes until the block ends; yields the ``Watch``."""
    w = Watch(deadline)
    prev = getattr(_current, "watch", None)
    _current.watch = w
    try:
        yield w
    finally:
        _current.watch = prev


def _classes(hx):
    """The stream and transport classes over the httpx module ``hx`` an SDK uses (``httpx``, or
    ``httpx2`` in newer SDKs, which refuse objects of the other package)."""

    class _WatchedStream(hx.SyncByteStream):
        def __init__(self, inner, timer: threading.Timer, w: Watch):
            self.inner, self.timer, self.w = inner, timer, w

        def __iter__(self):
            for chunk in self.inner:
                if len(self.w.received) < RECEIVED_CAP:
                    self.w.received += chunk[:RECEIVED_CAP - len(self.w.received)]
                yield chunk

        def close(self) -> None:
            self.timer.cancel()
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()

    class DeadlineTransport(hx.BaseTransport):
        """Wraps the SDK's transport: a watched request's connection is shut down at its deadline."""

        def __init__(self, proxy: str | None = None):
            self.inner = hx.HTTPTransport(limits=hx.Limits(max_connections=1000, max_keepalive_connections=100),
                                          proxy=proxy)
            pool = getattr(self.inner, "_pool", None)
            if pool is not None and getattr(pool, "_network_backend", None) is not None:
                pool._network_backend = _WatchedBackend(pool._network_backend)

        def handle_request(self, request):
            w: Watch | None = getattr(_current, "watch", None)
            if w is None:
                return self.inner.handle_request(request)
            timer = threading.Timer(max(0.0, w.deadline - time.monotonic()), w.fire)
            timer.daemon = True
            timer.start()
            try:
                resp = self.inner.handle_request(request)
            except BaseException:
                timer.cancel()
                raise
            _note_headers(w, resp)
            resp.stream = _WatchedStream(resp.stream, timer, w)
            return resp

        def close(self) -> None:
            self.inner.close()

    return DeadlineTransport


class _WatchedStream_:
    """A connection's network stream that hands its socket to the watch of the thread using it, at
    every read and write: the deadline's timer can then cut a reply whose status line and headers
    are still dripping in (every read inside the SDK's per-read timeout), on a new or a reused
    connection. Without it the socket was known only once the headers were complete."""

    def __init__(self, inner):
        self.inner = inner

    def _attach(self) -> None:
        w: Watch | None = getattr(_current, "watch", None)
        if w is None:
            return
        sock = self.inner.get_extra_info("socket")
        with w.lock:
            w.sock = sock
            fired = w.fired
        if fired and sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def read(self, max_bytes, timeout=None):
        self._attach()
        return self.inner.read(max_bytes, timeout)

    def write(self, buffer, timeout=None):
        self._attach()
        out = self.inner.write(buffer, timeout)
        w: Watch | None = getattr(_current, "watch", None)
        if w is not None:
            w.request_sent = True
        return out

    def close(self):
        return self.inner.close()

    def start_tls(self, *args, **kwargs):
        return _WatchedStream_(self.inner.start_tls(*args, **kwargs))

    def get_extra_info(self, info):
        return self.inner.get_extra_info(info)


class _WatchedBackend:
    """The connection pool's network backend, its streams wrapped in ``_WatchedStream_``."""

    def __init__(self, inner):
        self.inner = inner

    def connect_tcp(self, *args, **kwargs):
        return _WatchedStream_(self.inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args, **kwargs):
        return _WatchedStream_(self.inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


def _note_headers(w: Watch, resp) -> None:
    """The reply's headers arrived: keep its status and socket (shut at once if the deadline passed)."""
    stream = resp.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    with w.lock:
        w.status, w.sock = resp.status_code, sock
        fired = w.fired
    if fired and sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def usage_in_prefix(data: bytes) -> dict | None:
    """The top-level ``usage`` object of a JSON reply body from the bytes that arrived before a cut,
    or None when it had not arrived whole. Only a key at depth 1 counts: the same word inside the
    model's text or a tool call's arguments (strings, or deeper objects) is never taken for it. A
    second top-level ``usage`` key in the prefix (a JSON parser keeps the last, which may not have
    arrived) makes it ambiguous: None, so the reply is charged its booking, never the smaller one."""
    text = data.decode("utf-8", "replace")
    depth, i, n = 0, 0, len(text)
    key_pending = False  # the last token at depth 1 was a string that may be a key
    last, found = "", None
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break
            if depth == 1:  # the key as a JSON parser reads it ("usag\\u0065" is usage)
                last, key_pending = _json_string(text[i:j + 1]), True
            i = j + 1
            continue
        if c == ":" and depth == 1 and key_pending and last == "usage":
            if found is not None:
                return None
            found = i + 1
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        if not c.isspace():
            key_pending = False
        i += 1
    return None if found is None else _object_at(text, found)


def _json_string(token: str) -> str:
    """A JSON string token's value (escapes decoded); the raw token when it is not valid JSON."""
    try:
        value = json.loads(token)
    except ValueError:
        return token
    return value if isinstance(value, str) else token


def _object_at(text: str, at: int) -> dict | None:
    """The JSON object starting at ``text[at:]`` (after blanks), or None; non-finite numbers
    (``Infinity``, ``NaN``, which Python's json reads) are refused, never counts."""
    def refuse(name):
        raise ValueError(f"{name} is not a JSON number")
    try:
        value, _ = json.JSONDecoder(parse_constant=refuse).raw_decode(text[at:].lstrip())
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


_TRANSPORTS: dict[str, type] = {}


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")  # and their lower-case forms
PROXY_SCHEMES = ("http", "https")  # a SOCKS proxy needs the optional socksio package: refused


def proxy_problem(environ=None) -> tuple[str, str] | None:
    """(variable, why) for a proxy in the environment the deadline transport cannot go through (a
    scheme other than http/https), else None. Checked before a run (``harness.run.driver``) so that it is
    bad input, not a void in every cell; the URL is not repeated (it may carry credentials)."""
    env = os.environ if environ is None else environ
    for var in PROXY_VARIABLES:
        for name in (var, var.lower()):
            url = env.get(name)
            if url and "://" in url and url.split("://", 1)[0].lower() not in PROXY_SCHEMES:
                return name, (f"a {url.split('://', 1)[0]} proxy is not supported by the live engines (they "
                              f"honour {'/'.join(s + '://' for s in PROXY_SCHEMES)} proxies, under the whole-reply "
                              "deadline); unset it or use an HTTP proxy")
            if url and not _readable_url(url if "://" in url else "http://" + url):
                return name, ("is not a proxy URL the live engines can read (its host or port is malformed; "
                              "httpx refuses it in every cell); fix or unset it")
    return None


def _readable_url(url: str) -> bool:
    """A proxy URL with a host and, if given, a port number (as httpx reads ``HTTP_PROXY``: a value
    without a scheme is an http URL); the URL itself is never repeated (it may carry a password)."""
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        return False
    return bool(parts.hostname)


def _proxy_mounts(hx, transport_cls) -> dict:
    """A deadline transport for every proxy the environment names (``HTTP(S)_PROXY``, ``ALL_PROXY``,
    ``NO_PROXY``, as httpx reads them): httpx ignores the environment's proxies once a client is
    given a transport, so without these mounts a proxy was silently bypassed; with them every
    request goes through the proxy and its reply stays under the deadline."""
    get = getattr(getattr(hx, "_utils", None), "get_environment_proxies", None)
    if get is None:
        if any(os.environ.get(v) or os.environ.get(v.lower()) for v in PROXY_VARIABLES):
            raise ValueError(f"a proxy is set in the environment but this {hx.__name__} does not say how it reads "
                             "them; unset HTTP_PROXY/HTTPS_PROXY/ALL_PROXY")
        return {}
    problem = proxy_problem()
    if problem is not None:
        raise ValueError(f"{problem[0]}: {problem[1]}")
    return {pattern: None if url is None else transport_cls(proxy=url) for pattern, url in get().items()}


def http_client(sdk_module):
    """The SDK's default httpx client (its timeouts, redirects, headers) over a deadline transport,
    directly or through the environment's proxies (``_proxy_mounts``)."""
    base = next(c for c in sdk_module.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    hx = sys.modules[base.__module__.partition(".")[0]]
    if hx.__name__ not in _TRANSPORTS:
        _TRANSPORTS[hx.__name__] = _classes(hx)
    cls = _TRANSPORTS[hx.__name__]
    return sdk_module.DefaultHttpxClient(transport=cls(), mounts=_proxy_mounts(hx, cls))


class CellDeadline:
    """Wraps a cell's engine (outermost, around the spend ceiling): every call's deadline is at most
    the cell's overall deadline (``[limits] cell_deadline_s`` from the cell's start), so a reply
    still arriving then is cut; a call at or past it, or one the cell deadline cut, raises
    ``EngineFault``: the cell is void with that reason (an engine fault, rerun per the policy)."""

    def __init__(self, inner, seconds: float, started: float | None = None):
        self.inner, self.seconds = inner, float(seconds)
        self.deadline = (time.monotonic() if started is None else started) + self.seconds
        self.name = getattr(inner, "name", "engine")
        self.transcript = getattr(inner, "transcript", None)

    def _fault(self):
        from harness.core.engine import EngineFault
        return EngineFault(f"cell deadline: the cell's engine calls ran past its overall deadline "
                           f"({self.seconds:g}s, [limits] cell_deadline_s)")

    def complete(self, req):
        import dataclasses
        if time.monotonic() >= self.deadline:
            raise self._fault()
        cell_binds = req.deadline is None or self.deadline < req.deadline
        reply = self.inner.complete(dataclasses.replace(req, deadline=self.deadline) if cell_binds else req)
        if cell_binds and reply.stop_reason == "deadline":
            raise self._fault()
        return reply
