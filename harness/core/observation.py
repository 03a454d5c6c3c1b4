"""Typed observations: what the controller saw, as data, beside the prose a model reads.

The controller and the tool surface attach one to the messages they write (a failed visible test,
a reviewer's block, a missing file, a tool error, lost context). Live engines see only the prose
(``Message.content``); the simulated engine is a policy over these kinds, so rewording a message
never changes a simulated outcome. Transcripts keep the prose only, as before.
"""
from __future__ import annotations

from dataclasses import dataclass

VISIBLE_FAILED = "visible_failed"      # the pristine visible test failed (controller feedback or run_acceptance)
VISIBLE_PASSED = "visible_passed"      # run_acceptance passed
REVIEWER_BLOCKED = "reviewer_blocked"  # a reviewer blocked the change (its findings are the prose)
FILE_MISSING = "file_missing"          # the file a tool was asked about does not exist
TOOL_ERROR = "tool_error"              # a malformed call or the agent's own bad call
REFUSED = "refused"                    # the controller refused the call (out of scope, escape, program)
CONTEXT_LOST = "context_lost"          # the host truncated the conversation or restarted
KINDS = (VISIBLE_FAILED, VISIBLE_PASSED, REVIEWER_BLOCKED, FILE_MISSING, TOOL_ERROR, REFUSED, CONTEXT_LOST)


@dataclass(frozen=True)
class Observation:
    kind: str  # one of KINDS

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown observation kind {self.kind!r}; known: {KINDS}")


class Observed(str):
    """Prose that carries the typed observation it reports (it is still a plain string to every reader)."""

    observation: Observation | None

    def __new__(cls, text: str, observation: Observation | None) -> "Observed":
        obj = super().__new__(cls, text)
        obj.observation = observation
        return obj


def observed(text: str, kind: str) -> Observed:
    return Observed(text, Observation(kind))


def kind_of(x: object) -> str | None:
    """The observation kind a message or an Observed string carries (None: none)."""
    obs = getattr(x, "observation", None)
    return obs.kind if obs is not None else None
