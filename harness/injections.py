"""Scenarios (tasks/scenarios.toml): fixed-point changes applied to a cell before it runs.

The skeleton supports ``start_candidate`` (the workspace starts with a candidate of that kind in
place: for B2 the plausible-wrong one, visible test green and oracle red, the same for every
engine). The injections issue adds prompt, file, tool-behaviour and run-level changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import InputError
from harness.tasks import Task
from harness.tomlfile import load_toml

SCENARIO_KEYS = {"property", "readout", "start_candidate", "needs_second_attempt", "sim"}


def load_scenarios(tasks_dir: Path) -> dict[str, dict]:
    path = Path(tasks_dir) / "scenarios.toml"
    data = load_toml(path)
    for sid, spec in data.items():
        for k in spec:
            if k not in SCENARIO_KEYS:
                raise InputError(str(path), f"{sid}.{k}", f"unknown key (expected one of {sorted(SCENARIO_KEYS)})")
    data.setdefault("null", {"property": "baseline", "readout": "completion"})
    return data


@dataclass
class Injection:
    prompt: str
    overlay: dict[str, str] = field(default_factory=dict)


def apply(task: Task, scenario_id: str, spec: dict) -> Injection:
    """The cell's starting prompt and workspace overlay under this scenario."""
    overlay: dict[str, str] = {}
    kind = spec.get("start_candidate")
    if kind:
        options = task.candidates_of(kind)
        if not options:
            raise InputError(str(task.root / "task.toml"), "candidates",
                             f"scenario {scenario_id} needs a {kind!r} candidate and the task has none")
        overlay.update(options[0].files())
    return Injection(task.prompt, overlay)
