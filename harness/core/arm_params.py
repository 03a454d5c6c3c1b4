"""What a built-in or plug-in arm declares beside its controller: its parameter dataclass (the
protocol's allowed keys under ``[arms.NAME]``, their types and defaults; paper section 5.2) and its
worst-case counts (``Count``). Pure configuration, so the protocol's checks and the worst case
(below the control layer) read them without importing a controller."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from harness.core.errors import HarnessError

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


class Unbounded(HarnessError):
    """A term of the bound that cannot be derived from what the protocol and the registry declare."""


@dataclass(frozen=True)
class Count:
    """A count an arm declares for its worst case, linear in one of its parameters:
    ``times * arm.get(param) + plus`` (``param`` None: the constant ``plus``). Arms register two,
    ``max_attempts`` (W, worker attempts) and ``max_reviews`` (V, reviewer calls), per execution
    of a cell; e.g. A3 declares W = ``Count(1, "retries")`` and V = ``Count(1)``."""
    plus: int = 0
    param: str | None = None
    times: int = 1

    def of(self, arm) -> int:
        """The count for ``arm`` (its parameter resolved with the controller's default)."""
        if self.param is None:
            return self.plus
        value = arm.get(self.param)
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unbounded(f"arm {arm.name}: its declared bound counts parameter {self.param!r}, "
                            f"which is {value!r}, not an integer")
        return self.times * value + self.plus

    def __str__(self) -> str:
        if self.param is None:
            return str(self.plus)
        term = self.param if self.times == 1 else f"{self.times}*{self.param}"
        return term if self.plus == 0 else f"{term}+{self.plus}"
