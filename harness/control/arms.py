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
  An edit after review makes the verdict stale. Out of attempts or review rounds: safe stop.
  ``reflection = false`` gives the paper's A4-C (one review gate, a block stops).

Every arm honours ``ask_human`` (a human-gate event): the worker stopped to ask, so the cell stops
there and nothing ships (reason "human_gate").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

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
from harness.core.protocol import Arm
from harness.core.registry import ARMS
from harness.ledger.worst_case import Count

# -- each controller's parameters, declared once: the protocol's allowed keys, types and defaults --
PositiveInt = Annotated[int, Field(ge=1)]


@dataclass(frozen=True)
class ArmParams:
    """Keys every arm accepts. A token or wall budget on any arm is enforced inside its attempts."""

    engine: str | None = None
    model: str | None = None
    reviewer_engine: str | None = None
    reviewer_model: str | None = None
    max_turns: PositiveInt | None = None
    token_budget: PositiveInt | None = None
    wall_budget_s: Annotated[float, Field(gt=0)] | None = None


@dataclass(frozen=True)
class RetryParams(ArmParams):
    retries: PositiveInt = 3  # A2/A3: visible-test retries


@dataclass(frozen=True)
class BudgetedRetryParams(RetryParams):
    token_budget: PositiveInt | None = 8000  # A2p: paper section 5.2's budgeted retry
    wall_budget_s: Annotated[float, Field(gt=0)] | None = 120.0


@dataclass(frozen=True)
class GatedLoopParams(ArmParams):
    attempts: PositiveInt = 3
    review_rounds: Annotated[int, Field(ge=0)] = 2
    reflection: bool = True  # false: the paper's A4-C (one review gate, a block stops)


@dataclass
class ArmResult:
    shipped: bool
    single_shot: bool
    reason: str  # why the controller stopped: "shipped", "retries_exhausted", "budget:tokens", ...


def admissible(check: GateCheck, verdict: ReviewVerdict | None, current_digest: str) -> bool:
    """A4's done gate: visible pass and a ship verdict, both bound to the current tree."""
    return (check.passed and verdict is not None and verdict.verdict == "ship"
            and check.tree_digest == verdict.tree_digest == current_digest)


@ARMS.register("A1", params=ArmParams, single_shot=True, max_attempts=Count(1), max_reviews=Count(0))
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


@ARMS.register("A2", params=RetryParams, max_attempts=Count(param="retries"), max_reviews=Count(0))
def run_a2(ctx: CellContext, arm: Arm) -> ArmResult:
    check, why = _retry_loop(ctx, arm.get("retries"))
    passed = check is not None and check.passed
    return ArmResult(passed, False, "shipped" if passed else why)


@ARMS.register("A3", params=RetryParams, max_attempts=Count(1, "retries"), max_reviews=Count(1))
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
    ctx.log.emit("advisory_revert", reason="revision failed visible acceptance; shipping the reviewed tree")
    return ArmResult(True, False, "shipped_reviewed_tree")


# each attempt can reach one review, asked twice when the first reply does not parse
@ARMS.register("A4", params=GatedLoopParams, max_attempts=Count(param="attempts"),
               max_reviews=Count(param="attempts", times=2))
def run_a4(ctx: CellContext, arm: Arm) -> ArmResult:
    attempts_left = arm.get("attempts")
    rounds_left = arm.get("review_rounds")
    reflection = arm.get("reflection")
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
        if admissible(check, verdict, ctx.ws.digest()):
            ctx.log.emit("gate_admit", tree_digest=check.tree_digest)
            return ArmResult(True, False, "shipped")
        if verdict.verdict == "ship":  # stale evidence: the tree changed after the check or review
            ctx.log.emit("gate_refuse", reason="stale evidence", check=check.tree_digest, review=verdict.tree_digest)
            message = "The tree changed after it was checked; re-check it."
            continue
        ctx.review_rounds += 1
        rounds_left -= 1
        ctx.log.emit("gate_refuse", reason="review blocked", round=ctx.review_rounds)
        if not reflection or rounds_left <= 0:
            return ArmResult(False, False, "safe_stop:review_blocked")
        message = findings_feedback(verdict, reflect=True)


ARMS.add("A2p", run_a2, params=BudgetedRetryParams, budgeted=True, max_attempts=Count(param="retries"),
         max_reviews=Count(0))


def run_arm(ctx: CellContext, arm: Arm) -> ArmResult:
    """Run the arm's registered controller (built-in or a plug-in's) on the cell."""
    return ARMS.get(arm.controller).obj(ctx, arm)
