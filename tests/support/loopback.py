"""A loopback model server on 127.0.0.1 speaking the Anthropic Messages or OpenAI Chat Completions
wire format, for driving the real SDK clients in tests.

The "model" is the simulated agent (harness.engines.simulated) behind the wire: the server
decodes the provider's request into the harness's messages, identifies the task from the prompt,
lets the simulated worker or reviewer propose the next turn (list_files, read_file, write_file
with a correct or wrong candidate from the task's bank, run_acceptance, finish; or a JSON
verdict), and encodes the reply in the provider's format with a usage block and a dated model
snapshot id. Faults are queued per request: 429 with retry-after, 529 overloaded, 500, a
dropped connection, a malformed body, a truncated body, a slow reply, a 400.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness.core.engine import EngineRequest, Message, ToolCall, ToolSpec
from harness.engines import EngineContext
from harness.engines.simulated import SimulatedEngine

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
SECRET = "sk-ant-test-SECRET-9f8e7d6c5b4a3928"
OPENAI_SECRET = "sk-test-OPENAI-SECRET-0a1b2c3d4e5f"
PLANTED = "PLANTED-ENV-SECRET-VALUE-77421"

PROTO = """
[protocol]
name = "{name}"
seed = 7
repeats = 1
tasks_dir = "{tasks}"
tasks = {tasks_list}
scenarios = {scenarios}
engine = "{engine}"

{arms}

[pricing."{price_model}"]
date = "2025-10-01"
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75

[providers.{engine}]
max_retries = {max_retries}
backoff_base_s = 0.01
backoff_max_s = 0.05
requests_per_minute = 1000
tokens_per_minute = 10000000

[limits]
test_timeout_s = 60
max_turns = 12
max_tokens = 4096

[rerun]
max_reruns = {max_reruns}
"""

ALL_ARMS = """
[arms.A1]
controller = "A1"

[arms.A2]
controller = "A2"

[arms.A2p]
controller = "A2p"
token_budget = 5000
wall_budget_s = 120.0

[arms.A3]
controller = "A3"

