"""Typed configuration end to end (issue 22, item 3): the protocol's validated tables reach the cell
as their models, their defaults are stated once (the models in harness.core.protocol), one function
answers engine and model per role, and one function prices tokens."""
from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest

from harness.core.pricing import input_rate, price_tokens, usage_cost
from harness.core.protocol import (
    AnalysisTable,
    BudgetTable,
    HypothesisTable,
    LimitsTable,
    MonitoringTable,
    RerunTable,
    load_protocol,
)
from harness.core.roles import Role, RunEngines, resolve_roles

REPO = Path(__file__).resolve().parents[3]
SCANNED = ("harness", "analysis", "interop", "viewer")
DEFAULTS_HOME = REPO / "harness" / "core" / "protocol.py"
TABLES = (LimitsTable, RerunTable, BudgetTable)
KEYS = {k for t in TABLES for k in t.model_fields}  # test_timeout_s, memory_mb, max_turns, max_tokens, ...
TABLE_ATTRS = {"limits", "rerun", "budget", "monitoring", "analysis"}
# Same key names, other configuration (not a protocol's): the limits of one sandboxed command for a
# caller outside a run (corpus validation, the loop's gates; a cell passes its [limits]), and the
# output clamp of the loop's own worker requests (harness.loop.loop.run_loop).
OTHER_CONFIG = {("harness/sandbox/sandbox.py", "field memory_mb = 2048"), ("harness/loop/loop.py", "parameter max_tokens=8192")}


