"""Transcripts: every engine request and reply of every cell, stored with the run, secrets redacted.

Layout: ``run_dir/transcripts/<cell>.jsonl`` (the same safe name as the cell's event log). A
voided attempt's transcript is kept beside it as ``<cell>.void-N.jsonl`` before the rerun starts.

Lines (JSON objects, in call order):

- ``{"kind": "header", "format": 1, "cell_key": ...}``
- ``{"kind": "call", "n": 3, "role": "worker", "turn": 2, "request": {...}, "reply": {...},
  "wire": {...}}``. ``request`` is the controller's request: ``system``, ``max_tokens``, the tool
  names, and the messages, delta-encoded: ``prefix`` says how many messages are the same as the
  previous request of the same role, ``messages`` holds the rest (so the full conversation is
  reconstructible without storing it once per turn). ``reply`` is the normalized EngineReply
  (text, tool calls, usage, stop reason, model id exactly as returned). ``wire`` is what the live
  engine saw on the wire: the provider's raw response body, the HTTP status, the endpoint, every
  retried fault and limiter waits. The wire request body is a pure function of ``request`` and
  the engine (``to_wire`` in the engine module).
- ``{"kind": "fault", "role": ..., "turn": ..., "request": {...}, "error": ..., "wire": {...}}``
  when an infrastructure fault survived the retries (the cell is void).

Redaction: before anything is written, every string is scrubbed of API keys (``sk-...``,
``sk-ant-...``), ``Authorization``/``Bearer``/``x-api-key`` values, and the value of every
environment variable whose name looks secret (KEY, TOKEN, SECRET, PASSWORD, AUTH, CREDENTIAL).
"""
from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from harness.core.engine import EngineFault, EngineReply, EngineRequest, Message, ToolCall, Usage

FORMAT = 1
REDACTED = "[REDACTED]"
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|AUTH|CREDENTIAL|COOKIE|SESSION", re.I)
SECRET_PATTERNS = [
    re.compile(r"sk-(?:ant-)?[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9_\-\.=:+/]{8,}"),
    re.compile(r"(?i)((?:x-api-key|api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"),
]


