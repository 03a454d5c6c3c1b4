"""The Anthropic engine: the Messages API with tool use, through the official ``anthropic`` SDK.

- Tools: the harness's tool surface as ``tools`` (name, description, input_schema).
- Conversation: assistant turns carry text and ``tool_use`` blocks; the controller's tool results
  go back as ``tool_result`` blocks in the next user turn (consecutive user-side messages are
  merged into one turn, as the API expects alternation).
- Usage: ``input_tokens`` (uncached input), ``output_tokens``, ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens`` are kept separately (cache_read_tokens / cache_write_tokens). A
  reply without usage is recorded as unknown (``Usage.missing``), not voided and never counted as 0.
- A ``tool_use`` whose input is not a JSON object is passed on as it came: the controller logs a
  ``parse_failure`` the model sees (as on the OpenAI engine), never a void.
- ``model_id`` is the ``model`` field of the response (the dated snapshot the API served).
- Credentials and endpoint: ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL`` as the SDK reads them;
  ``[providers.anthropic] base_url`` in the protocol overrides the endpoint. SDK retries are off:
  ``harness.engines.retry`` retries so that every fault is counted and written to the transcript.
"""
from __future__ import annotations

from harness.core.engine import EngineReply, EngineRequest, ToolCall, Usage
from harness.engines import EngineContext
from harness.engines.live import LiveEngine, token_count


def to_messages(req: EngineRequest) -> list[dict]:
    out: list[dict] = []

    def push(role: str, blocks: list[dict]):
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in req.messages:
        if m.role == "user":
            push("user", [{"type": "text", "text": m.content or "(empty)"}])
        elif m.role == "tool":
            push("user", [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content or "(empty)"}])
        elif m.role == "assistant":
            blocks: list[dict] = [{"type": "text", "text": m.content}] if m.content else []
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in m.tool_calls]
            push("assistant", blocks or [{"type": "text", "text": "(no output)"}])
        else:
            raise ValueError(f"unknown message role {m.role!r}")
    return out


class AnthropicEngine(LiveEngine):
    name = "anthropic"
    provider = "anthropic"

    def make_client(self):
        import anthropic

        from harness.engines.deadline import http_client
        kwargs = {"max_retries": 0, "http_client": http_client(anthropic)}  # whole-reply deadlines
        if self.conf.get("base_url"):
            kwargs["base_url"] = self.conf["base_url"]
        return anthropic.Anthropic(**kwargs)

    def to_wire(self, req: EngineRequest) -> dict:
        wire = {"model": self.model, "max_tokens": max(1, int(req.max_tokens)), "system": req.system,
                "messages": to_messages(req)}
        if req.tools:
            wire["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.parameters}
                             for t in req.tools]
        if "temperature" in self.conf:
            wire["temperature"] = self.conf["temperature"]
        return wire

    def send(self, wire: dict, timeout: float):
        raw = self.client.messages.with_raw_response.create(**wire, timeout=timeout)
        return raw.parse(), raw.http_response

    @staticmethod
    def usage_from_wire(u: dict | None) -> Usage | None:
        """The harness's ``Usage`` of a Messages API ``usage`` object (a dict); None when it lacks the
        input or output count (unknown, never 0). A missing cache count is counted as unreported
        (``Usage.cache_read_unreported``), and reasoning always is: the Messages API counts thinking
        inside ``output_tokens`` and reports no separate reasoning count."""
        if not isinstance(u, dict):
            return None
        try:  # only non-negative JSON integers are counts (``token_count``); else unknown: the booking
            return Usage(input_tokens=token_count(u.get("input_tokens")),
                         output_tokens=token_count(u.get("output_tokens")),
                         cache_read_tokens=token_count(u.get("cache_read_input_tokens"), optional=True),
                         cache_write_tokens=token_count(u.get("cache_creation_input_tokens"), optional=True),
                         cache_read_unreported=int(u.get("cache_read_input_tokens") is None),
                         cache_write_unreported=int(u.get("cache_creation_input_tokens") is None),
                         reasoning_unreported=1)
        except ValueError:
            return None

    def from_wire(self, msg) -> EngineReply:
        texts, calls = [], []
        for block in msg.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":  # input that is not an object is passed on: the controller's parse failure
                calls.append(ToolCall(block.id, block.name, block.input))
        u = getattr(msg, "usage", None)
        usage = self.usage_from_wire(None if u is None else u.model_dump()) or Usage(missing=1)  # unknown, never 0
        if not msg.model:
            raise ValueError("response has no model id")
        return EngineReply("".join(texts), calls, usage, msg.stop_reason or "end_turn", msg.model)


def _factory(ctx: EngineContext) -> AnthropicEngine:
    return AnthropicEngine(ctx)
