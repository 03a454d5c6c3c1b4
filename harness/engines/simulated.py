"""The simulated engine: a seeded stand-in for a model, with no network.

The worker reads the prompt and files through the tools like a model would and proposes file
edits drawn from the task's candidate bank (correct, plausible-but-wrong, visibly broken),
following the task's behaviour profile (``[sim]`` in task.toml, overridable per scenario):
which kind it writes first, after a visible failure, and after reviewer findings, and how often
it leaves already-green code alone. The reviewer recognises a candidate from the files in the
review packet and names a plausible-wrong candidate's defect with probability
``reviewer_catch``. It reports token counts from the text it reads and writes (about four
characters per token). It never reports outcomes: the harness runs the tests.

Random draws are seeded by the cell's matched unit (task, scenario, repeat, factors) and the
attempt or review number, never by the arm: every arm faces the same first draw (common random
numbers), so arm contrasts come from the control logic.
"""
from __future__ import annotations

import json
import random
import re

from harness.engine import EngineReply, EngineRequest, ToolCall, Usage, estimate_tokens
from harness.engines import EngineContext, register
from harness.tasks import CANDIDATE_KINDS

FILE_BLOCK = re.compile(r"^=== FILE: (?P<path>.+?) ===\n(?P<body>.*?)\n=== END FILE ===$", re.S | re.M)


