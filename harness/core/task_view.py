"""The narrow view of a task that arms, engines and the reviewer receive.

A worker needs the prompt, the scope it may edit, the high-risk paths, and where the visible
acceptance test lives. It never needs the hidden oracle, the reference solution or the candidate
labels: those stay with the adjudicator (and the task loader). tests/harness/core/test_task_view.py
walks the AST of every arm, engine and reviewer module to prove none of them can reach them.

The simulated engine is the one exception, by design: it is a stand-in model that draws its
edits from the task's candidate bank, so it receives that bank (``SimulationBank``), never the
oracle or the reference; tests/harness/engines/test_simulated.py proves it never touches the oracle.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class TaskView:
    id: str
    prompt: str
    scope: tuple[str, ...]
    high_risk: tuple[str, ...]
    acceptance_dest: str  # where the visible test sits in the workspace (the pristine file's own path,
    # inside the task directory beside the oracle, stays with the harness: CellContext.acceptance)


@dataclass(frozen=True)
class SimulationBank:
    """What only the simulated engine may read: the candidate bank and the task's behaviour profile."""
    candidates: tuple = ()
    sim: dict = field(default_factory=dict)


def view_of(task: Any) -> TaskView:
    """The narrow view of a task (a TaskView is returned as is)."""
    if isinstance(task, TaskView):
        return task
    return TaskView(task.id, task.prompt, tuple(task.scope), tuple(task.high_risk), task.acceptance_dest)


def simulation_of(task: Any) -> SimulationBank:
    """The simulated engine's bank for a task (empty for a view: it has none)."""
    if isinstance(task, TaskView):
        return SimulationBank()
    return SimulationBank(tuple(task.candidates), dict(task.sim))
