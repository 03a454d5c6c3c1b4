"""Protocol texts for tests: the smallest ``[protocol]`` table that validates, with empty arms.

Many tests need a protocol whose only point is which tasks, scenarios and arms it names; writing
the whole table out in each file made the files repeat each other. ``minimal_protocol`` gives
the same TOML each of them wrote (a leading blank line, ``tasks_dir = "tasks"``, one
``[arms.X]`` line per arm), so a test appends the tables it is about (hypotheses, limits, ...).
"""
from __future__ import annotations

import json


def minimal_protocol(name: str, seed: int, *, tasks: tuple[str, ...] = ("parse-range",),
                     scenarios: tuple[str, ...] = ("null",), arms: tuple[str, ...] = ("A1",),
                     repeats: int = 1) -> str:
    """The ``[protocol]`` table named ``name`` (seed, repeats, tasks from ``tasks_dir = "tasks"``,
    scenarios) followed by one empty ``[arms.X]`` table per arm in ``arms``."""
    lines = ["", "[protocol]", f"name = {json.dumps(name)}", f"seed = {seed}", f"repeats = {repeats}",
             'tasks_dir = "tasks"', f"tasks = {json.dumps(list(tasks))}",
             f"scenarios = {json.dumps(list(scenarios))}", ""]
    lines += [f"[arms.{arm}]" for arm in arms]
    return "\n".join(lines) + "\n"
