"""Issue 25: a proxy in the environment (HTTP_PROXY, ALL_PROXY) neither bypasses the whole-reply
deadline nor is silently bypassed itself. httpx ignores the environment's proxies once a client is
given a transport, so the live engines went straight to the provider whatever the proxy said; now
every request goes through the proxy and a reply dripping through it is still cut at
``request_timeout_s``. A proxy the engines cannot use (SOCKS) is bad input before the run.

Formerly ``tests/engines/test_proxy_issue25.py``, named after its origin."""
from __future__ import annotations

import select
import socket
import socketserver
import threading
import time

import pytest

from tests.harness.engines.test_wire import live, worker_request  # noqa: F401

PROXY_VARS = [v for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY") for v in (name, name.lower())]


class _ForwardProxy(socketserver.BaseRequestHandler):
    """A plain HTTP forward proxy: reads the absolute-form request line, connects to its host and
    relays bytes both ways until either side closes."""

    def handle(self):
        client, buf = self.request, b""
        while b"\r\n" not in buf:
            data = client.recv(65536)
            if not data:
                return
            buf += data
        line, rest = buf.split(b"\r\n", 1)
        method, url, version = line.split(b" ")
        self.server.seen.append(url.decode())
        hostport, _, path = url.removeprefix(b"http://").partition(b"/")
        host, _, port = hostport.partition(b":")
        upstream = socket.create_connection((host.decode(), int(port)))
        upstream.sendall(b" ".join([method, b"/" + path, version]) + b"\r\n" + rest)
        try:
            while True:
                ready, _, _ = select.select([client, upstream], [], [], 120)
                if not ready:
                    return
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    (upstream if s is client else client).sendall(data)
        except OSError:
            return
        finally:
            upstream.close()


@pytest.fixture
def proxy():
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _ForwardProxy)
    server.daemon_threads = True
    server.seen = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("var", ["HTTP_PROXY", "all_proxy"])
def test_a_reply_dripping_through_a_proxy_is_cut_at_the_deadline(tasks, live, proxy, monkeypatch, var):  # noqa: F811
    _, lb, make, _ = live
    for v in PROXY_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv(var, f"http://127.0.0.1:{proxy.server_address[1]}")
    eng = make(request_timeout_s=2.0, max_retries=1)
    lb.queue(("drip", 1.0))
    t0 = time.monotonic()
    reply = eng.complete(worker_request(tasks[0]))
    elapsed = time.monotonic() - t0
    assert reply.tool_calls  # the retry, through the proxy too, got the whole reply
    faults = reply.raw["faults"]
    assert [f["kind"] for f in faults] == ["timeout"] and faults[0]["billed"] is True
    assert lb.dripped < 100 and elapsed < 60  # the dripped body is ~1000 bytes (~1000 s): it was cut
    assert len(proxy.seen) == 2 and all(u.startswith(lb.url) for u in proxy.seen)  # both went through it


def test_no_proxy_for_the_provider_goes_direct(tasks, live, proxy, monkeypatch):  # noqa: F811
    _, lb, make, _ = live
    for v in PROXY_VARS:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    assert make().complete(worker_request(tasks[0])).tool_calls
    assert proxy.seen == []


def test_proxy_problem_names_the_variable_and_never_its_credentials():
    from harness.engines.deadline import proxy_problem
    assert proxy_problem({"HTTPS_PROXY": "http://proxy:3128", "ALL_PROXY": "https://p:1"}) is None
    var, why = proxy_problem({"all_proxy": "socks5h://u:secret@p:1080"})
    assert var == "all_proxy" and "socks5h proxy is not supported" in why and "secret" not in why


def test_a_socks_proxy_is_bad_input_before_the_run(tmp_path, monkeypatch):
    from tests.harness.engines.test_cli_runs import harness, write_proto
    out = tmp_path / "run"
    env = {v: "" for v in PROXY_VARS}
    p = harness(str(write_proto(tmp_path, "openai")), "--out", str(out), "--model", "gpt-x", "--exploratory",
                env_extra={**env, "ALL_PROXY": "socks5://user:hunter2@127.0.0.1:1080"})
    assert p.returncode == 2, p.stderr
    (line,) = [x for x in p.stderr.splitlines() if x.strip()]
    assert line.startswith("error: environment: ALL_PROXY: a socks5 proxy is not supported") and "hunter2" not in line
    assert not (out / "records.jsonl").exists()
