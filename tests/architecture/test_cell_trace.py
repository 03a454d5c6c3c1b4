"""Following one cell through the code (issue 22's acceptance: "goes down the layers with no return
to a module already left, apart from the cell runner itself"), measured on a real cell.

The cell is the quickstart protocol's first cell in run order, run on the simulated engine by the
function the local executor gives each cell (``harness.run.executors.execute_cell``), under
``sys.settrace`` (call events only). Every Python call into a harness module is recorded with the
harness modules on the call stack at that moment (``trace_cell``). Only the calling thread is
traced: threads the cell starts (its watcher) and the processes the judge starts are not.

Two measures are read from the trace:

* **Climbs** (``climbs``): a call into a harness module that is already on the call stack under a
  *different* harness module, i.e. the path went down from M into other modules and comes back
  up into M (a callback, a hook handed down, a lower layer reaching up). This is what "goes down
  the layers with no return to a module already left" forbids. The one exclusion is the cell
  runner ``harness.run.cellrun``, the acceptance's own exception. Nothing in ``harness.core`` is
  excluded: it is not needed. Measured at issue 22: none (none either with no exclusion at
  all); the test asserts none. Also asserted: no call goes up the layers (a callee in a layer
  above its caller's, in ``tests/architecture/test_layers.py``'s order).
* **Runner stops** (``runner_stops``, ``returns``): the sequence of modules the cell runner calls
  directly (consecutive calls into one module are one stop; ``harness.core`` is left out, its data
  types and helpers are used in every phase), and the stops that go back to a module the runner
  already called and then left for another. This counts the runner's own phases coming back to a
  resource it holds for the whole cell (the workspace it emits events into, the sandbox's
  confinement level, the injection hooks per phase), not descent. Measured at issue 22: 33 stops,
  20 returns into 7 modules (``RUNNER_RETURNS``). It is a ratchet on the set of modules: a return
  into a module not listed fails. The count is printed, not asserted: it varied by one between
  measurements (8 or 9 returns into the workspace).

The same sequence over every call of the cell, not only the runner's (456 stops in 23 modules,
433 returns), mostly counts the controller's turn loop going back to the budget, the engine and
the workspace each turn: a loop, not a climb, so it is not a measure of layering.
"""
from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest
from architecture.test_layers import LAYERS

REPO = Path(__file__).resolve().parents[2]
RUNNER = "harness.run.cellrun"
REGISTRY = "harness.core.registry"

# measured at issue 22 (the quickstart's first cell): the modules the runner returns to, with how
# often in that measurement (33 stops, 20 returns). The test checks the set (see the docstring)
RUNNER_RETURNS = {
    "harness.sandbox.workspace": 8,
    "harness.control.injections": 4,
    "harness.sandbox.sandbox": 2,
    "harness.engines.transcript": 2,
    "harness.engines": 1,
    "harness.judge.watch": 1,
    # issue 33: the cell's notary is made at setup (its key bound to the run) and signs at the final
    # adjudication and when the tree is stored: the receipts are written where the verdicts are
    "harness.judge.evidence": 2,
}


@dataclass(frozen=True)
class Call:
    caller: str | None  # the nearest harness module on the stack below the call (None: none)
    callee: str  # the called function's module
    function: str
    stack: tuple[str, ...]  # harness modules on the stack below the call, outermost first


def _harness(module: str) -> bool:
    return module == "harness" or module.startswith("harness.")


def trace_cell(fn, *args) -> tuple[object, list[Call]]:
    """fn(*args) under ``sys.settrace`` (call events only: the tracer returns None, so no line is
    traced): its result and every call into a harness module, with the harness modules on the
    stack below it (walked from the frame). Any tracer already set (coverage) is put back."""
    calls: list[Call] = []

    def tracer(frame, event, arg, _harness=_harness):
        mod = frame.f_globals.get("__name__", "")
        if _harness(mod):
            below: list[str] = []
            f = frame.f_back
            while f is not None:
                m = f.f_globals.get("__name__", "")
                if _harness(m):
                    below.append(m)
                f = f.f_back
            below.reverse()
            calls.append(Call(below[-1] if below else None, mod, frame.f_code.co_name, tuple(below)))
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        result = fn(*args)
    finally:
        sys.settrace(previous)
    return result, calls


def climbs(calls: list[Call], excluded: frozenset[str] = frozenset({RUNNER})) -> list[Call]:
    """Calls into a module already on the stack under a different module (see the docstring)."""
    return [c for c in calls if c.callee not in excluded and c.caller not in (None, c.callee) and c.callee in c.stack]


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.index(parts[1]) if len(parts) > 1 and parts[1] in LAYERS else None


def _requester(c: Call) -> str | None:
    """The call's caller, except for a module body the registry runs: the import of a declared
    built-in's implementation (``Part.obj``), which counts as made by the module that asked for the
    object, the nearest harness module below the registry's frames (as ``tests/architecture/test_layers.py``
    attributes that import)."""
    if c.function == "<module>" and c.caller == REGISTRY:
        return next((m for m in reversed(c.stack) if m != REGISTRY), None)
    return c.caller


def upward(calls: list[Call]) -> list[Call]:
    """Calls whose callee's layer is above the caller's (``_requester``'s)."""
    out = []
    for c in calls:
        caller = _requester(c)
        lo, hi = (_layer(caller) if caller else None), _layer(c.callee)
        if lo is not None and hi is not None and hi > lo:
            out.append(c)
    return out


