"""The reviewer: sees the task prompt and the change, returns a structured ship/block verdict.

It never sees the hidden oracle, a candidate label, or the defect kind: the packet is built
only from the prompt and the workspace diff. A reply that does not parse is its own outcome
(verdict None), neither ship nor block; the arm's policy decides what to do with it.
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field

from harness.core.engine import Engine, EngineRequest, Message, Usage
from harness.core.safe_text import printable
from harness.ledger.worst_case import REVIEW_MAX_TOKENS

REVIEWER_SYSTEM = (
    "You are a strict code reviewer. Decide whether the change correctly and completely implements "
    "the task. Reply with JSON only: {\"verdict\": \"ship\" | \"block\", \"findings\": "
    "[{\"severity\": \"high\" | \"medium\" | \"low\", \"message\": \"...\"}]}. Block if any requirement "
    "of the task is not met; name the defect precisely."
)
SEVERITIES = ("high", "medium", "low")


@dataclass
class ReviewVerdict:
    verdict: str | None  # "ship" | "block" | None (unparseable)
    findings: list[dict] = field(default_factory=list)
    tree_digest: str = ""
    raw: str = ""
    parse_error: str | None = None
    usage: Usage = field(default_factory=Usage)
    model_id: str = ""


def review_packet(prompt: str, before: dict[str, str], after: dict[str, str]) -> str:
    """The reviewer's only input: the task prompt, a unified diff and the changed files in full."""
    return f"TASK:\n{prompt}\n\n{change_text(before, after)}"


def change_text(before: dict[str, str], after: dict[str, str]) -> str:
    """The change as the reviewer sees it: a unified diff, then every changed file in full."""
    changed = sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
    diff: list[str] = []
    for p in changed:
        diff.extend(difflib.unified_diff(before.get(p, "").splitlines(True), after.get(p, "").splitlines(True),
                                         f"a/{p}", f"b/{p}"))
    blocks = [f"=== FILE: {p} ===\n{after[p]}\n=== END FILE ===" for p in changed if p in after]
    # a name or link target that is not UTF-8 (lone surrogates) is shown by its bytes: the packet goes
    # to a model as strict UTF-8, and one unencodable character would fail the call and void the cell
    return printable(f"DIFF:\n{''.join(diff) or '(no changes)'}\n\nCHANGED FILES:\n" + "\n".join(blocks))


def parse_verdict(text: str) -> tuple[str | None, list[dict], str | None]:
    """(verdict, findings, error). Accepts a JSON object, optionally inside a ```json fence."""
    m = re.search(r"\{.*\}", text, re.S)
    if not m:
        return None, [], "no JSON object in reply"
    try:
        obj = json.loads(m.group(0))
    except json.JSONDecodeError as exc:
        return None, [], f"invalid JSON: {exc.msg}"
    v = obj.get("verdict") if isinstance(obj, dict) else None
    if v not in ("ship", "block"):
        return None, [], f"verdict must be 'ship' or 'block', got {v!r}"
    findings = obj.get("findings", [])
    if not isinstance(findings, list) or not all(isinstance(f, dict) and isinstance(f.get("message"), str)
                                                 for f in findings):
        return None, [], "findings must be a list of {severity, message}"
    return v, [{"severity": f.get("severity") if f.get("severity") in SEVERITIES else "medium",
                "message": f["message"]} for f in findings], None


def review(engine: Engine, prompt: str, before: dict[str, str], after: dict[str, str], tree_digest: str,
           max_tokens: int = REVIEW_MAX_TOKENS, deadline: float | None = None) -> ReviewVerdict:
    return review_text(engine, review_packet(prompt, before, after), tree_digest, max_tokens, deadline)


def review_text(engine: Engine, packet: str, tree_digest: str = "", max_tokens: int = REVIEW_MAX_TOKENS,
                deadline: float | None = None) -> ReviewVerdict:
    """Ask the reviewer engine about a packet built by review_packet."""
    req = EngineRequest("reviewer", REVIEWER_SYSTEM, [Message("user", packet)], [], max_tokens, deadline)
    reply = engine.complete(req)
    v, findings, err = parse_verdict(reply.text)
    return ReviewVerdict(v, findings, tree_digest, reply.text, err, reply.usage, reply.model_id)
