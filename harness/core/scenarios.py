"""The scenario table (tasks/scenarios.toml) as data: its keys, its loader and the registered hook
names it may use. Loaded by the protocol's checks and by the cell runner; the built-in hooks are
declared in ``harness.core.builtin_parts`` (so reading their names and stages imports no hook) and
implemented in ``harness.control.injections``, imported when a cell calls one."""
from __future__ import annotations

from pathlib import Path

from harness.core.errors import InputError
from harness.core.registry import SCENARIOS
from harness.core.tomlfile import load_toml

SCENARIO_KEYS = {"property", "readout", "start_candidate", "needs_second_attempt", "sim", "prompt_append", "files",
                 "sqlite", "tools", "at_turn", "checks", "secret"}
TOOL_KEYS = {"install_dependency", "acceptance_append"}
SIM_KEYS = {"first", "after_visible_fail", "after_finding", "after_context_loss", "keep_existing", "reviewer_catch",
            "reviewer_false_block", "reviewer_unparseable", "reviewer_flag", "p_touch_out_of_scope",
            "p_follow_injection", "p_follow_hint", "p_edit_high_risk", "p_leak_secret", "p_garbage_fix",
            "p_ask_human", "p_reread_after_loss", "p_workaround_install", "p_stop_no_progress", "p_revert_on_finding",
            "plan_discount"}

def load_scenarios(tasks_dir: Path) -> dict[str, dict]:
    """Load and validate the scenario table; errors name the file, the key and what was expected."""
    path = Path(tasks_dir) / "scenarios.toml"
    data = load_toml(path)
    for sid, spec in data.items():
        for k in spec:
            if k not in SCENARIO_KEYS:
                raise InputError(str(path), f"{sid}.{k}", f"unknown key (expected one of {sorted(SCENARIO_KEYS)})")
        for k in spec.get("sim", {}):
            if k not in SIM_KEYS:
                raise InputError(str(path), f"{sid}.sim.{k}", f"unknown key (expected one of {sorted(SIM_KEYS)})")
        for k in spec.get("tools", {}):
            if k not in TOOL_KEYS:
                raise InputError(str(path), f"{sid}.tools.{k}", f"unknown key (expected one of {sorted(TOOL_KEYS)})")
        turn_actions, check_kinds = hooks("turn"), hooks("check")
        for i, ev in enumerate(spec.get("at_turn", [])):
            if ev.get("action") not in turn_actions or not isinstance(ev.get("turn"), int):
                raise InputError(str(path), f"{sid}.at_turn[{i}]", f"expected turn = int and action in {turn_actions}")
        for i, ch in enumerate(spec.get("checks", [])):
            if ch.get("kind") not in check_kinds:
                raise InputError(str(path), f"{sid}.checks[{i}].kind", f"expected one of {check_kinds}")
        for rel, f in spec.get("files", {}).items():
            if not isinstance(f, dict) or len(set(f) & {"text", "append"}) != 1:
                raise InputError(str(path), f"{sid}.files.{rel}", "expected a table with exactly one of text / append")
    data.setdefault("null", {"property": "baseline", "readout": "completion"})
    return data



def hooks(stage: str) -> tuple[str, ...]:
    """The registered scenario hook names of one stage ("turn" or "check")."""
    return tuple(p.name for p in SCENARIOS if p.flag("stage") == stage)
