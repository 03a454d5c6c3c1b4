"""Arms, engines and the reviewer see a narrow view of the task (harness.core.task_view): the prompt,
the scope, the high-risk paths and the visible test. An AST walk (like the corpus blindness test)
proves no arm, engine or reviewer module names the oracle, the reference or the candidate labels or
imports the modules that hold them; at run time the objects they are handed carry none of them."""
from __future__ import annotations

import ast

import pytest

from harness.core.task_view import SimulationBank, TaskView, view_of
from harness.core.tasks import load_task
from harness.engines import EngineContext
from support.scripted import REPO, TASKS

WORKER_SIDE = ["harness/control/arms.py", "harness/control/attempt.py", "harness/control/reviewer.py",
               "harness/control/tools.py",
               "harness/engines/__init__.py", "harness/engines/anthropic.py", "harness/engines/openai.py",
               "harness/engines/live.py", "harness/engines/replay.py"]
# harness/engines/simulated.py is the one exception by design: a stand-in model drawing from the
# candidate bank (SimulationBank); tests/harness/engines/test_simulated.py proves it never touches the oracle.
FORBIDDEN_ATTRS = {"oracle", "reference", "candidates", "candidates_of", "ORACLE_DEST", "hidden_pass"}
FORBIDDEN_IMPORTS = {"harness.core.tasks", "harness.control.adjudicator", "harness.cli.validate", "harness.run.cellrun", "corpus"}


def check_module(path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in FORBIDDEN_ATTRS, f"{path.name}:{node.lineno} reads .{node.attr}"
        elif isinstance(node, ast.Name):
            assert node.id not in FORBIDDEN_ATTRS, f"{path.name}:{node.lineno} uses {node.id}"
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # getattr(task, "oracle"), importlib.import_module("harness.core.tasks"): names spelled as strings
            assert node.value not in FORBIDDEN_ATTRS and not any(
                node.value == f or node.value.startswith(f + ".") for f in FORBIDDEN_IMPORTS), \
                f"{path.name}:{node.lineno} spells {node.value!r}"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            # ``from harness import tasks`` imports harness.core.tasks: each imported name counts as a module
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
            for m in mods:
                assert not any(m == f or m.startswith(f + ".") for f in FORBIDDEN_IMPORTS), \
                    f"{path.name}:{node.lineno} imports {m}"


@pytest.mark.parametrize("rel", WORKER_SIDE)
def test_no_worker_side_module_can_reach_the_oracle_reference_or_labels(rel):
    check_module(REPO / rel)


@pytest.mark.parametrize("source", [
    "from harness.core.tasks import load_task\n",
    "def run(ctx, arm):\n    return ctx.task.oracle\n",
    "from harness.core import tasks\n",  # the module imported by name from its package
    "from harness.control import adjudicator as a\n",
    "import importlib\nt = importlib.import_module('harness.core.tasks')\n",
    "def run(ctx, arm):\n    return getattr(ctx.task, 'oracle')\n",
])
def test_the_walk_catches_a_violation(tmp_path, source):
    bad = tmp_path / "arm.py"
    bad.write_text(source)
    with pytest.raises(AssertionError):
        check_module(bad)


def test_contexts_hold_only_the_view(tmp_path):
    task = load_task(TASKS / "parse-range")
    view = view_of(task)
    assert isinstance(view, TaskView) and view.prompt == task.prompt and view.acceptance_dest == task.acceptance_dest
    assert not any(hasattr(view, a) for a in FORBIDDEN_ATTRS)
    ectx = EngineContext(role="worker", task=task, scenario={}, seed="s")  # a whole Task is narrowed
    assert isinstance(ectx.task, TaskView) and isinstance(ectx.simulation, SimulationBank)
    assert {c.kind for c in ectx.simulation.candidates} >= {"correct"}
    assert not hasattr(ectx.simulation, "oracle") and not hasattr(ectx.simulation, "reference")


def test_only_the_simulated_engine_is_handed_the_candidate_bank():
    """The candidate bank carries the candidates' labels (correct, subtle, ...). Only the simulated
    engine, a stand-in model drawing from it, may receive it; a live or plug-in engine built for the
    same cell gets no bank at all (not merely a module that happens not to read it)."""
    from harness.core.registry import ENGINES
    from harness.engines import make_engine

    seen = {}

    def factory(ctx):
        seen["ctx"] = ctx
        return object()

    ENGINES.load()
    ENGINES.add("rev12-spy", factory)
    try:
        task = load_task(TASKS / "parse-range")
        make_engine("rev12-spy", EngineContext(role="worker", task=task, scenario={}, seed="s"))
        assert seen["ctx"].simulation is None
        assert isinstance(seen["ctx"].task, TaskView)
        sim = make_engine("simulated", EngineContext(role="worker", task=task, scenario={}, seed="s"))
        assert sim.ctx.simulation is not None and sim.ctx.simulation.candidates
    finally:
        ENGINES._parts.pop("rev12-spy", None)


def test_a_loop_engine_without_a_task_can_be_started():
    """`harness loop run --engine replay|anthropic|openai` builds its worker with no task (a loop's
    prompt is its own): narrowing a missing task must not crash (it did: 'NoneType' object has no
    attribute 'candidates', reported as "cannot start the engine")."""
    from harness.core.registry import ENGINES
    from harness.loop.loop_runs import start_engine

    seen = {}
    ENGINES.load()
    ENGINES.add("rev12-loop-spy", lambda ctx: seen.setdefault("ctx", ctx))
    try:
        start_engine("rev12-loop-spy", None, {}, 7)
        assert seen["ctx"].task is None and seen["ctx"].simulation is None and seen["ctx"].seed == "7"
    finally:
        ENGINES._parts.pop("rev12-loop-spy", None)


def test_no_engine_is_handed_a_path_into_the_task_directory():
    """The narrow view is the prompt, the scope and the acceptance *destination* (issue 12). It also
    carried the pristine acceptance file's path, tasks/ID/acceptance/..., whose parent is the task
    root holding oracle/, reference/ and candidates/: any engine could walk there from it."""
    import dataclasses
    from pathlib import Path

    task = load_task(TASKS / "parse-range")
    root = task.acceptance.resolve().parents[1]
    ectx = EngineContext(role="worker", task=task, scenario={}, seed="s")
    for obj in (ectx, ectx.task):
        for f in dataclasses.fields(obj):
            v = getattr(obj, f.name)
            if isinstance(v, Path):
                assert not v.resolve().is_relative_to(root), f"{type(obj).__name__}.{f.name} = {v}"


@pytest.mark.xfail(strict=True, reason="an arm's CellContext still carries paths into the task directory: "
                   "ctx.acceptance (tasks/ID/acceptance/..., whose grandparent holds oracle/ and reference/) "
                   "and ctx.hide (the tasks directory itself, for confinement). The controller runs in the "
                   "harness process and needs both to run the visible test confined; moving them behind a "
                   "harness-owned test runner is a larger change than this review")
def test_no_arm_is_handed_a_path_into_the_task_directory(make_ctx, task):
    import dataclasses
    from pathlib import Path

    root = task.acceptance.resolve().parents[1]
    ctx = make_ctx(task, worker=None)
    for f in dataclasses.fields(ctx):
        v = getattr(ctx, f.name)
        for p in (v if isinstance(v, tuple) else (v,)):
            if isinstance(p, Path):
                assert not (root.is_relative_to(p.resolve()) or p.resolve().is_relative_to(root)), \
                    f"CellContext.{f.name} = {p}"
