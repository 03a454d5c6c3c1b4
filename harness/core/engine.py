"""The engine seam: one request/reply interface for every model provider and the simulator.

An engine only proposes: text and tool calls. The controller authorizes and executes every
tool call and decides what happens next; the adjudicator never reads what an engine says.
Live engines (anthropic, openai), the replay engine and the simulated engine all implement
``Engine.complete``.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Protocol as TypingProtocol

from harness.core.errors import HarnessError
from harness.core.observation import Observation

# The programs the run_command tool runs (harness.control.tools); the simulated engine proposes only these.
ALLOWED_PROGRAMS = frozenset({"python", "python3", "sh", "bash", "ls", "cat", "grep", "rm", "mv", "cp", "chmod", "git",
                              "sqlite3", "make"})


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict  # JSON schema of the arguments object


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict  # as the model sent them; anything else (a string, a list) is the model's parse failure


@dataclass
class Message:
    role: str  # "user" | "assistant" | "tool"
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    # what the controller saw, typed (harness.core.observation); live engines read only the prose
    observation: Observation | None = field(default=None, compare=False, repr=False)

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k != "observation"}


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    missing: int = 0  # calls whose reply reported no usage: their tokens are unknown, never counted as 0
    # calls whose usage did not carry the sub-field (a provider or server that does not expose it,
    # e.g. an OpenAI-compatible server without prompt_tokens_details, or reasoning on the Messages API):
    # the cell's sub-field is then unknown (null in the record, "not exposed" in harness compare), never 0
    cache_read_unreported: int = 0
    cache_write_unreported: int = 0
    reasoning_unreported: int = 0

    def add(self, other: "Usage") -> None:
        for k in asdict(self):
            setattr(self, k, getattr(self, k) + getattr(other, k))

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass
class EngineRequest:
    role: str  # "worker" | "reviewer"
    system: str
    messages: list[Message]
    tools: list[ToolSpec]
    max_tokens: int
    deadline: float | None = None  # time.monotonic() value after which the call is cancelled


@dataclass
class EngineReply:
    text: str
    tool_calls: list[ToolCall]
    usage: Usage
    stop_reason: str  # "end_turn" | "tool_use" | "max_tokens" | provider-specific
    model_id: str
    raw: dict | None = None


class EngineFault(HarnessError):
    """An infrastructure fault that survived the engine's retries: the cell is void, not scored."""

    wire: dict | None = None  # the live engine's request metadata, for the transcript's fault entry


class EngineAuthError(EngineFault):
    """The provider refused the credentials (401/403). Not a fault of the cell: the run stops at
    once, spends nothing more, and the cell stays unrun (``--resume`` after fixing the key)."""


class Engine(TypingProtocol):
    name: str

    def complete(self, request: EngineRequest) -> EngineReply: ...


def estimate_tokens(text: str) -> int:
    """The simulator's token count: about four characters per token (documented, not a tokenizer)."""
    return math.ceil(len(text) / 4)
