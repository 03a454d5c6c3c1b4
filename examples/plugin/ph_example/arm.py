"""An arm: a controller over the cell, with its parameters (allowed keys, types, defaults) declared once."""
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from harness.api import ARMS, ArmParams, ArmResult, Count, run_attempt


@dataclass(frozen=True)
class TwiceParams(ArmParams):
    tries: Annotated[int, Field(ge=1)] = 2  # a protocol may set `tries = N` on the arm


# worst case per execution of a cell (`harness plan --worst-case`): `tries` attempts, no reviewer call
@ARMS.register("A1-twice", params=TwiceParams, max_attempts=Count(param="tries"), max_reviews=Count(0))
def run_twice(ctx, arm) -> ArmResult:
    """Prompt-only, asked `tries` times without any check in between; ships the last tree."""
    for _ in range(arm.get("tries")):
        if run_attempt(ctx, ctx.prompt).stop == "human_gate":
            return ArmResult(False, False, "human_gate")
    return ArmResult(True, False, "shipped")