[arms.A4]
controller = "A4"
"""



def files_containing(root: Path, needle: str) -> list[str]:
    hits = []
    for f in Path(root).rglob("*"):
        if f.is_file() and needle.encode() in f.read_bytes():
            hits.append(str(f))
    return hits


SNAPSHOT = {"anthropic": "claude-loopback-4-5-20250929", "openai": "gpt-loopback-2025-08-07"}


class Loopback:
    def __init__(self, flavor: str, tasks: list, always: str | None = None):
        self.flavor = flavor
        self.tasks = tasks
        self.faults: deque = deque()
        self.always = always  # a fault served on every request (for exhaustion tests)
        self.lock = threading.Lock()
        self.requests: list[dict] = []  # {"path", "headers", "body"}
        self.model_id = SNAPSHOT[flavor]
        self.served = 0
        self.route = None  # optional callable(body) -> fault: a fault chosen per request (e.g. per task)
        self.billed: list[dict] = []  # the usage of every reply the "provider" generated, with how it was delivered
        self.dripped = 0  # bytes a ("drip", s) reply sent before the client cut it
        handler = type("H", (_Handler,), {"lb": self})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.flavor == "openai" else "")

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def queue(self, *faults):
        with self.lock:
            self.faults.extend(faults)

    def bill(self, reply: dict, delivered: str) -> None:
        """A reply was generated: the provider bills its usage whether or not the client read it all.
        The billing model docs/reference/spend.md states: a non-streamed reply is generated before its first byte
        is sent, so a reply cut in transit is billed as the whole reply (its usage)."""
        with self.lock:
            self.billed.append({"usage": reply.get("usage"), "delivered": delivered})

    def next_fault(self):
        with self.lock:
            if self.faults:
                return self.faults.popleft()
            return self.always

    # -- the model ---------------------------------------------------------------------------
    def task_for(self, text: str):
        for t in self.tasks:
            if t.prompt.strip()[:80] in text:
                return t
        raise KeyError("no task matches the prompt")

    def answer(self, body: dict) -> dict:
        msgs, system, tools = (decode_anthropic if self.flavor == "anthropic" else decode_openai)(body)
        role = "worker" if tools else "reviewer"
        first = next(m.content for m in msgs if m.role == "user")
        task = self.task_for(first)
        seed = hashlib.sha256(first.encode()).hexdigest()[:16]
        eng = SimulatedEngine(EngineContext(role=role, task=task, scenario={}, seed=seed, model="loopback"))
        max_tokens = body.get("max_tokens") or body.get("max_completion_tokens")
        reply = eng.complete(EngineRequest(role, system, msgs, tools, int(max_tokens)))
        return (encode_anthropic if self.flavor == "anthropic" else encode_openai)(reply, self.model_id)


def decode_anthropic(body):
    msgs = []
    for m in body["messages"]:
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if m["role"] == "user":
            for b in content:
                if b["type"] == "tool_result":
                    c = b.get("content", "")
                    if isinstance(c, list):
                        c = "".join(x.get("text", "") for x in c)
                    msgs.append(Message("tool", c, tool_call_id=b["tool_use_id"]))
                elif b["type"] == "text":
                    msgs.append(Message("user", b["text"]))
        else:
            text = "".join(b.get("text", "") for b in content if b["type"] == "text")
            calls = [ToolCall(b["id"], b["name"], b["input"]) for b in content if b["type"] == "tool_use"]
            msgs.append(Message("assistant", "" if text == "(no output)" else text, calls))
    system = body.get("system", "")
    if isinstance(system, list):
        system = "".join(b.get("text", "") for b in system)
    tools = [ToolSpec(t["name"], t.get("description", ""), t.get("input_schema", {})) for t in body.get("tools", [])]
    return msgs, system, tools


def decode_openai(body):
    msgs, system = [], ""
    for m in body["messages"]:
        if m["role"] in ("system", "developer"):
            system = m["content"]
        elif m["role"] == "user":
            msgs.append(Message("user", m["content"]))
        elif m["role"] == "tool":
            msgs.append(Message("tool", m["content"], tool_call_id=m["tool_call_id"]))
        else:
            calls = [ToolCall(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
                     for c in m.get("tool_calls") or []]
            msgs.append(Message("assistant", m.get("content") or "", calls))
    tools = [ToolSpec(t["function"]["name"], t["function"].get("description", ""), t["function"].get("parameters", {}))
             for t in body.get("tools", [])]
    return msgs, system, tools


def encode_anthropic(reply, model_id):
    content = ([{"type": "text", "text": reply.text}] if reply.text else []) + [
        {"type": "tool_use", "id": f"toolu_{c.id}", "name": c.name, "input": c.arguments} for c in reply.tool_calls]
    stop = {"tool_use": "tool_use", "end_turn": "end_turn", "max_tokens": "max_tokens"}[reply.stop_reason]
    u = reply.usage
    cached = u.input_tokens // 3
    return {"id": "msg_loop", "type": "message", "role": "assistant", "model": model_id, "content": content,
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": u.input_tokens - cached, "output_tokens": u.output_tokens,
                      "cache_read_input_tokens": cached, "cache_creation_input_tokens": 7}}


def encode_openai(reply, model_id):
    u = reply.usage
    cached = u.input_tokens // 4
    msg = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        msg["tool_calls"] = [{"id": f"call_{c.id}", "type": "function",
                              "function": {"name": c.name, "arguments": json.dumps(c.arguments)}} for c in reply.tool_calls]
    finish = {"tool_use": "tool_calls", "end_turn": "stop", "max_tokens": "length"}[reply.stop_reason]
    return {"id": "chatcmpl-loop", "object": "chat.completion", "created": int(time.time()), "model": model_id,
            "choices": [{"index": 0, "message": msg, "finish_reason": finish, "logprobs": None}],
            "usage": {"prompt_tokens": u.input_tokens, "completion_tokens": u.output_tokens,
                      "total_tokens": u.input_tokens + u.output_tokens,
                      "prompt_tokens_details": {"cached_tokens": cached},
                      "completion_tokens_details": {"reasoning_tokens": u.output_tokens // 5}}}


def _error_body(flavor, status, kind, message):
    if flavor == "anthropic":
        return {"type": "error", "error": {"type": kind, "message": message}}
    return {"error": {"message": message, "type": kind, "code": None, "param": None}}


class _Handler(BaseHTTPRequestHandler):
    lb: Loopback
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: bytes, headers: dict | None = None, length: int | None = None):
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_POST(self):
        lb = self.lb
        n = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(n)
        body = json.loads(raw)
        with lb.lock:
            lb.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": body})
        fault = lb.route(body) if lb.route is not None else lb.next_fault()
        if callable(fault):  # a test's own reply: fault(handler, body) generates, bills and sends it
            return fault(self, body)
        if isinstance(fault, tuple) and fault[0] == "slow":
            time.sleep(fault[1])
            fault = None
        if fault == "429":
            err = _error_body(lb.flavor, 429, "rate_limit_error", "slow down")
            return self._send(429, json.dumps(err).encode(), {"retry-after": "0.2"})
        if fault == "529":
            return self._send(529, json.dumps(_error_body(lb.flavor, 529, "overloaded_error", "Overloaded")).encode())
        if fault == "500":
            return self._send(500, json.dumps(_error_body(lb.flavor, 500, "api_error", "internal error")).encode())
        if fault == "400":
            return self._send(400, json.dumps(_error_body(lb.flavor, 400, "invalid_request_error", "bad request")).encode())
        if fault in ("401", "403"):
            kind = "authentication_error" if fault == "401" else "permission_error"
            return self._send(int(fault), json.dumps(_error_body(lb.flavor, int(fault), kind, "invalid x-api-key")).encode())
        if fault == "nomodel":  # a whole reply, billed, that the client must discard (no model id)
            reply = lb.answer(body)
            lb.bill(reply, "whole")
            return self._send(200, json.dumps({**reply, "model": ""}).encode())
        if fault in ("nousage", "badargs"):
            lb.served += 1
            reply = lb.answer(body)
            lb.bill(reply, "whole")
            if fault == "nousage":
                reply.pop("usage", None)
            elif lb.flavor == "anthropic":  # a tool_use whose input is not an object
                reply["content"] = [{"type": "tool_use", "id": "toolu_bad", "name": "write_file", "input": "oops"}]
                reply["stop_reason"] = "tool_use"
            else:  # tool-call arguments that are not JSON
                reply["choices"][0]["message"]["tool_calls"] = [{"id": "call_bad", "type": "function", "function": {
                    "name": "write_file", "arguments": "{not json"}}]
                reply["choices"][0]["finish_reason"] = "tool_calls"
            return self._send(200, json.dumps(reply).encode())
        if fault == "drop":
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if fault == "malformed":
            self.close_connection = True
            return self._send(200, b'{"id": "msg_x", "type": "mess')
        if fault == "truncated" or (isinstance(fault, tuple) and fault[0] == "truncated"):
            # ("truncated", k): the body cut after k bytes (k < 0: all but the last -k); the default, half of it
            self.close_connection = True
            reply = lb.answer(body)
            full = json.dumps(reply).encode()
            k = len(full) // 2 if fault == "truncated" else fault[1] % len(full)
            usage = json.dumps(reply["usage"]).encode()  # the last key of both formats' bodies
            lb.bill(reply, "cut_after_usage" if full.rindex(usage) + len(usage) <= k else "cut")
            self._send(200, full[:k], length=len(full))
            self.connection.shutdown(2)
            return
        if isinstance(fault, tuple) and fault[0] == "drip":  # headers, then one byte every fault[1] seconds
            self.close_connection = True
            reply = lb.answer(body)
            lb.bill(reply, "whole" if self._drip(json.dumps(reply).encode(), fault[1]) else "cut")
            return None
        lb.served += 1
        reply = lb.answer(body)
        lb.bill(reply, "whole")
        self._send(200, json.dumps(reply).encode(), {"request-id": f"req_{lb.served}"})

    def _drip(self, body: bytes, every_s: float) -> bool:
        """Send body one byte at a time; True when all of it was sent, False when the client cut it."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.flush()
        try:
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                with self.lb.lock:
                    self.lb.dripped += 1
                time.sleep(every_s)
        except OSError:  # the client cut the reply
            return False
        return True
