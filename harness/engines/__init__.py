"""Engine registry: name -> factory(context) -> Engine. Live engines register themselves here."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from harness.engine import Engine
from harness.tasks import Task


@dataclass
class EngineContext:
    """What an engine factory may use to build the engine for one cell and one role."""

    role: str  # "worker" | "reviewer"
    task: Task
    scenario: dict  # the scenario's spec (from tasks/scenarios.toml)
    seed: str  # the cell's seed string (protocol seed and matched-cell unit, never the arm)
    model: str | None = None
    options: dict = field(default_factory=dict)


FACTORIES: dict[str, Callable[[EngineContext], Engine]] = {}


def register(name: str):
    def deco(factory):
        FACTORIES[name] = factory
        return factory
    return deco


BUILTIN = ("simulated", "replay", "anthropic", "openai")
LIVE = ("anthropic", "openai")  # engines that call a provider and need a model id


def known() -> list[str]:
    """Every engine name a run may use: the built-in ones (loaded on first use) and any registered."""
    return sorted(set(BUILTIN) | set(FACTORIES))


def make_engine(name: str, ctx: EngineContext) -> Engine:
    if name not in FACTORIES:
        _load_builtin(name)
    if name not in FACTORIES:
        raise KeyError(f"unknown engine {name!r}; known: {known()}")
    return FACTORIES[name](ctx)


def _load_builtin(name: str) -> None:
    import importlib
    try:
        importlib.import_module(f"harness.engines.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"harness.engines.{name}":
            raise
