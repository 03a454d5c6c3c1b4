"""The replay engine: a cell's engine replies read back from a transcript, with no network.

Two sources (engine options, set by ``harness run --replay-from DIR`` or ``--transcript FILE``):

- ``replay_from``: a recorded run directory; each cell replays
  ``DIR/transcripts/<cell>.jsonl``. Every request the controller makes is checked against the
  recorded one (system prompt, max_tokens, tool names, the full conversation); a mismatch is a
  ``ReplayMismatch`` naming the role, the turn and the first differing field. Same engine
  replies + same tool outputs give the same final workspace and the same record (timings aside).
- ``transcript``: one hand-written transcript used for every cell (a scripted agent, e.g. an
  adversarial one probing the harness). Entries without a ``request`` are not checked.

When the transcript runs out, the replay says so with ``ReplayExhausted`` (the cell is void with
that reason) rather than inventing a reply.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.engine import EngineReply, EngineRequest
from harness.core.errors import HarnessError
from harness.core.layout import transcript_path
from harness.engines import EngineContext
from harness.engines.transcript import load_entries, reply_from_dict, request_messages

# Tool outputs carry timings and temporary paths that differ from run to run ("3 passed in
# 0.01s", the workspace's /tmp/ws-... directory, object addresses). They are masked in tool
# results before the comparison: timings aside, every other byte must match.
VOLATILE = [(re.compile(r"\b\d+(?:\.\d+)?s\b"), "<secs>"), (re.compile(r"/tmp/[\w.\-]+"), "<tmp>"),
            (re.compile(r"0x[0-9a-fA-F]{6,}"), "<addr>")]


def _stable(msgs: list[dict]) -> list[dict]:
    out = []
    for m in msgs:
        if m.get("role") == "tool" and isinstance(m.get("content"), str):
            text = m["content"]
            for pat, sub in VOLATILE:
                text = pat.sub(sub, text)
            m = {**m, "content": text}
        out.append(m)
    return out


class ReplayMismatch(HarnessError):
    """The controller asked something other than what the transcript holds."""


class ReplayExhausted(HarnessError):
    """The controller asked for more turns than the transcript holds."""


def _first_diff(a, b, where="") -> str:
    if type(a) is not type(b):
        return f"{where or 'value'}: recorded {json.dumps(a)[:200]} vs asked {json.dumps(b)[:200]}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _first_diff(a.get(k), b.get(k), f"{where}.{k}" if where else k)
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: recorded {len(a)} item(s), asked {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_diff(x, y, f"{where}[{i}]")
    return f"{where or 'value'}: recorded {json.dumps(a)[:200]} vs asked {json.dumps(b)[:200]}"


@dataclass(frozen=True)
class ReplayOptions:
    """The replay engine's keys of the engine options (run.json's ``engine_options``, the cell's key added by
    the cell runner): the hand-written transcript, the recorded run, and the cell whose transcript to replay."""
    transcript: str | None = None
    replay_from: str | None = None
    cell_key: str | None = None

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> ReplayOptions:
        """The one place the options' replay keys are read (an empty value names no source, as before)."""
        return cls(options.get("transcript") or None, options.get("replay_from") or None, options.get("cell_key"))


class ReplayEngine:
    name = "replay"

    def __init__(self, ctx: EngineContext):
        self.role = ctx.role
        opts = ReplayOptions.of(ctx.options)
        if opts.transcript:
            self.source = Path(opts.transcript)
        elif opts.replay_from:
            if opts.cell_key is None:
                raise ValueError("the replay engine replays a recorded run cell by cell: its options name no cell_key")
            self.source = transcript_path(Path(opts.replay_from), opts.cell_key)
        else:
            raise ValueError("the replay engine needs --replay-from RUN_DIR or --transcript FILE")
        if not self.source.is_file():
            raise ReplayExhausted(f"no transcript for this cell at {self.source}")
        entries = load_entries(self.source)
        if any(e.get("kind") == "fault" for e in entries) and not opts.transcript:
            raise ReplayExhausted(f"{self.source} ends in an infrastructure fault (the recorded cell was void)")
        self.entries = [e for e in entries if e.get("role", "worker") == self.role and e.get("kind", "call") == "call"]
        self.turn = 0
        self.messages: list[dict] = []

    def complete(self, req: EngineRequest) -> EngineReply:
        self.turn += 1
        asked_msgs = request_messages(req)
        if self.turn > len(self.entries):
            raise ReplayExhausted(f"{self.role} turn {self.turn}: the transcript {self.source.name} holds only "
                                  f"{len(self.entries)} {self.role} turn(s)")
        entry = self.entries[self.turn - 1]
        rec = entry.get("request")
        if rec is not None:
            recorded_msgs = self.messages[: rec.get("prefix", 0)] + list(rec.get("messages", []))
            self.messages = recorded_msgs
            recorded = {"system": rec.get("system"), "max_tokens": rec.get("max_tokens"), "tools": rec.get("tools"),
                        "messages": _stable(recorded_msgs)}
            asked = {"system": req.system, "max_tokens": req.max_tokens, "tools": [t.name for t in req.tools],
                     "messages": _stable(asked_msgs)}
            if recorded != asked:
                raise ReplayMismatch(f"{self.role} turn {self.turn} (transcript call n={entry.get('n')}): "
                                     f"{_first_diff(recorded, asked)}")
        reply = reply_from_dict(entry.get("reply") or {})
        # A hand-written turn may not know max_tokens; respect the clamp like a real provider would.
        if entry.get("request") is None and reply.usage.output_tokens > req.max_tokens:
            reply.usage.output_tokens = req.max_tokens
            reply.tool_calls = []
            reply.stop_reason = "max_tokens"
        return reply


def _factory(ctx: EngineContext) -> ReplayEngine:
    return ReplayEngine(ctx)
