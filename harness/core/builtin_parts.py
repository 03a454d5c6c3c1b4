"""The built-in parts' declarations: what the rest of the harness may know about each built-in
part without importing its implementation (name, parameter dataclass, capability flags), and a
``Ref`` to the object that implements it.

The registries of ``harness.core.registry`` import this module on first lookup, so the protocol's
checks, the scenario table's loader and the ledger (all below the layers that implement the parts)
read a part's declaration without loading the part. The implementation module is imported when the
part is called (``Part.obj``), by the layer that calls it. Plug-ins still register with the
decorators (``harness.api``), which carry the same metadata.
"""
from __future__ import annotations

from harness.core.arm_params import ArmParams, BudgetedRetryParams, Count, GatedLoopParams, RetryParams
from harness.core.registry import ARMS, ENGINES, EXECUTORS, SCENARIOS, Ref

# Arms (paper section 5.2; controllers in harness.control.arms): parameters, single_shot, budgeted, and the
# worst-case counts W = max_attempts, V = max_reviews per execution of a cell (harness.ledger.worst_case).
_ARMS = "harness.control.arms"
ARMS.declare("A1", Ref(_ARMS, "run_a1"), params=ArmParams, single_shot=True, max_attempts=Count(1),
             max_reviews=Count(0))
ARMS.declare("A2", Ref(_ARMS, "run_a2"), params=RetryParams, max_attempts=Count(param="retries"), max_reviews=Count(0))
ARMS.declare("A3", Ref(_ARMS, "run_a3"), params=RetryParams, max_attempts=Count(1, "retries"), max_reviews=Count(1))
# each attempt can reach one review, asked twice when the first reply does not parse
ARMS.declare("A4", Ref(_ARMS, "run_a4"), params=GatedLoopParams, max_attempts=Count(param="attempts"),
             max_reviews=Count(param="attempts", times=2))
# A2 bounded by a token and wall budget enforced inside each attempt
ARMS.declare("A2p", Ref(_ARMS, "run_a2"), params=BudgetedRetryParams, budgeted=True,
             max_attempts=Count(param="retries"), max_reviews=Count(0))

# Engines (each in the ``harness.engines`` module of its name, the module's ``_factory``): ``live`` calls a provider, so it needs
# a model and is priced; ``simulation_bank`` is handed the candidate bank (only the simulated engine).
ENGINES.declare("simulated", Ref("harness.engines.simulated", "_factory"), simulation_bank=True)
ENGINES.declare("replay", Ref("harness.engines.replay", "_factory"))
ENGINES.declare("anthropic", Ref("harness.engines.anthropic", "_factory"), live=True)
ENGINES.declare("openai", Ref("harness.engines.openai", "_factory"), live=True)

# Scenario hooks (harness.control.injections): "turn" actions a scenario's at_turn events name, run
# between worker turns; "check" kinds a scenario's checks name, run on the final tree.
_INJECTIONS = "harness.control.injections"
for _name, _attr in (("truncate_context", "_truncate_context"), ("kill_host", "_kill_host"),
                     ("delete_file", "_delete_file"), ("append_line", "_append_line")):
    SCENARIOS.declare(_name, Ref(_INJECTIONS, _attr), stage="turn")
for _name in ("unchanged", "exists", "absent", "no_new_files", "sqlite_rows", "unsatisfiable", "tool_log"):
    SCENARIOS.declare(_name, Ref(_INJECTIONS, "_" + _name), stage="check")

# Executors (harness.run.executors): where cells run, each an ``Executor`` class made by its
# ``create``; ``address`` marks one that joins a cluster named with ``--address``.
EXECUTORS.declare("local", Ref("harness.run.executors", "LocalExecutor"))
EXECUTORS.declare("ray", Ref("harness.run.executors", "RayExecutor"), address=True)
