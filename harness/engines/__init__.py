"""Engine registry: name -> factory(context) -> Engine, in the one plug-in registry (harness.core.registry).

Built-in engines are declared in ``harness.core.builtin_parts`` (each module's ``_factory``, imported
when the engine is built); a plug-in registers with ``@register``, and a separately installed package adds one
through the ``proof_harness.engines`` entry-point group. ``live=True`` marks an engine that calls a
provider and so needs a model id.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.core.engine import Engine
from harness.core.registry import ENGINES
from harness.core.task_view import SimulationBank, TaskView, simulation_of, view_of


@dataclass
class EngineContext:
    """What an engine factory may use to build the engine for one cell and one role."""

    role: str  # "worker" | "reviewer"
    task: TaskView | None  # the narrow view (harness.core.task_view; a whole Task given is narrowed); None: a
    # task-less worker (a bounded loop's, harness.loop.loop_runs), whose prompt is its own
    scenario: dict  # the scenario's spec (from tasks/scenarios.toml)
    seed: str  # the cell's seed string (protocol seed and matched-cell unit, never the arm)
    model: str | None = None
    options: dict = field(default_factory=dict)
    simulation: SimulationBank | None = None  # the simulated engine's candidate bank; no other engine reads it

    def __post_init__(self) -> None:
        if self.task is not None and not isinstance(self.task, TaskView):
            self.simulation = self.simulation or simulation_of(self.task)
            self.task = view_of(self.task)


def register(name: str, **flags: Any) -> Callable[[Any], Any]:
    """Decorator: register an engine factory (``live=True``: it calls a provider and needs a model)."""
    return ENGINES.register(name, **flags)


def known() -> list[str]:
    """Every engine name a run may use: built-in and installed plug-ins."""
    return sorted(ENGINES.names())


def make_engine(name: str, ctx: EngineContext) -> Engine:
    """Build the named engine for one cell and role (UnknownPart, a KeyError, lists the known names).
    Only an engine registered with ``simulation_bank=True`` (the simulated engine) is handed the
    candidate bank: it carries the candidates' labels, which no other engine may hold."""
    part = ENGINES.get(name)
    if ctx.simulation is not None and not part.flag("simulation_bank"):
        ctx = dataclasses.replace(ctx, simulation=None)
    return part.obj(ctx)
