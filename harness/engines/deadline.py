"""A deadline on a whole reply, enforced outside the SDKs (issue 25).

The SDKs' ``timeout`` bounds each socket read, not the reply: a provider dripping one byte a
second never trips it, so ``request_timeout_s = 3`` let such a call run 30 s and an A2p cell
with ``wall_budget_s = 10`` run 25-53 s. Here every request a live engine sends goes through
``DeadlineTransport`` (an httpx transport like the SDK's usual one): while a send is watched
(``watch(deadline)``, set by harness/engines/live.py for the current thread), a timer shuts the
connection's socket down at the deadline, so the read in progress fails at once and the send
raises ``ReplyDeadline``. The watch also records whether the provider had started sending a
2xx reply (its headers arrived): such a reply, cut by the deadline or by a connection reset
mid-body, was generated and is billed by the provider, so it is charged (harness/spend.py:
``unseen_billed``), never counted free.

The connection's socket is handed to the watch at every read and write (``_WatchedBackend``), so
a reply whose status line and headers drip in is cut at the deadline too.
"""
from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from dataclasses import dataclass, field

from harness.errors import HarnessError

_current = threading.local()


@dataclass
class Watch:
    """One send's deadline (``time.monotonic()``) and what happened to it."""
    deadline: float
    status: int | None = None  # the reply's HTTP status, once its headers arrived
    fired: bool = False  # the deadline passed while the reply was in flight
    sock: socket.socket | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def reply_started(self) -> bool:
        """The provider began sending a successful reply: it generated it, and bills it."""
        return self.status is not None and 200 <= self.status < 300

    def fire(self) -> None:
        with self.lock:
            self.fired = True
            sock = self.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read: the reply is cut here


class ReplyDeadline(HarnessError):
    """The whole-reply deadline passed (a ``timeout`` fault; ``billed`` when the reply had started)."""

    def __init__(self, message: str, billed: bool):
        super().__init__(message)
        self.billed = billed


class ReplyCut(HarnessError, ConnectionError):
    """The connection broke after the provider started sending a 2xx reply (billed, never read)."""
    billed = True


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
        def __init__(self, inner, timer: threading.Timer):
            self.inner, self.timer = inner, timer

        def __iter__(self):
            yield from self.inner

        def close(self) -> None:
            self.timer.cancel()
            close = getattr(self.inner, "close", None)
            if close is not None:
                close()

    class DeadlineTransport(hx.BaseTransport):
        """Wraps the SDK's transport: a watched request's connection is shut down at its deadline."""

        def __init__(self):
            self.inner = hx.HTTPTransport(limits=hx.Limits(max_connections=1000, max_keepalive_connections=100))
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
            resp.stream = _WatchedStream(resp.stream, timer)
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
        return self.inner.write(buffer, timeout)

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


_TRANSPORTS: dict[str, type] = {}


def http_client(sdk_module):
    """The SDK's default httpx client (its timeouts, redirects, headers) over a deadline transport."""
    base = next(c for c in sdk_module.DefaultHttpxClient.__mro__[1:] if c.__name__ == "Client")
    hx = sys.modules[base.__module__.partition(".")[0]]
    if hx.__name__ not in _TRANSPORTS:
        _TRANSPORTS[hx.__name__] = _classes(hx)
    return sdk_module.DefaultHttpxClient(transport=_TRANSPORTS[hx.__name__]())


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
        from harness.engine import EngineFault
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
