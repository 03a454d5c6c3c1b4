"""The five control policies (paper section 5.2), as controllers over one engine and tool surface.

Every controller returns an ArmResult saying whether it shipped; the adjudicator decides the
outcome from the final tree. Shipping rules:

- A1 prompt-only: one attempt; ships whatever it has (it has no check to fail).
- A2 naive retry: after each attempt the controller runs the pristine visible test; on failure
  it retries blindly with the test output, up to R attempts; ships when visible passes, else
  stops without shipping.
- A2p: A2 bounded by a token and wall-clock budget enforced inside an attempt (each engine call
  is clamped to what is left; the attempt stops when it is spent); ships only if visible passes
  on the tree the budget left behind.
- A3 review-only: A2, then exactly one advisory review. A block feeds the findings back for one
  revision; the revision ships if visible still passes, otherwise the reviewed tree ships. The
  review never blocks shipping and is not iterated.
- A4 evidence-gated loop: plan -> execute -> visible gate -> review -> (block: bounded
  reflection and repair) -> gate -> done. Ships only on admissible evidence: the pristine visible
  test passed on the current tree AND a reviewer ship verdict is bound to the same tree digest.
  With receipts (the cell has a notary) the test's evidence is its signed receipt, admitted by
  Eq. 2 (harness.judge.evidence.admissible): Fresh (bound to the live tree, whose reading read
  every entry: one past the tree's limits leaves its digest no proof), Complete, signed by
  the run's judge key, attested, about this claim, passing. An edit after the check or the review
  makes the evidence stale: refused with its reason code (``gate_refuse``, ``code``), and the loop
  goes on to another attempt. The agent's own test runs and its "done" are claims, never
  evidence. Out of attempts or review rounds: safe stop.
  ``reflection = false`` gives the paper's A4-C (one review gate, a block stops).

Every arm honours ``ask_human`` (a human-gate event): the worker stopped to ask, so the cell stops
there and nothing ships (reason "human_gate").
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.control.attempt import (
    PLAN_SUFFIX,
    CellContext,
    GateCheck,
    failure_feedback,
    findings_feedback,
    request_review,
    run_attempt,
    visible_gate,
)
from harness.control.reviewer import ReviewVerdict
from harness.core.arm_params import ArmParams, BudgetedRetryParams, Count, GatedLoopParams, RetryParams
from harness.core.events import AdvisoryRevertEvent, GateAdmitEvent, GateRefuseEvent
from harness.core.protocol import Arm
from harness.core.registry import ARMS
from harness.core.treereading import tree_digest
from harness.judge import evidence
from harness.ledger.receipts import Reason

# each controller's parameters (the protocol's allowed keys, types and defaults) and worst-case counts are
# declared once, in harness.core.arm_params and harness.core.builtin_parts (which names these controllers)
__all__ = ["ArmParams", "ArmResult", "BudgetedRetryParams", "Count", "GatedLoopParams", "RetryParams", "admissible",
           "run_a1", "run_a2", "run_a3", "run_a4", "run_arm"]


@dataclass
class ArmResult:
    shipped: bool
    single_shot: bool
    reason: str  # why the controller stopped: "shipped", "retries_exhausted", "budget:tokens", ...


def admissible(check: GateCheck, verdict: ReviewVerdict | None, current_digest: str) -> bool:
    """A4's done gate: visible pass and a ship verdict, both bound to the current tree."""
    return (check.passed and verdict is not None and verdict.verdict == "ship"
            and check.tree_digest == verdict.tree_digest == current_digest)


def gate_reason(ctx: CellContext, check: GateCheck, verdict: ReviewVerdict, live: str,
                unread: Sequence[str] = ()) -> tuple[Reason, str]:
    """Why A4's done gate refuses (``Reason``), or ``ok``: the test evidence by Eq. 2 over its receipt
    when the cell issues receipts (else the check's own digest and pass), and the reviewer's ship
    verdict bound to the live tree. ``unread``: the live reading's entries past the tree's limits
    (``TreeReading.unread``); with any, no digest shows the tree unchanged (``stale``)."""
    if ctx.notary is not None:
        if check.receipt is None:
            return Reason.BUILD_PROOF_MISSING, "no receipt for the visible check"
        reason, why = evidence.admissible(check.receipt, claim=("gate", "visible"), live_digest=live,
                                          ctx=ctx.notary.ctx, trusted_public_raw=ctx.notary.signer.public_raw,
                                          live_unread=unread)
        if reason is not Reason.OK:
            return reason, why
    elif (problem := evidence.unread_problem(unread)) is not None:
        return problem
    elif check.tree_digest != live:
        return Reason.STALE, "the tree changed after the check"
    elif not check.passed:
        return Reason.RECEIPT_NOT_PASSING, "the check failed"
    if verdict.tree_digest != live:
        return Reason.STALE, "the review is of another tree"
    return (Reason.OK, "") if verdict.verdict == "ship" else (Reason.DECISION_NOT_PASS, "the review blocked")


