"""The OpenAI engine: Chat Completions with tools, through the official ``openai`` SDK.

Works against api.openai.com and any OpenAI-compatible server (vLLM, llama.cpp server, Ollama):
set ``OPENAI_BASE_URL`` (as the SDK reads it) or ``[providers.openai] base_url`` in the protocol.
A local server often needs no key; when a base_url is set and ``OPENAI_API_KEY`` is not, a
placeholder key is sent.

- Usage: ``prompt_tokens`` minus ``prompt_tokens_details.cached_tokens`` is ``input_tokens``;
  the cached part is ``cache_read_tokens``; ``completion_tokens`` is ``output_tokens`` and
  ``completion_tokens_details.reasoning_tokens`` is ``reasoning_tokens`` (a part of the output
  tokens, priced as output; kept separately for analysis).
- Stop reasons are mapped to the harness's: stop -> end_turn, tool_calls -> tool_use,
  length -> max_tokens (others are kept as the provider names them).
- Tool-call arguments that are not a JSON object are passed on as the raw string: the
  controller logs a ``parse_failure`` (the model's error, not an infrastructure fault).
- ``max_tokens_param`` (provider option) picks ``max_completion_tokens`` (default for
  api.openai.com) or ``max_tokens`` (default elsewhere, which most compatible servers accept).
- The Responses API is not used.
"""
from __future__ import annotations

import json
import os

from harness.core.engine import EngineReply, EngineRequest, ToolCall, Usage
from harness.engines import EngineContext
from harness.engines.live import LiveEngine, token_count

FINISH = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens", "function_call": "tool_use"}


def to_messages(req: EngineRequest) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": req.system}] if req.system else []
    for m in req.messages:
        if m.role == "user":
            out.append({"role": "user", "content": m.content})
        elif m.role == "tool":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
        elif m.role == "assistant":
            msg: dict = {"role": "assistant", "content": m.content or None}
            if m.tool_calls:
                msg["tool_calls"] = [{"id": c.id, "type": "function",
                                      "function": {"name": c.name, "arguments": c.arguments if isinstance(c.arguments, str)
                                                   else json.dumps(c.arguments)}} for c in m.tool_calls]
            elif msg["content"] is None:
                msg["content"] = ""
            out.append(msg)
        else:
            raise ValueError(f"unknown message role {m.role!r}")
    return out


class OpenAIEngine(LiveEngine):
    name = "openai"
    provider = "openai"

    def make_client(self):
        import openai

        from harness.engines.deadline import http_client
        kwargs = {"max_retries": 0, "http_client": http_client(openai)}  # whole-reply deadlines
        base = self.conf.get("base_url")
        if base:
            kwargs["base_url"] = base
        if (base or os.environ.get("OPENAI_BASE_URL")) and not os.environ.get("OPENAI_API_KEY"):
            kwargs["api_key"] = "unused-local-server"
        return openai.OpenAI(**kwargs)

    def to_wire(self, req: EngineRequest) -> dict:
        param = self.conf.get("max_tokens_param") or (
            "max_completion_tokens" if "api.openai.com" in self.endpoint else "max_tokens")
        wire = {"model": self.model, "messages": to_messages(req), param: max(1, int(req.max_tokens))}
        if req.tools:
            wire["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                                "parameters": t.parameters}} for t in req.tools]
        if "temperature" in self.conf:
            wire["temperature"] = self.conf["temperature"]
        return wire

    def send(self, wire: dict, timeout: float):
        raw = self.client.chat.completions.with_raw_response.create(**wire, timeout=timeout)
        return raw.parse(), raw.http_response

    @staticmethod
    def usage_from_wire(u: dict | None) -> Usage | None:
        """The harness's ``Usage`` of a Chat Completions ``usage`` object (a dict); None when it lacks
        the prompt or completion count (unknown, never 0). A missing cached or reasoning count is
        counted as unreported (``Usage.cache_read_unreported``); Chat Completions bills no cache
        writes, so ``cache_write_tokens`` is a reported 0."""
        if not isinstance(u, dict):
            return None
        details = [d if isinstance(d, dict) else {} for d in (u.get("prompt_tokens_details"),
                                                               u.get("completion_tokens_details"))]
        try:  # only non-negative JSON integers are counts (``token_count``); else unknown: the booking
            prompt, out = token_count(u.get("prompt_tokens")), token_count(u.get("completion_tokens"))
            cached = token_count(details[0].get("cached_tokens"), optional=True)
            reasoning = token_count(details[1].get("reasoning_tokens"), optional=True)
        except ValueError:
            return None
        if cached > prompt:  # more cached than sent: not a usage the harness can charge
            return None
        return Usage(input_tokens=prompt - cached, output_tokens=out, cache_read_tokens=cached,
                     reasoning_tokens=reasoning, cache_read_unreported=int(details[0].get("cached_tokens") is None),
                     reasoning_unreported=int(details[1].get("reasoning_tokens") is None))

    def from_wire(self, resp) -> EngineReply:
        if not getattr(resp, "choices", None):
            raise ValueError("response has no choices")
        choice = resp.choices[0]
        msg = choice.message
        calls = []
        for tc in msg.tool_calls or []:
            fn = tc.function
            try:
                args = json.loads(fn.arguments) if fn.arguments else {}
            except json.JSONDecodeError:
                args = fn.arguments
            calls.append(ToolCall(tc.id, fn.name, args))
        u = resp.usage
        usage = self.usage_from_wire(None if u is None else u.model_dump()) or Usage(missing=1)  # unknown, never 0
        if not resp.model:
            raise ValueError("response has no model id")
        stop = FINISH.get(choice.finish_reason, choice.finish_reason or "end_turn")
        return EngineReply(msg.content or "", calls, usage, stop, resp.model)


def _factory(ctx: EngineContext) -> OpenAIEngine:
    return OpenAIEngine(ctx)