def _sources():
    for top in SCANNED:
        for path in sorted((REPO / top).rglob("*.py")):
            if path != DEFAULTS_HOME:
                yield path, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _numeric(node) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _restated_defaults(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module states a default for a protocol key: ``x.get("max_tokens", 4096)``, a dict or
    dataclass field ``max_turns: int = 12``, or a parameter ``max_tokens=4096``."""
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value in KEYS):
            found.append((node.lineno, f".get({node.args[0].value!r}, default)"))
        elif (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in KEYS
              and node.value is not None and _numeric(node.value)):
            found.append((node.lineno, f"field {node.target.id} = {node.value.value!r}"))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            pos = args.posonlyargs + args.args
            pairs = list(zip(pos[len(pos) - len(args.defaults):], args.defaults))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            found += [(node.lineno, f"parameter {a.arg}={d.value!r}") for a, d in pairs if a.arg in KEYS and _numeric(d)]
    return found


def _dict_access_on_tables(tree: ast.AST) -> list[tuple[int, str]]:
    """``proto.limits.get(...)``, ``spec.limits["max_tokens"]``: a table read as a dict, not as its model."""
    found = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("get", "items"):
            target = node.func.value
        elif isinstance(node, ast.Subscript):
            target = node.value
        if isinstance(target, ast.Attribute) and target.attr in TABLE_ATTRS:
            found.append((node.lineno, f"{target.attr} read as a dict"))
    return found


def test_no_module_restates_a_protocol_default():
    """Defaults of [limits], [rerun] and [budget] live only in their models: no other module states
    one (today's code restated max_tokens = 4096 and max_turns = 12 in the cell runner, the worst
    case and the attempt's context)."""
    bad = [f"{p.relative_to(REPO)}:{line}: {what}" for p, tree in _sources() for line, what in _restated_defaults(tree)
           if (p.relative_to(REPO).as_posix(), what) not in OTHER_CONFIG]
    assert not bad, "protocol defaults restated outside harness.core.protocol:\n" + "\n".join(bad)


def test_no_module_reads_a_protocol_table_as_a_dict():
    bad = [f"{p.relative_to(REPO)}:{line}: {what}" for p, tree in _sources()
           for line, what in _dict_access_on_tables(tree)]
    assert not bad, "protocol tables read as dicts:\n" + "\n".join(bad)


def test_the_scan_finds_what_it_forbids():
    """The scans above are not vacuous: each form they forbid is found in a hand-written module."""
    src = ("def f(limits, max_tokens=4096):\n    return limits.get('max_turns', 12)\n"
           "class C:\n    test_timeout_s: float = 60.0\n"
           "def g(spec):\n    return spec.limits['max_tokens'] + spec.rerun.get('max_reruns')\n")
    tree = ast.parse(src)
    assert sorted(w for _, w in _restated_defaults(tree)) == [".get('max_turns', default)",
                                                              "field test_timeout_s = 60.0", "parameter max_tokens=4096"]
    assert len(_dict_access_on_tables(tree)) == 2


@pytest.mark.parametrize("name", ["quickstart", "powered-ablation"])
def test_protocol_tables_are_their_models_and_pickle(name):
    """The validated tables reach the cell as the models (defaults filled in), and survive the pickling
    a process pool or Ray applies to a cell's spec."""
    proto = load_protocol(REPO / "protocols" / f"{name}.toml")
    assert isinstance(proto.limits, LimitsTable) and isinstance(proto.rerun, RerunTable)
    assert isinstance(proto.budget, BudgetTable) and isinstance(proto.analysis, AnalysisTable)
    assert isinstance(proto.monitoring, MonitoringTable)
    assert all(isinstance(h, HypothesisTable) for h in proto.hypotheses)
    assert proto.limits == LimitsTable.model_validate(proto.raw.get("limits", {}))  # defaults from the model
    back = pickle.loads(pickle.dumps(proto))
    assert back.limits == proto.limits and back.monitoring == proto.monitoring
    with pytest.raises(Exception):
        proto.limits.max_tokens = 1  # frozen: configuration is never changed after load


class _Arm:
    def __init__(self, **params):
        self.params = params

    def get(self, key, default=None):
        return self.params.get(key, default)

    @property
    def settings(self):
        from harness.core.arm_params import ArmParams
        return ArmParams(**self.params)


def test_resolve_roles_most_specific_first():
    run = RunEngines.choose("simulated", engine="anthropic", model="m-run")
    assert run == RunEngines("anthropic", "anthropic", "m-run")  # the reviewer engine follows --engine
    r = resolve_roles(_Arm(), run)
    assert (r.worker.engine, r.worker.model, r.reviewer.engine, r.reviewer.model) == ("anthropic", "m-run",
                                                                                     "anthropic", "m-run")
    r = resolve_roles(_Arm(), run, {"model": "m-factor"})  # a model factor beats --model
    assert r.of(Role.WORKER).model == r.of(Role.REVIEWER).model == "m-factor"
    r = resolve_roles(_Arm(model="m-arm", reviewer_model="m-rev", engine="openai"), run, {"model": "m-factor"})
    assert (r.worker.engine, r.worker.model) == ("openai", "m-arm")
    # an arm's own engine binds its worker only; its reviewer runs on the run's reviewer engine
    assert (r.reviewer.engine, r.reviewer.model) == ("anthropic", "m-rev")
    assert resolve_roles(_Arm(reviewer_engine="replay"), run).reviewer.engine == "replay"


def test_one_price_function_for_usage_bookings_and_the_worst_case():
    """price_tokens prices each kind at its rate (cache kinds default to input) and unknown input at
    the dearest input rate; a reply's usage is priced through it. Hand-worked: 1M input at $3, 1M
    output at $15, 1M cache reads at $0.30, 1M cache writes at $3 (the input price)."""
    entry = {"date": "2025-10-01", "input": 3.0, "output": 15.0, "cache_read": 0.30}
    assert price_tokens(entry, input_tokens=10**6, output_tokens=10**6, cache_read_tokens=10**6,
                        cache_write_tokens=10**6) == pytest.approx(3 + 15 + 0.30 + 3)
    assert input_rate({**entry, "cache_write": 3.75}) == 3.75
    assert price_tokens({**entry, "cache_write": 3.75}, unknown_input_tokens=10**6) == pytest.approx(3.75)
    from harness.core.engine import Usage
    u = Usage(input_tokens=1000, output_tokens=200, cache_read_tokens=50, cache_write_tokens=7)
    assert usage_cost(u, entry) == price_tokens(entry, input_tokens=1000, output_tokens=200, cache_read_tokens=50,
                                                cache_write_tokens=7)


def test_the_max_usd_price_check_covers_the_model_each_cell_uses(tmp_path):
    """Under [budget] max_usd every call must have a price; a cell's model is its ``model`` factor
    even when --model names another (resolve_roles), so an unpriced factor level is refused before
    the run, where the check used to price --model only and let those cells run unpriced."""
    from harness.core.errors import InputError
    from harness.core.runmeta import RunMeta
    from harness.run.driver import _check_priced
    from support.scripted import TASKS
    p = tmp_path / "p.toml"
    p.write_text(f'[protocol]\nname = "f"\nseed = 1\nrepeats = 1\ntasks_dir = "{TASKS}"\ntasks = ["median"]\n'
                 'scenarios = ["null"]\nengine = "openai"\n[arms.A1]\n[factors]\nmodel = ["m-priced", "m-unpriced"]\n'
                 '[budget]\nmax_usd = 1\n[pricing."m-priced"]\ndate = "2025-10-01"\ninput = 1.0\noutput = 2.0\n')
    proto = load_protocol(p)
    meta = RunMeta(engine="openai", reviewer_engine="openai", model="m-priced")
    with pytest.raises(InputError, match="m-unpriced"):
        _check_priced(proto, meta)
    p.write_text(p.read_text().replace('"m-unpriced"', '"m-priced-2024-08-06"'))  # a dated snapshot of a priced id
    _check_priced(load_protocol(p), meta)
