"""An engine: builds, per cell and role, an object whose complete(request) proposes text and tool calls."""
from harness.api import EngineContext, EngineReply, EngineRequest, ToolCall, Usage, estimate_tokens, register


class Finisher:
    """Reads the prompt, then calls finish (as a worker) or ships (as a reviewer); edits nothing."""

    name = "finisher"

    def __init__(self, ctx: EngineContext) -> None:
        self.role = ctx.role

    def complete(self, request: EngineRequest) -> EngineReply:
        usage = Usage(input_tokens=sum(estimate_tokens(m.content) for m in request.messages), output_tokens=5)
        if self.role == "reviewer":
            return EngineReply('{"verdict": "ship", "findings": []}', [], usage, "end_turn", "finisher-0")
        call = ToolCall("c1", "finish", {"claim": "nothing to change"})
        return EngineReply("", [call], usage, "tool_use", "finisher-0")


@register("finisher")
def make(ctx: EngineContext) -> Finisher:
    return Finisher(ctx)
