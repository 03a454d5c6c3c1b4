"""Red team of issue 25 through the real SDKs: a reply whose status line and headers drip in (every
read returns a byte well inside the SDK's per-read timeout) must still be cut at the whole-reply
deadline: before this, the deadline's timer had no socket to shut until the headers were complete,
so such a reply was bounded by nothing.

Formerly ``tests/engines/test_redteam_issue25.py``, named after its origin."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from harness.engines import EngineContext, make_engine
from tests.harness.engines.test_wire import worker_request

FLAVORS = ["anthropic", "openai"]
DRIP_FOR_S = 120.0  # how long the server keeps dripping header bytes when nobody cuts it


class HeaderDrip:
    """A server on 127.0.0.1 that answers every request with a status line and headers sent one
    byte at a time, never finishing them within DRIP_FOR_S."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.stop = threading.Event()
        self.cut = threading.Event()  # the client closed a connection mid-headers
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn):
        conn.recv(1 << 16)
        head = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-pad: " + b"a" * 100000
        t0 = time.monotonic()
        try:
            for i in range(len(head)):
                if self.stop.is_set() or time.monotonic() - t0 > DRIP_FOR_S:
                    break
                conn.sendall(head[i:i + 1])
                time.sleep(0.2)
        except OSError:
            self.cut.set()
        finally:
            conn.close()

    def close(self):
        self.stop.set()
        self.sock.close()


@pytest.mark.parametrize("bound", ["request_timeout_s", "cell deadline"])
@pytest.mark.parametrize("flavor", FLAVORS)
def test_a_reply_whose_headers_drip_is_cut_at_the_whole_reply_deadline(flavor, bound, tasks, monkeypatch):
    from harness.core.engine import EngineFault
    srv = HeaderDrip()
    host, port = srv.sock.getsockname()
    monkeypatch.setenv(f"{flavor.upper()}_BASE_URL", f"http://{host}:{port}" + ("/v1" if flavor == "openai" else ""))
    monkeypatch.setenv(f"{flavor.upper()}_API_KEY", "sk-test-loopback")
    timeout = 2.0 if bound == "request_timeout_s" else 600.0
    deadline = None if bound == "request_timeout_s" else 2.0
    try:
        eng = make_engine(flavor, EngineContext("worker", tasks[0], {}, "seed", model="m", options={
            "providers": {flavor: {"request_timeout_s": timeout, "max_retries": 0}}}))
        t0 = time.monotonic()
        try:
            reply = eng.complete(worker_request(tasks[0], deadline=deadline and time.monotonic() + deadline))
        except EngineFault as exc:
            reply = exc
        elapsed = time.monotonic() - t0
    finally:
        srv.close()
    assert elapsed < DRIP_FOR_S / 2, f"the call took {elapsed:.0f}s: the deadline did not cut the dripping headers"
    if bound == "request_timeout_s":  # a timeout fault (retried per the policy; here none left)
        assert isinstance(reply, EngineFault) and "ReplyTimeout" in str(reply)
        assert "cut before its status and headers were complete" in str(reply)  # sent, so charged (issue 34)
    else:  # the cell's wall-clock deadline binds: a deadline reply, not a fault
        assert not isinstance(reply, EngineFault), reply
        assert reply.stop_reason == "deadline" and reply.tool_calls == []


def test_the_sdks_own_timeout_before_the_watch_is_the_deadlines_cut_not_a_cut_connection():
    """The SDK is handed the same timeout as the whole-reply watch; under load its own timeout fired first, after the
    request was sent, and was read as a cut connection (``ReplyCut``, a connection fault): the wall-clock deadline then
    raised an infrastructure fault instead of stopping the turn (test_wire's
    test_wall_clock_deadline_cancels_the_in_flight_request, flaky under load). Whichever fires first, it is the
    deadline's: a ``ReplyDeadline`` (a timeout fault), billed as the watch's would be."""
    from harness.engines import deadline
    from harness.engines.live import LiveEngine
    from harness.engines.retry import classify

    class APITimeoutError(Exception):   # the SDKs' timeout, by the name classify reads
        pass

    class Stub:
        def send(self, wire, timeout):
            deadline._current.watch.request_sent = True     # the request reached the socket; no status yet
            raise APITimeoutError("Request timed out.")

        def _cut_usage(self, w):
            return None

    with pytest.raises(deadline.ReplyDeadline) as caught:
        LiveEngine._send_watched(Stub(), {}, 30.0)          # the watch has not fired: the SDK's timeout came first
    fault = classify(caught.value)
    assert fault.kind == "timeout" and caught.value.billed is True