def run_a1(ctx: CellContext, arm: Arm) -> ArmResult:
    if run_attempt(ctx, ctx.prompt).stop == "human_gate":
        return ArmResult(False, True, "human_gate")
    return ArmResult(True, True, "single_shot")


def _retry_loop(ctx: CellContext, retries: int) -> tuple[GateCheck | None, str]:
    """A2's loop. Returns the last visible check (None if the worker stopped to ask a human) and why it stopped."""
    message = ctx.prompt
    check = None
    for _ in range(retries):
        res = run_attempt(ctx, message)
        if res.stop == "human_gate":
            return None, "human_gate"
        check = visible_gate(ctx)
        if check.passed:
            return check, "visible_pass"
        if res.stop.startswith("budget:"):
            return check, res.stop
        if bound := ctx.budget.check():
            return check, "budget:" + bound
        message = failure_feedback(check)
    return check, "retries_exhausted"


def run_a2(ctx: CellContext, arm: Arm) -> ArmResult:
    check, why = _retry_loop(ctx, arm.get("retries"))
    passed = check is not None and check.passed
    return ArmResult(passed, False, "shipped" if passed else why)


def run_a3(ctx: CellContext, arm: Arm) -> ArmResult:
    check, why = _retry_loop(ctx, arm.get("retries"))
    if check is None or not check.passed:
        return ArmResult(False, False, why)
    verdict = request_review(ctx)
    ctx.review_rounds = 1
    if verdict.verdict != "block":
        return ArmResult(True, False, "shipped")
    reviewed = ctx.ws.files()
    if run_attempt(ctx, findings_feedback(verdict, reflect=False)).stop == "human_gate":
        return ArmResult(False, False, "human_gate")
    if visible_gate(ctx).passed:
        return ArmResult(True, False, "shipped_revision")
    ctx.ws.restore(reviewed)
    ctx.log.emit(AdvisoryRevertEvent(reason="revision failed visible acceptance; shipping the reviewed tree"))
    return ArmResult(True, False, "shipped_reviewed_tree")


def run_a4(ctx: CellContext, arm: Arm) -> ArmResult:
    own = arm.settings_as(GatedLoopParams)
    attempts_left, rounds_left, reflection = own.attempts, own.review_rounds, own.reflection
    ctx.system = ctx.system + PLAN_SUFFIX
    message = ctx.prompt
    while True:
        if attempts_left <= 0:
            return ArmResult(False, False, "safe_stop:attempts")
        res = run_attempt(ctx, message)
        attempts_left -= 1
        if res.stop == "human_gate":
            return ArmResult(False, False, "human_gate")
        if res.stop.startswith("budget:"):
            return ArmResult(False, False, "safe_stop:" + res.stop)
        check = visible_gate(ctx)
        if not check.passed:
            message = failure_feedback(check)
            continue
        verdict = request_review(ctx)
        if verdict.verdict is None:  # unparseable: ask once more, never treat it as ship or block
            verdict = request_review(ctx)
            if verdict.verdict is None:
                return ArmResult(False, False, "safe_stop:review_unparseable")
        live = ctx.ws.reading()
        code, why = gate_reason(ctx, check, verdict, tree_digest(live), live.unread)
        if code is Reason.OK:
            ctx.log.emit(GateAdmitEvent(tree_digest=check.tree_digest, receipt=_digest_of(check)))
            return ArmResult(True, False, "shipped")
        if verdict.verdict == "ship":  # the evidence is refused (stale: the tree changed after the check or review)
            ctx.log.emit(GateRefuseEvent(reason="stale evidence" if code is Reason.STALE else "inadmissible evidence",
                                         code=code.value, detail=why, check=check.tree_digest, review=verdict.tree_digest))
            message = "The tree changed after it was checked; re-check it."
            continue
        ctx.review_rounds += 1
        rounds_left -= 1
        ctx.log.emit(GateRefuseEvent(reason="review blocked", round=ctx.review_rounds))
        if not reflection or rounds_left <= 0:
            return ArmResult(False, False, "safe_stop:review_blocked")
        message = findings_feedback(verdict, reflect=True)


def _digest_of(check: GateCheck) -> str | None:
    from harness.ledger.receipts import receipt_digest
    return receipt_digest(check.receipt) if check.receipt else None


def run_arm(ctx: CellContext, arm: Arm) -> ArmResult:
    """Run the arm's registered controller (built-in or a plug-in's) on the cell."""
    return ARMS.get(arm.controller).obj(ctx, arm)
