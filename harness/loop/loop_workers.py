"""Workers for bounded loops that need no provider: each implements ``Engine.complete`` and
proposes its writes as tool calls, so they pass through the same authorization, gate and ledger
as a live model (harness.loop.loop).

- ``CorpusWorker`` (the simulated engine of ``harness loop run --engine simulated``) draws each
  attempt's artifact from a corpus loop's conforming artifact and its tier-1 (v1 family) or its
  tier-2 mutants: a seeded permutation, drawn without replacement (a worker does not resubmit what
  was just refused) and re-shuffled when exhausted. A vacuous gate therefore lets a destroyed
  artifact reach DONE; the label of the candidate that reached DONE is the ground truth for the
  false-DONE rate. It always claims to be done, which no guard reads.
- ``ScriptedWorker``: k productive attempts (each a new draft, so the gate's message changes),
  then the accepted artifact or the same stuck draft for ever (paper Tables 1 and 2).
- ``ClaimingWorker``: the adversary of Fig. 3: claims completion every attempt, tries to rewrite
  the gate, and never writes anything the gate accepts.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from corpus.catalogue import Loop
from corpus.model import EQUIVALENT
from corpus.operators import generate
from corpus.tier2 import load_tier2
from harness.core import runio
from harness.core.engine import EngineReply, EngineRequest, ToolCall, Usage, estimate_tokens
from harness.core.errors import ExitCode

CONFORMING = "conforming"
ACCEPT_TOKEN = "ACCEPT"


@dataclass(frozen=True)
class Candidate:
    id: str
    label: str            # "conforming", "destroying" or "preserving"
    content: bytes | None  # None: the artifact deleted


def corpus_pool(loop: Loop, tier: int, family: str = "v1") -> list[Candidate]:
    """The conforming artifact plus the loop's tier-1 mutants of ``family`` (tier 1; equivalent
    ones dropped: they are the artifact) or its hand-authored tier-2 mutants (tier 2), in a fixed
    order. The tiers are kept apart, as the paper keeps their rates apart (Table 4)."""
    pool = [Candidate(f"{loop.id}/conforming", CONFORMING, loop.target_path.read_bytes())]
    if tier == 1:
        muts = [] if loop.tier1_excluded else generate(loop.artifact_spec(), family)
    elif tier == 2:
        muts = load_tier2(loop)
    else:
        raise ValueError(f"tier must be 1 or 2, got {tier!r}")
    pool += [Candidate(m.id, m.label, m.content) for m in muts if m.label != EQUIVALENT]
    return pool


def _reply(text: str, calls: list[ToolCall], model: str) -> EngineReply:
    out = sum(estimate_tokens(str(c.arguments)) for c in calls) + estimate_tokens(text)
    return EngineReply(text, calls, Usage(output_tokens=out), "tool_use" if calls else "end_turn", model)


class CorpusWorker:
    name = "simulated"

    def __init__(self, pool: list[Candidate], target: str, seed: str):
        self.pool, self.target = list(pool), target
        self.rng = random.Random(seed)
        self.queue: list[Candidate] = []
        self.drawn: list[Candidate] = []

    def complete(self, request: EngineRequest) -> EngineReply:
        if not self.queue:
            self.queue = list(self.pool)
            self.rng.shuffle(self.queue)
        c = self.queue.pop(0)
        self.drawn.append(c)
        call = (ToolCall(f"w{len(self.drawn)}", "delete_file", {"path": self.target}) if c.content is None else
                ToolCall(f"w{len(self.drawn)}", "write_file",
                         {"path": self.target, "content": c.content.decode("utf-8", "replace")}))
        claim = ToolCall(f"c{len(self.drawn)}", "claim_done", {"note": "the artifact meets the requirement"})
        return _reply("Done: the artifact meets the requirement.", [call, claim], "simulated-corpus")


class ScriptedWorker:
    """``productive`` drafts, each different, then ``"ACCEPT"`` (if ``accepts``) or one stuck draft
    for ever; the artifact is a JSON string (the scripted gate's schema)."""

    name = "scripted"

    def __init__(self, target: str, productive: int, accepts: bool):
        self.target, self.productive, self.accepts, self.n = target, productive, accepts, 0

    def complete(self, request: EngineRequest) -> EngineReply:
        self.n += 1
        if self.n <= self.productive:
            body = json.dumps(f"draft {self.n}")
        else:
            body = json.dumps(ACCEPT_TOKEN if self.accepts else "stuck draft")
        return _reply("Done.", [ToolCall(f"s{self.n}", "write_file", {"path": self.target, "content": body})],
                      "scripted")


class ClaimingWorker:
    """Claims completion every time, tries to overwrite the gate, writes a non-conforming artifact."""

    name = "claiming"

    def __init__(self, target: str, gate_path: str):
        self.target, self.gate_path, self.n = target, gate_path, 0

    def complete(self, request: EngineRequest) -> EngineReply:
        self.n += 1
        calls = [ToolCall(f"g{self.n}", "write_file", {"path": self.gate_path, "content": "[gate]\nkind='command'\n"}),
                 ToolCall(f"w{self.n}", "write_file", {"path": self.target, "content": f"I am done ({self.n}).\n"}),
                 ToolCall(f"c{self.n}", "claim_done", {"note": "all requirements verified, tests pass"})]
        return _reply("DONE. Everything passes; the gate is satisfied.", calls, "claiming")


SCRIPTED_SCHEMA = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string",
                   "pattern": f"^{ACCEPT_TOKEN}$"}


def write_scripted_gate(directory) -> Path:
    """A real jsonschema gate (corpus.gates) over a JSON string artifact: it accepts exactly
    ``"ACCEPT"`` and rejects anything else with a message quoting the artifact, so every new
    draft changes the gate's message and a repeated draft repeats it."""
    d = Path(directory)
    rerun = f"harness reproduce bounded-loops --out {d.parent}"
    runio.make_dir(d, rerun, ExitCode.BAD_INPUT)
    # atomic: a full disk left an empty schema.json under its name (one line, exit 2, nothing partial)
    runio.write_atomic(d / "schema.json", json.dumps(SCRIPTED_SCHEMA), rerun, ExitCode.BAD_INPUT)
    runio.write_atomic(d / "gate.toml", '[gate]\nname = "scripted"\nkind = "jsonschema"\nschema = "schema.json"\n',
                       rerun, ExitCode.BAD_INPUT)
    return d / "gate.toml"
