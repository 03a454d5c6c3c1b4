"""The tool surface every arm shares, and the controller's authorization of each call.

Tools: list_files, read_file, write_file, run_acceptance, finish. A call with an unknown name
or malformed arguments is a ``parse_failure`` event; a call whose path resolves outside the
workspace is an ``authorization_refused`` event. Both are no-ops that the model is told about.
The claim passed to ``finish`` is recorded and never read by the adjudicator.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from harness.engine import ToolCall, ToolSpec
from harness.sandbox import Limits
from harness.tasks import Task
from harness.testrun import run_pytest
from harness.workspace import EventLog, PathEscape, Workspace

TOOLS = [
    ToolSpec("list_files", "List every file in the workspace.", {"type": "object", "properties": {}}),
    ToolSpec("read_file", "Read a text file from the workspace.",
             {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec("write_file", "Create or replace a text file in the workspace.",
             {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
              "required": ["path", "content"]}),
    ToolSpec("run_acceptance", "Run the visible acceptance test and return its output.",
             {"type": "object", "properties": {}}),
    ToolSpec("finish", "Declare the work finished, with a short claim of what was done.",
             {"type": "object", "properties": {"claim": {"type": "string"}}, "required": ["claim"]}),
]
TOOL_NAMES = {t.name for t in TOOLS}
_REQUIRED = {t.name: tuple(t.parameters.get("required", ())) for t in TOOLS}


@dataclass
class ToolOutcome:
    content: str
    finished: bool = False
    claim: str | None = None


class ToolSurface:
    """Executes authorized tool calls against one workspace, logging every call."""

    def __init__(self, ws: Workspace, task: Task, log: EventLog, hide: tuple[Path, ...], limits: Limits,
                 test_runs: list | None = None):
        self.ws, self.task, self.log, self.hide, self.limits = ws, task, log, hide, limits
        self.test_runs = test_runs if test_runs is not None else []

    def execute(self, call: ToolCall) -> ToolOutcome:
        args = call.arguments
        if call.name not in TOOL_NAMES or not isinstance(args, dict) or any(
                not isinstance(args.get(k), str) for k in _REQUIRED.get(call.name, ())):
            self.log.emit("parse_failure", tool=call.name, arguments=_short(args))
            return ToolOutcome(f"error: malformed call to {call.name!r}; tools are {sorted(TOOL_NAMES)}")
        try:
            return getattr(self, "_" + call.name)(**{k: args[k] for k in _REQUIRED[call.name]})
        except PathEscape as exc:
            self.log.emit("authorization_refused", tool=call.name, path=args.get("path"), reason=str(exc))
            return ToolOutcome(f"refused: {exc}")

    def _list_files(self) -> ToolOutcome:
        files = self.ws.list_files()
        self.log.emit("tool", tool="list_files", n=len(files))
        return ToolOutcome("\n".join(files))

    def _read_file(self, path: str) -> ToolOutcome:
        target = self.ws.resolve(path)
        if not target.is_file():
            self.log.emit("tool", tool="read_file", path=path, ok=False)
            return ToolOutcome(f"error: no such file {path!r}")
        self.log.emit("tool", tool="read_file", path=path, ok=True)
        return ToolOutcome(target.read_text(errors="replace"))

    def _write_file(self, path: str, content: str) -> ToolOutcome:
        self.ws.resolve(path)
        existed = self.ws.resolve(path).exists()
        self.ws.write(path, content)
        self.log.emit("write", path=path, bytes=len(content.encode()), created=not existed)
        return ToolOutcome(f"wrote {path} ({len(content)} chars)")

    def _run_acceptance(self) -> ToolOutcome:
        visible = self.ws.root / self.task.acceptance_dest
        if not visible.is_file():
            self.log.emit("tool", tool="run_acceptance", ok=False, reason="visible test missing")
            return ToolOutcome("error: the acceptance test file is missing")
        v = run_pytest(self.ws.root, visible, dest_rel=self.task.acceptance_dest, hide=self.hide, limits=self.limits)
        self.test_runs.append({"by": "agent", "kind": "visible", "wall_s": v.wall_s})
        self.log.emit("agent_test", passed=v.passed, **{k: x for k, x in v.summary().items() if k != "passed"})
        status = "PASSED" if v.passed else "FAILED"
        return ToolOutcome(f"acceptance {status}\n{v.output[-4000:]}")

    def _finish(self, claim: str) -> ToolOutcome:
        self.log.emit("finish", claim=claim[:2000])
        return ToolOutcome("finished", finished=True, claim=claim)


def _short(obj) -> str:
    s = json.dumps(obj, default=str)
    return s[:500]
