"""Scripted engines and small helpers for harness tests (deterministic stand-ins for a model)."""
from __future__ import annotations

import itertools
from pathlib import Path

from harness.core.engine import EngineReply, EngineRequest, ToolCall, Usage
from harness.core.tasks import read_tree

REPO = Path(__file__).resolve().parents[2]
TASKS = REPO / "tasks"
_ids = itertools.count()


def call(name: str, **args) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", name, args)


class ScriptedWorker:
    """A worker that, at the start of every attempt, writes the files ``per_attempt[i]`` gives
    (the last entry repeats), runs the acceptance test and finishes with a claim."""

    name = "scripted"

    def __init__(self, per_attempt: list[dict[str, str]], tokens_out: int = 10):
        self.per_attempt = per_attempt
        self.tokens_out = tokens_out
        self.requests: list[EngineRequest] = []

    def complete(self, req: EngineRequest) -> EngineReply:
        self.requests.append(req)
        users = [i for i, m in enumerate(req.messages) if m.role == "user"]
        attempt = len(users) - 1
        phase = sum(1 for m in req.messages[users[-1]:] if m.role == "assistant")
        files = self.per_attempt[min(attempt, len(self.per_attempt) - 1)]
        if phase == 0:
            calls = [call("write_file", path=p, content=t) for p, t in files.items()]
            if calls:
                return self._reply(req, calls)
        if phase <= 1:
            return self._reply(req, [call("run_acceptance")])
        return self._reply(req, [call("finish", claim="All done, tests pass.")])

    def _reply(self, req, calls):
        out = min(self.tokens_out, req.max_tokens)
        if self.tokens_out > req.max_tokens:
            return EngineReply("cut", [], Usage(100, out), "max_tokens", "scripted-1")
        return EngineReply("ok", calls, Usage(100, out), "tool_use", "scripted-1")


class ScriptedReviewer:
    """Returns the given verdict texts in order (the last repeats)."""

    name = "scripted-reviewer"

    def __init__(self, texts: list[str]):
        self.texts = texts
        self.packets: list[str] = []

    def complete(self, req: EngineRequest) -> EngineReply:
        self.packets.append(req.messages[-1].content)
        text = self.texts[min(len(self.packets) - 1, len(self.texts) - 1)]
        return EngineReply(text, [], Usage(50, 5), "end_turn", "scripted-reviewer-1")


SHIP = '{"verdict": "ship", "findings": []}'
BLOCK = '{"verdict": "block", "findings": [{"severity": "high", "message": "0 is rejected"}]}'




def candidate(task, kind: str) -> dict[str, str]:
    """The overlay files of the task's reference or its first candidate of a kind."""
    if kind == "reference":
        return read_tree(task.reference)
    return task.candidates_of(kind)[0].files()


def copy_tasks(dest, task_ids) -> None:
    """A private task corpus for a test: the named tasks and the scenario table under dest/tasks."""
    import shutil
    (dest / "tasks").mkdir(exist_ok=True)
    for t in task_ids:
        shutil.copytree(TASKS / t, dest / "tasks" / t)
    shutil.copy(TASKS / "scenarios.toml", dest / "tasks" / "scenarios.toml")
