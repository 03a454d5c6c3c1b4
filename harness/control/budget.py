"""Token and wall-clock budgets, enforced inside an attempt (A2p; any arm may declare one).

Each engine call's max_tokens is clamped to what is left; when the tokens or the time are spent
the attempt stops where it is (hard truncation). ``bound`` records which limit bound first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Budget:
    tokens: int | None = None
    wall_s: float | None = None
    spent_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    bound: str | None = None  # "tokens" | "wall" once a limit binds

    @property
    def deadline(self) -> float | None:
        return None if self.wall_s is None else self.started + self.wall_s

    def remaining_tokens(self) -> int | None:
        return None if self.tokens is None else self.tokens - self.spent_tokens

    def clamp(self, max_tokens: int) -> int:
        left = self.remaining_tokens()
        return max_tokens if left is None else max(0, min(max_tokens, left))

    def charge(self, tokens: int) -> None:
        self.spent_tokens += tokens
        self.check()

    def check(self) -> str | None:
        """The limit that has bound (tokens checked first: 'token binds first'), else None."""
        if self.bound is None:
            left = self.remaining_tokens()
            if left is not None and left <= 0:
                self.bound = "tokens"
            elif self.deadline is not None and time.monotonic() >= self.deadline:
                self.bound = "wall"
        return self.bound