class Redactor:
    def __init__(self, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()):
        source: Mapping[str, str] = os.environ if env is None else env
        vals = {v for k, v in source.items() if SECRET_NAME.search(k) and isinstance(v, str) and len(v) >= 6}
        vals.update(x for x in extra if x and len(x) >= 6)
        self.values = sorted(vals, key=len, reverse=True)

    def text(self, s: str) -> str:
        for v in self.values:
            if v in s:
                s = s.replace(v, REDACTED)
        for pat in SECRET_PATTERNS:
            s = pat.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, s)
        return s

    def __call__(self, obj):
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {self.text(str(k)): self(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [self(v) for v in obj]
        return obj


def message_to_dict(m: Message) -> dict:
    d: dict[str, Any] = {"role": m.role, "content": m.content}
    if m.tool_calls:
        d["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
    if m.tool_call_id is not None:
        d["tool_call_id"] = m.tool_call_id
    return d


def message_from_dict(d: dict) -> Message:
    return Message(d["role"], d.get("content", ""), [ToolCall(c["id"], c["name"], c.get("arguments", {}))
                                                      for c in d.get("tool_calls", [])], d.get("tool_call_id"))


def reply_to_dict(r: EngineReply) -> dict:
    return {"text": r.text, "tool_calls": [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in r.tool_calls],
            "usage": asdict(r.usage), "stop_reason": r.stop_reason, "model_id": r.model_id}


def reply_from_dict(d: dict, default_model: str = "replay-script") -> EngineReply:
    calls = [ToolCall(c.get("id") or f"r{i}", c["name"], c.get("arguments", {}))
             for i, c in enumerate(d.get("tool_calls", []))]
    usage = Usage(**{k: int(v) for k, v in (d.get("usage") or {}).items() if k in Usage.__dataclass_fields__})
    return EngineReply(d.get("text", ""), calls, usage, d.get("stop_reason") or ("tool_use" if calls else "end_turn"),
                       d.get("model_id") or default_model)


def request_messages(req: EngineRequest) -> list[dict]:
    return [message_to_dict(m) for m in req.messages]


class Transcript:
    """One cell's transcript file, shared by its worker and reviewer engines."""

    def __init__(self, path: Path, cell_key: str, redactor: Redactor | None = None):
        self.path = Path(path)
        self.redact = redactor or Redactor()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():  # a voided earlier attempt of this cell: keep it beside
            n = 1
            while self.path.with_suffix(f".void-{n}.jsonl").exists():
                n += 1
            self.path.rename(self.path.with_suffix(f".void-{n}.jsonl"))
        self._reset()
        self._write({"kind": "header", "format": FORMAT, "cell_key": cell_key})

    def _reset(self) -> None:
        self.n = 0
        self.turns: dict[str, int] = {}
        self.prev: dict[str, list[dict]] = {}
        self.usage_by_model: dict[str, Usage] = {}
        self.retries = 0  # retries made (a fault followed by another try), not faults
        self.faults = 0  # every fault seen, the last one of a call that gave up included
        self.limiter_wait_s = 0.0
        self.endpoints: set[str] = set()

    def reload(self) -> None:
        """Rebuild the counters from the file (after a child process that wrote to it was killed:
        B5's host): every call, its usage by model, retries and endpoints from before the kill."""
        self._reset()
        for line in self.path.read_text().splitlines():
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line the kill cut short
            if e.get("kind") not in ("call", "fault"):
                continue
            self.n = max(self.n, int(e.get("n") or 0))
            role = e.get("role", "worker")
            self.turns[role] = max(self.turns.get(role, 0), int(e.get("turn") or 0))
            req = e.get("request") or {}
            self.prev[role] = self.prev.get(role, [])[: req.get("prefix", 0)] + list(req.get("messages", []))
            if e["kind"] == "call":
                reply = e.get("reply") or {}
                u = Usage(**{k: int(v) for k, v in (reply.get("usage") or {}).items() if k in Usage.__dataclass_fields__})
                self.usage_by_model.setdefault(reply.get("model_id") or "unknown", Usage()).add(u)
            self._wire_stats(e.get("wire"), gave_up=e["kind"] == "fault")

    def _write(self, obj: dict) -> None:
        if getattr(self, "write_error", None) is not None:
            return
        try:
            with self.path.open("a") as f:
                f.write(json.dumps(self.redact(obj), sort_keys=True, default=str) + "\n")
        except OSError as exc:  # a full disk: the cell records the fault (void) instead of crashing
            self.write_error = exc

    def _request(self, role: str, req: EngineRequest) -> dict:
        msgs = request_messages(req)
        prev = self.prev.get(role, [])
        k = 0
        while k < min(len(prev), len(msgs)) and prev[k] == msgs[k]:
            k += 1
        self.prev[role] = msgs
        return {"system": req.system, "max_tokens": req.max_tokens, "tools": [t.name for t in req.tools],
                "prefix": k, "messages": msgs[k:]}

    def _wire_stats(self, wire: dict | None, *, gave_up: bool = False) -> None:
        if not wire:
            return
        faults = len(wire.get("faults", []))
        self.faults += faults
        self.retries += max(0, faults - 1) if gave_up else faults
        self.limiter_wait_s += float(wire.get("limiter_wait_s", 0.0))
        if wire.get("endpoint"):
            self.endpoints.add(wire["endpoint"])

    def call(self, req: EngineRequest, reply: EngineReply, wall_s: float) -> None:
        self.n += 1
        turn = self.turns[req.role] = self.turns.get(req.role, 0) + 1
        self.usage_by_model.setdefault(reply.model_id, Usage()).add(reply.usage)
        self._wire_stats(reply.raw)
        self._write({"kind": "call", "n": self.n, "role": req.role, "turn": turn, "request": self._request(req.role, req),
                     "reply": reply_to_dict(reply), "wire": reply.raw, "wall_s": round(wall_s, 4)})

    def fault(self, req: EngineRequest, exc: BaseException) -> None:
        self.n += 1
        turn = self.turns.get(req.role, 0) + 1
        wire = getattr(exc, "wire", None)
        self._wire_stats(wire, gave_up=True)
        self._write({"kind": "fault", "n": self.n, "role": req.role, "turn": turn, "request": self._request(req.role, req),
                     "error": str(exc), "wire": wire})


class RecordingEngine:
    """Wraps any engine: every request and reply (or fault) goes to the cell's transcript."""

    def __init__(self, inner, transcript: Transcript):
        self.inner = inner
        self.transcript = transcript
        self.name = getattr(inner, "name", "engine")

    def complete(self, req: EngineRequest) -> EngineReply:
        t0 = time.perf_counter()
        try:
            reply = self.inner.complete(req)
        except EngineFault as exc:
            self.transcript.fault(req, exc)
            raise
        reply = bound_depth(reply)
        self.transcript.call(req, reply, time.perf_counter() - t0)
        return reply


def bound_depth(reply: EngineReply) -> EngineReply:
    """``reply`` with every tool call whose arguments nest deeper than ``statefile.MAX_DEPTH`` kept as
    a malformed call (its arguments elided to a string: the tool surface logs a parse failure, the
    agent's own error), and a wire response nested that deep elided. Such a reply (the SDKs parse
    it) made the redactor and every later serialization recurse past the interpreter's limit: a
    harness error, so a model could void its own cell."""
    from dataclasses import replace

    from harness.core.statefile import MAX_DEPTH, obj_depth
    elided = f"<arguments elided: nested deeper than {MAX_DEPTH} levels>"
    # a non-object argument, as the anthropic engine passes on a tool_use input that is not an object
    calls = [ToolCall(c.id, c.name, elided) if obj_depth(c.arguments) > MAX_DEPTH else c  # type: ignore[arg-type]
             for c in reply.tool_calls]
    raw = reply.raw
    if isinstance(raw, dict) and obj_depth(raw) > MAX_DEPTH:
        raw = {k: (f"<elided: nested deeper than {MAX_DEPTH} levels>" if obj_depth(v) > MAX_DEPTH - 1 else v)
               for k, v in raw.items()}
    if calls == reply.tool_calls and raw is reply.raw:
        return reply
    return replace(reply, tool_calls=calls, raw=raw)


def load_entries(path: Path) -> list[dict]:
    """A recorded transcript (JSON lines) or a hand-written one (a JSON list, JSON lines, or an
    object with a ``calls`` list). Hand-written entries need only ``role`` (default worker) and
    ``reply``; without ``request`` the replay does not check what the controller asked.
    Malformed input raises InputError naming the file, the entry (line or index) and the field."""
    from harness.core import runio
    from harness.core.errors import InputError
    path = Path(path)
    try:  # the one safe reader: a file the user named (--transcript), so a link is followed; a FIFO is refused
        text = runio.read_text(path, "transcript", follow=True)
    except FileNotFoundError:
        raise InputError(str(path), "<file>", "no such transcript") from None
    stripped = text.lstrip()
    numbered: list[tuple[int, object]] = []
    try:
        from harness.core.statefile import MAX_DEPTH, depth_of
        if depth_of(text) > MAX_DEPTH:  # every JSON reader has a depth bound (a deeper one crashed the cells)
            raise InputError(str(path), "<file>", f"not JSON the harness reads: nested deeper than {MAX_DEPTH} levels")
        if stripped.startswith("["):
            numbered = list(enumerate(json.loads(text)))
        elif stripped.startswith("{") and "\n{" not in stripped.strip():
            obj = json.loads(text)
            numbered = list(enumerate(obj.get("calls", [obj]) if isinstance(obj, dict) else obj))
        else:
            for i, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    try:
                        numbered.append((i, json.loads(line)))
                    except json.JSONDecodeError as exc:  # the file's line, not json's line within this one
                        raise InputError(str(path), "<file>", f"not JSON: {exc.msg}", line=i) from None
    except json.JSONDecodeError as exc:
        raise InputError(str(path), "<file>", f"not JSON: {exc.msg}", line=exc.lineno) from None
    except RecursionError:
        raise InputError(str(path), "<file>", "not JSON: nested deeper than the parser allows") from None
    except (TypeError, AttributeError):
        raise InputError(str(path), "<file>", "expected a list of entries or an object with a 'calls' list") from None
    out = []
    for where, e in numbered:
        if not isinstance(e, dict):
            raise InputError(str(path), f"entry {where}", "expected a JSON object")
        if e.get("kind", "call") in ("call", "fault"):
            _check_entry(path, where, e)
            out.append({"role": "worker", **e})
    return out


ENTRY_KINDS = ("header", "call", "fault")


def _check_entry(path: Path, where, e: dict) -> None:
    """The fields a replay reads, with their types (see the module docstring)."""
    from harness.core.errors import InputError

    def bad(field: str, what: str):
        raise InputError(str(path), f"entry {where}: {field}", what)
    if e.get("kind", "call") not in ENTRY_KINDS:
        bad("kind", f"expected one of {ENTRY_KINDS}")
    if e.get("role", "worker") not in ("worker", "reviewer"):
        bad("role", "expected worker or reviewer")
    if "request" in e and not isinstance(e["request"], dict):
        bad("request", "expected an object")
    if e.get("kind", "call") == "fault":
        return
    reply = e.get("reply", {})
    if not isinstance(reply, dict):
        bad("reply", "expected an object")
    if not isinstance(reply.get("text", ""), str):
        bad("reply.text", "expected a string")
    calls = reply.get("tool_calls", [])
    if not isinstance(calls, list):
        bad("reply.tool_calls", "expected a list")
    for i, c in enumerate(calls):
        if not isinstance(c, dict) or not isinstance(c.get("name"), str):
            bad(f"reply.tool_calls[{i}]", "expected an object with a string name")
        if "id" in c and not isinstance(c["id"], str):
            bad(f"reply.tool_calls[{i}].id", "expected a string")
    usage = reply.get("usage") or {}
    if not isinstance(usage, dict):
        bad("reply.usage", "expected an object of token counts")
    for k, v in usage.items():
        if k not in Usage.__dataclass_fields__:
            bad(f"reply.usage.{k}", f"unknown key (expected {sorted(Usage.__dataclass_fields__)})")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            bad(f"reply.usage.{k}", "expected an integer >= 0")
    for k in ("stop_reason", "model_id"):
        if reply.get(k) is not None and not isinstance(reply[k], str):
            bad(f"reply.{k}", "expected a string")