def runner_stops(calls: list[Call]) -> list[str]:
    """The modules the runner calls directly, in order, consecutive calls into one module merged,
    ``harness.core`` and the runner itself left out (see the docstring)."""
    stops: list[str] = []
    for c in calls:
        if c.caller != RUNNER or c.callee == RUNNER or c.callee == "harness.core" or c.callee.startswith("harness.core."):
            continue
        if not stops or stops[-1] != c.callee:
            stops.append(c.callee)
    return stops


def returns(stops: list[str]) -> list[str]:
    """Each stop into a module that an earlier stop already entered (and the runner then left)."""
    seen: set[str] = set()
    out = []
    for s in stops:
        if s in seen:
            out.append(s)
        seen.add(s)
    return out


@pytest.fixture(scope="module")
def cell_trace(tmp_path_factory):
    from harness.core.matrix import run_order
    from harness.core.protocol import load_protocol
    from harness.core.tasks import load_task, sha256_file
    from harness.run.cellrun import CellSpec
    from harness.run.executors import execute_cell
    proto = load_protocol(REPO / "protocols" / "quickstart.toml")
    cell = run_order(proto)[0]
    task = load_task(proto.tasks_dir / cell.task)
    spec = CellSpec(cell=cell, arm=proto.arm(cell.arm), tasks_dir=proto.tasks_dir,
                    run_dir=tmp_path_factory.mktemp("run"), engine="simulated", reviewer_engine="simulated",
                    model=None, seed=proto.seed, limits=proto.limits, pricing=proto.pricing,
                    expected={"acceptance": sha256_file(task.acceptance), "oracle": sha256_file(task.oracle)})
    rec, calls = trace_cell(execute_cell, spec, {})
    assert rec.scored, rec.void_reason  # the cell ran through every phase
    return calls


def test_one_cell_never_climbs_back_into_a_module_it_went_down_from(cell_trace):
    assert len({c.callee for c in cell_trace}) > 15  # the trace saw the cell's path
    assert [(c.caller, c.callee, c.function) for c in climbs(cell_trace)] == []
    assert [(c.caller, c.callee, c.function) for c in upward(cell_trace)] == []


def test_the_runner_returns_only_to_the_modules_measured(cell_trace):
    stops = runner_stops(cell_trace)
    assert stops[0] == "harness.control.injections" and "harness.control.adjudicator" in stops
    back = returns(stops)
    print(f"runner stops: {len(stops)}, returns: {len(back)}: {back}")
    new = sorted(set(back) - set(RUNNER_RETURNS))
    assert not new, f"the cell runner now returns to {new} after leaving it (stops: {stops})"


# ---------------------------------------------------------------- the measures catch what they should

def _planted(name: str, source: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def test_a_callback_up_the_stack_is_a_climb_and_an_upward_call():
    low = _planted("harness.sandbox.zz_low", "def each(items, fn):\n    return [fn(i) for i in items]\n")
    top = _planted("harness.control.zz_top", "def double(i):\n    return 2 * i\n\n"
                                             "def run(low):\n    return low.each([1, 2], double)\n")
    result, calls = trace_cell(top.run, low)
    assert result == [2, 4]
    got = [(c.caller, c.callee, c.function) for c in climbs(calls)]
    assert got == [("harness.sandbox.zz_low", "harness.control.zz_top", "double")] * 2
    assert [(c.caller, c.callee) for c in upward(calls)] == [("harness.sandbox.zz_low", "harness.control.zz_top")] * 2
    assert climbs(calls, excluded=frozenset({"harness.control.zz_top"})) == []


def test_going_down_twice_in_turn_is_no_climb():
    low = _planted("harness.sandbox.zz_low2", "def f():\n    return 1\n")
    mid = _planted("harness.judge.zz_mid", "def g(low):\n    return low.f() + 1\n")
    top = _planted("harness.control.zz_top2", "def run(mid, low):\n    return mid.g(low) + low.f() + mid.g(low)\n")
    result, calls = trace_cell(top.run, mid, low)
    assert result == 5
    assert climbs(calls) == [] and upward(calls) == []


def test_runner_stops_merge_repeats_and_count_returns():
    def call(callee, caller=RUNNER):
        return Call(caller, callee, "f", (caller,))
    calls = [call("harness.sandbox.workspace"), call("harness.sandbox.workspace"), call("harness.core.record"),
             call("harness.engines.simulated"), call("harness.core.x", "harness.engines.simulated"),
             call(RUNNER), call("harness.sandbox.workspace"), call("harness.control.arms")]
    stops = runner_stops(calls)
    assert stops == ["harness.sandbox.workspace", "harness.engines.simulated", "harness.sandbox.workspace",
                     "harness.control.arms"]
    assert returns(stops) == ["harness.sandbox.workspace"]


def test_an_implementation_the_registry_imports_counts_as_imported_by_the_module_that_asked():
    """``Part.obj`` on a declared engine runs its module body under the registry's frames: that is
    the engine layer's import (``make_engine`` asked), not a call up from core; a core module that
    asked, or the registry calling a function above it, is still upward."""
    asked_by_engines = Call(REGISTRY, "harness.engines.simulated", "<module>",
                            ("harness.run.cellrun", "harness.engines", REGISTRY, REGISTRY))
    asked_by_core = Call(REGISTRY, "harness.engines.simulated", "<module>", ("harness.core.protocol", REGISTRY))
    called = Call(REGISTRY, "harness.engines.simulated", "_factory", ("harness.engines", REGISTRY))
    assert upward([asked_by_engines]) == []
    assert upward([asked_by_core, called]) == [asked_by_core, called]