class SimulatedEngine:
    name = "simulated"

    def __init__(self, ctx: EngineContext):
        self.ctx = ctx
        self.task = ctx.task
        self.profile = {**ctx.task.sim, **ctx.scenario.get("sim", {})}
        self.bank = [(c, c.files()) for c in ctx.task.candidates]
        self.reviews = 0
        self.model_id = f"simulated-{ctx.model or 'v1'}"

    # -- helpers ---------------------------------------------------------------------------
    def _rng(self, *parts) -> random.Random:
        return random.Random("|".join([self.ctx.seed, self.ctx.role, *map(str, parts)]))

    def _draw_kind(self, rng: random.Random, dist_name: str) -> str:
        dist = self.profile[dist_name]
        kinds = [k for k in CANDIDATE_KINDS if dist.get(k, 0) > 0]
        return rng.choices(kinds, weights=[dist[k] for k in kinds])[0]

    def _match(self, files: dict[str, str]):
        """The bank candidate whose every file is present with identical content, if any."""
        for cand, cfiles in self.bank:
            if all(files.get(p) == text for p, text in cfiles.items()):
                return cand
        return None

    def _reply(self, req: EngineRequest, text: str, calls: list[ToolCall]) -> EngineReply:
        prompt_text = req.system + "".join(m.content + json.dumps([c.arguments for c in m.tool_calls])
                                           for m in req.messages)
        tin = estimate_tokens(prompt_text) + 40 * len(req.tools)
        tout = estimate_tokens(text + json.dumps([c.arguments for c in calls]))
        if tout > req.max_tokens:  # hard truncation: the tool call is cut off and never parses
            return EngineReply(text[: req.max_tokens * 4], [], Usage(tin, req.max_tokens), "max_tokens", self.model_id)
        return EngineReply(text, calls, Usage(tin, tout), "tool_use" if calls else "end_turn", self.model_id)

    # -- the engine interface ----------------------------------------------------------------
    def complete(self, req: EngineRequest) -> EngineReply:
        return self._review(req) if req.role == "reviewer" else self._work(req)

    def _work(self, req: EngineRequest) -> EngineReply:
        msgs = req.messages
        user_idx = [i for i, m in enumerate(msgs) if m.role == "user"]
        last = user_idx[-1]
        attempt = len(user_idx)
        phase = sum(1 for m in msgs[last:] if m.role == "assistant")
        feedback = msgs[last].content
        if feedback.startswith("A reviewer blocked"):
            situation = "after_finding"
        elif feedback.startswith("The acceptance test failed") or attempt > 1:
            situation = "after_visible_fail"
        else:
            situation = "first"
        if phase == 0:
            return self._reply(req, "Let me look at the project.", [ToolCall(f"c{attempt}-0", "list_files", {})])
        if phase == 1:
            listing = msgs[-1].content.splitlines() if msgs[-1].role == "tool" else []
            wanted = sorted({p for _, cf in self.bank for p in cf if p in listing})
            calls = [ToolCall(f"c{attempt}-1-{i}", "read_file", {"path": p}) for i, p in enumerate(wanted)]
            return self._reply(req, "Reading the relevant source.", calls or [ToolCall(f"c{attempt}-1", "list_files", {})])
        if phase == 2:
            seen = self._files_read(msgs[last:])
            current = self._match(seen)
            rng = self._rng("attempt", attempt)
            keep = rng.random()
            if current is not None and situation == "first" and (
                    current.kind == "correct" or (current.kind == "plausible_wrong" and keep < self.profile["keep_existing"])):
                return self._reply(req, "The implementation already looks complete; checking the tests.",
                                   [ToolCall(f"c{attempt}-2", "run_acceptance", {})])
            kind = self._draw_kind(rng, situation)
            options = [(c, cf) for c, cf in self.bank if c.kind == kind]
            cand, cfiles = options[rng.randrange(len(options))]
            calls = [ToolCall(f"c{attempt}-2-{i}", "write_file", {"path": p, "content": t})
                     for i, (p, t) in enumerate(sorted(cfiles.items()))]
            return self._reply(req, f"I'll implement the change ({len(calls)} file(s)).", calls)
        if phase == 3 and not any(c.name == "run_acceptance" for m in msgs[last:] for c in m.tool_calls):
            return self._reply(req, "Running the acceptance test.", [ToolCall(f"c{attempt}-3", "run_acceptance", {})])
        return self._reply(req, "Done.", [ToolCall(f"c{attempt}-4", "finish",
                                                    {"claim": "Implemented the requested change; all tests pass."})])

    @staticmethod
    def _files_read(msgs) -> dict[str, str]:
        """Pair read_file calls with their tool results to know what the model has seen."""
        pending = {}
        seen = {}
        for m in msgs:
            for c in m.tool_calls:
                if c.name == "read_file":
                    pending[c.id] = c.arguments.get("path")
            if m.role == "tool" and m.tool_call_id in pending:
                seen[pending[m.tool_call_id]] = m.content
        return seen

    def _review(self, req: EngineRequest) -> EngineReply:
        self.reviews += 1
        packet = req.messages[-1].content
        files = {m["path"]: m["body"] for m in FILE_BLOCK.finditer(packet)}
        cand = self._match(files)
        rng = self._rng("review", self.reviews)
        u = rng.random()
        if rng.random() < self.profile.get("reviewer_unparseable", 0.0):
            return self._reply(req, "I think this mostly looks fine, maybe ship it?", [])
        kind = cand.kind if cand else None
        if kind == "plausible_wrong" and u < self.profile["reviewer_catch"]:
            verdict = {"verdict": "block", "findings": [{"severity": "high", "message": cand.defect}]}
        elif kind == "broken":
            verdict = {"verdict": "block", "findings": [{"severity": "high", "message": cand.defect or "broken"}]}
        elif kind == "correct" and u < self.profile["reviewer_false_block"]:
            verdict = {"verdict": "block", "findings": [{"severity": "low", "message":
                                                         "I am not convinced every edge case in the prompt is handled."}]}
        elif kind is None and u < 0.5:
            verdict = {"verdict": "block", "findings": [{"severity": "medium", "message":
                                                         "The change does not look like a complete implementation."}]}
        else:
            verdict = {"verdict": "ship", "findings": []}
        return self._reply(req, json.dumps(verdict), [])


@register("simulated")
def _factory(ctx: EngineContext) -> SimulatedEngine:
    return SimulatedEngine(ctx)
