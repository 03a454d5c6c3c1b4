"""Which engine and which model each role of a cell uses: answered once, by ``resolve_roles``.

A cell has two roles that call an engine, the worker (the agent under test) and the reviewer
(A3's advisory review, A4's gate). Each is bound, most specific first:

    worker engine     the arm's ``engine``, else the run's engine (``--engine``, else [protocol] engine)
    reviewer engine   the arm's ``reviewer_engine``, else the run's reviewer engine
                      (``--reviewer-engine``, else the run's engine)
    worker model      the arm's ``model``, else the cell's ``model`` factor, else ``--model``
    reviewer model    the arm's ``reviewer_model``, else the worker model

The cell runner binds its engines by it, the driver checks engines, models and prices before a run
by it, and the worst case (harness.ledger.worst_case) prices by it, so the bound prices the engines
and models the run calls.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Mapping, Protocol

from harness.core.arm_params import ArmParams
from harness.core.runmeta import RunMeta


class Role(str, Enum):
    """The roles of a cell that call an engine (their values are the records' and ledgers' role names)."""
    WORKER = "worker"
    REVIEWER = "reviewer"


class _ArmLike(Protocol):
    @property
    def settings(self) -> ArmParams: ...


@dataclass(frozen=True)
class RunEngines:
    """The run-wide choice, as run.json records it: ``engine``, ``reviewer_engine`` and ``model``."""
    engine: str
    reviewer_engine: str
    model: str | None = None

    @classmethod
    def choose(cls, protocol_engine: str, engine: str | None = None, reviewer_engine: str | None = None,
               model: str | None = None) -> RunEngines:
        """The run's engines from the command line's options over the protocol's engine: ``--engine``,
        else the protocol's; ``--reviewer-engine``, else the run's engine."""
        run_engine = engine or protocol_engine
        return cls(run_engine, reviewer_engine or run_engine, model)

    @classmethod
    def of_run(cls, meta: RunMeta) -> RunEngines:
        """The choice a run recorded in its run.json (``engine``, ``reviewer_engine``, ``model``)."""
        return cls(meta.engine, meta.reviewer_engine, meta.model)


@dataclass(frozen=True)
class Binding:
    """One role's engine name and model id (None: the engine's own default, or none needed)."""
    engine: str
    model: str | None


@dataclass(frozen=True)
class Roles:
    """The engine and model of each role of one cell."""
    worker: Binding
    reviewer: Binding

    def of(self, role: Role) -> Binding:
        return self.worker if role is Role.WORKER else self.reviewer


def resolve_roles(arm: _ArmLike, run: RunEngines, factors: Mapping[str, str] | None = None) -> Roles:
    """The engine and model per role of a cell of ``arm`` (the module docstring's order); ``factors``
    are the cell's factor levels (a ``model`` factor names the worker's model)."""
    own = arm.settings
    w_model = own.model or (factors or {}).get("model") or run.model
    worker = Binding(own.engine or run.engine, w_model)
    reviewer = Binding(own.reviewer_engine or run.reviewer_engine, own.reviewer_model or w_model)
    return Roles(worker, reviewer)


def model_levels(factors: Mapping[str, tuple[str, ...]]) -> list[dict[str, str]]:
    """The cells' possible ``model`` factor settings (one empty setting when the model is no factor):
    what a check over every cell's roles iterates, without enumerating the matrix."""
    return [{"model": m} for m in factors["model"]] if "model" in factors else [{}]
