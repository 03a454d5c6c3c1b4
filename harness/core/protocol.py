"""Pre-registered protocols: TOML files validated at load, frozen by a lock of digests.

A protocol names arms (each with a controller kind and its budgets), tasks, scenarios, an
applicability table, repeats k, a seed, optional extra matrix factors (e.g. model), hypotheses
and an analysis plan. ``freeze`` writes ``<name>.lock.json`` beside it: sha256 over the
canonical protocol and over every file of every task and scenario table it names. A run
refuses an unlocked or drifted protocol unless it is explicitly exploratory.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from harness.core.arm_params import ArmParams
from harness.core.errors import InputError
from harness.core.interval_methods import METHODS as INTERVAL_METHODS
from harness.core.record import applicable, second_attempt_scenarios
from harness.core.registry import ARMS, ENGINES, Part, needs_model
from harness.core.tomlfile import load_toml

# Controllers (arms), their keys, defaults and capabilities are declared once: a built-in's in
# harness.core.builtin_parts (its controller is loaded only when a cell runs it), a plug-in's where it
# registers; see harness.core.registry. Scenario ids and which of
# them need a second attempt come from the tasks' scenarios.toml (needs_second_attempt).
DEFAULT_TASKS_DIR = Path(__file__).resolve().parents[2] / "tasks"
ENDPOINTS = ("not_amplified", "completion", "amplified")
CELL_SETS = ("injected", "null", "all")
CLUSTERS = ("task", "task x scenario", "cell")

PROVIDER_KEYS = {"requests_per_minute", "tokens_per_minute", "max_retries", "backoff_base_s", "backoff_max_s",
                 "request_timeout_s", "base_url", "max_tokens_param", "temperature"}
# [monitoring] (optional, pre-registered): read by `harness monitor RUN` (analysis/monitor.py)
MONITOR_KEYS = {"hypotheses", "alpha", "stop_when", "half_width", "min_units", "tuned_for_v", "sequence"}
STOP_RULES = ("excludes_zero", "half_width_below")
# the sequence the stopping rule, the progress line and `harness monitor` read: the betting one unless the
# protocol names the empirical-Bernstein one. The lock's digest is over the protocol file as written, so a
# protocol that names it carries the choice in its lock; one that does not (every lock before issue 37)
# keeps its digest.
SEQUENCES = ("betting", "empirical_bernstein")

@dataclass(frozen=True)
class Arm:
    name: str
    controller: str
    params: dict

    def get(self, key: str, default=None):
        """The arm's value for ``key``: set in the protocol, else its controller's registered default."""
        registered = ARMS.get(self.controller).defaults().get(key)
        return self.params.get(key, default if registered is None else registered)

    @property
    def settings(self) -> ArmParams:
        """The arm's parameters as its controller's registered dataclass (``ArmParams`` or a subclass), the
        controller's defaults filled in: what the roles and the controllers read by attribute."""
        return (ARMS.get(self.controller).params or ArmParams)(**self.params)

    def settings_as(self, kind: type[P]) -> P:
        """``settings``, checked to be ``kind`` (the controller's own parameters, e.g. GatedLoopParams)."""
        s = self.settings
        if not isinstance(s, kind):
            raise TypeError(f"arm {self.name}: its controller {self.controller!r} takes {type(s).__name__}, "
                            f"not {kind.__name__}")
        return s


P = TypeVar("P", bound=ArmParams)


@dataclass(frozen=True)
class Protocol:
    path: Path
    name: str
    seed: int
    repeats: int
    tasks_dir: Path
    tasks: tuple[str, ...]
    scenarios: tuple[str, ...]
    arms: tuple[Arm, ...]
    applicability: dict  # arm name -> tuple of scenarios it runs
    factors: dict  # extra factor name -> tuple of levels
    engine: str
    # the validated tables as their models (defaults filled in by the models, stated nowhere else)
    limits: LimitsTable
    rerun: RerunTable
    hypotheses: tuple[HypothesisTable, ...]
    analysis: AnalysisTable
    pricing: dict  # [pricing]: model -> price entry (harness.core.pricing)
    monitoring: MonitoringTable  # [monitoring], its hypotheses resolved: read by `harness monitor`
    budget: BudgetTable  # [budget]: max_usd / max_tokens run-wide (harness.ledger.spend)
    providers: dict[str, ProviderTable] = field(default_factory=dict)  # [providers.NAME]
    raw: dict = field(repr=False, default_factory=dict)  # the TOML as read: what the lock's digest covers

    @property
    def lock_path(self) -> Path:
        return self.path.with_suffix(".lock.json")

    def arm(self, name: str) -> Arm:
        return next(a for a in self.arms if a.name == name)

    def canonical_digest(self) -> str:
        return sha256_json(self.raw)


def sha256_json(obj) -> str:
    """sha256 of canonical JSON (sorted keys, no whitespace, nulls kept)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                          .encode()).hexdigest()


def _expect(cond: bool, file: Path, key: str, what: str) -> None:
    if not cond:
        raise InputError(str(file), key, what)


# -- the schema: one pydantic model per table; unknown keys and wrong types are errors by name ------
class _Table(BaseModel):
    # allow_inf_nan=False: TOML's inf/nan are no timeout, backoff or ceiling a run can honour;
    # frozen: a validated table is configuration, read by every cell and never changed after load
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class ProtocolTable(_Table):
    name: str = Field(min_length=1)
    description: str | None = None
    seed: int
    repeats: int = Field(ge=1)
    tasks_dir: str = "../tasks"
    tasks: list[str] = Field(min_length=1)
    scenarios: list[str] = Field(min_length=1)
    engine: str = "simulated"


class ArmTable(BaseModel):
    """An arm: its controller, then the keys its controller's registered parameters declare
    (validated per controller by ``_arm_model``)."""
    model_config = ConfigDict(extra="allow", strict=True)
    controller: str | None = None


def _arm_model(part: Part) -> type[BaseModel]:
    """The pydantic model of one controller's arm table, built from its registered parameter dataclass."""
    if part.name not in _ARM_MODELS:
        defaults = part.defaults()
        fields: dict[str, Any] = {"controller": (str | None, None),
                                  **{k: (t, defaults.get(k, ...)) for k, t in part.param_types().items()}}
        _ARM_MODELS[part.name] = create_model(f"Arm_{part.name}", __config__=ConfigDict(extra="forbid", strict=True),
                                              **fields)
    return _ARM_MODELS[part.name]


_ARM_MODELS: dict[str, type[BaseModel]] = {}


class RuleTable(_Table):
    include: list[str] | None = None
    exclude: list[str] | None = None


class HypothesisTable(_Table):
    id: str = Field(min_length=1)
    a: str
    b: str
    endpoint: Literal["not_amplified", "completion", "amplified"]
    cells: Literal["injected", "null", "all"]
    cluster: Literal["task", "task x scenario", "cell"] = "task"  # analysis/tables.py DEFAULT_CLUSTER
    interval: str | None = None
    description: str | None = None


class AnalysisTable(_Table):
    alpha: float = Field(default=0.05, gt=0, lt=1)
    bootstrap_B: int = Field(default=2000, ge=1)
    seed: int | None = Field(default=None, ge=0)  # numpy PCG64 seed
    fdr_pair: list[str] | None = Field(default=None, min_length=2, max_length=2)  # arms of the per-scenario FDR table


class LimitsTable(_Table):
    test_timeout_s: float = Field(default=60.0, gt=0, le=1e9)  # larger overflows the platform's time_t
    memory_mb: int = Field(default=2048, ge=64, le=2**43 - 1)  # its bytes must fit RLIMIT_AS (a signed 64-bit)
    max_turns: int = Field(default=12, ge=1)
    max_tokens: int = Field(default=4096, ge=1)
    # the model's context window: the most input tokens one call can bill (a provider refuses a
    # longer request unbilled); bounds input tokens in `harness plan --worst-case` (harness.ledger.worst_case)
    context_tokens: int | None = Field(default=None, ge=1)
    # a cell's overall deadline on its engine calls (harness/engines/deadline.py: CellDeadline): past
    # it the cell is cut and recorded void ("engine fault: cell deadline"); tests keep test_timeout_s
    cell_deadline_s: float = Field(default=3600.0, gt=0, le=1e9)


DEFAULT_LIMITS = LimitsTable()  # [limits] as a protocol without the table has it: the defaults' one statement


class BudgetTable(_Table):
    """[budget]: the run-wide spend ceiling, enforced inside every engine call (harness.ledger.spend)."""
    max_usd: int | float | None = Field(default=None, gt=0)  # as written: spend.json keeps 25 as 25
    max_tokens: int | None = Field(default=None, ge=1)


class RerunTable(_Table):
    max_reruns: int = Field(default=2, ge=0)


class ProviderTable(_Table):
    requests_per_minute: float | None = Field(default=None, ge=0)
    tokens_per_minute: float | None = Field(default=None, ge=0)
    max_retries: int | None = Field(default=None, ge=0)
    backoff_base_s: float | None = Field(default=None, ge=0)
    backoff_max_s: float | None = Field(default=None, ge=0)
    request_timeout_s: float | None = Field(default=None, gt=0)
    base_url: str | None = Field(default=None, min_length=1)
    max_tokens_param: str | None = Field(default=None, min_length=1)
    temperature: float | None = Field(default=None, ge=0)


class MonitoringTable(_Table):
    hypotheses: list[str] | None = Field(default=None, min_length=1)  # absent: the first hypothesis
    alpha: float = Field(default=0.05, gt=0, lt=1)
    stop_when: Literal["excludes_zero", "half_width_below"] | None = None
    half_width: float | None = Field(default=None, gt=0, le=1)
    # units a sequence needs before the stopping rule can be met (an integer stays one in the report)
    min_units: int | float = Field(default=0, ge=0)
    tuned_for_v: float | None = Field(default=None, ge=0)
    sequence: Literal["betting", "empirical_bernstein"] = "betting"


class ProtocolFile(_Table):
    """The whole protocol file: every table it may hold, and nothing else."""
    protocol: ProtocolTable
    arms: dict[str, ArmTable] = Field(min_length=1)
    applicability: dict[str, RuleTable] = {}
    factors: dict[str, list[str]] = {}
    hypotheses: list[HypothesisTable] = []
    analysis: AnalysisTable = AnalysisTable()
    limits: LimitsTable = LimitsTable()
    rerun: RerunTable = RerunTable()
    budget: BudgetTable = BudgetTable()
    pricing: dict[str, dict] = {}
    providers: dict[str, ProviderTable] = {}
    monitoring: MonitoringTable | None = None


class PlanProtocolTable(_Table):
    """[protocol] in an analysis plan: ProtocolTable's keys, every one optional (the analysis reads
    only scenarios)."""
    name: str | None = None
    description: str | None = None
    seed: int | None = None
    repeats: int | None = Field(default=None, ge=1)
    tasks_dir: str = "../tasks"
    tasks: list[str] | None = None
    scenarios: list[str] | None = None
    engine: str = "simulated"


class AnalysisPlanFile(_Table):
    """An analysis plan: the analysis tables of a protocol without the run's (no [arms])."""
    protocol: PlanProtocolTable | None = None
    hypotheses: list[HypothesisTable] = []
    analysis: AnalysisTable = AnalysisTable()


@dataclass(frozen=True)
class AnalysisPlan:
    """What ``harness analyze`` reads from a protocol or an analysis plan, validated by the models above."""
    path: Path
    analysis: AnalysisTable
    hypotheses: tuple[HypothesisTable, ...]
    scenarios: tuple[str, ...] | None
    sha256: str


def load_analysis_plan(path: Path | str) -> AnalysisPlan:
    """A full protocol (it has [arms]) through ``load_protocol``, or an analysis plan ([analysis],
    [[hypotheses]], optionally [protocol].scenarios) through ``AnalysisPlanFile``: one schema, one
    set of messages naming the file and the key."""
    path = Path(path)
    raw = load_toml(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    doc: ProtocolFile | AnalysisPlanFile
    if "arms" in raw:
        proto = load_protocol(path)
        doc = ProtocolFile.model_validate(proto.raw)
        scen: list[str] | None = list(proto.scenarios)
    else:
        try:
            plan = AnalysisPlanFile.model_validate(raw)
        except ValidationError as exc:
            raise _schema_error(path, exc, model=AnalysisPlanFile) from None
        doc, scen = plan, (plan.protocol.scenarios if plan.protocol else None)
    ids = [h.id for h in doc.hypotheses]
    _expect(len(set(ids)) == len(ids), path, "hypotheses", "ids must be unique")
    return AnalysisPlan(path, doc.analysis, tuple(doc.hypotheses), tuple(scen) if scen else None, digest)


def _schema_error(path: Path, exc: ValidationError, prefix: tuple = (),
                  model: type[BaseModel] | None = None) -> InputError:
    """The first schema problem as 'FILE: table.key: what was expected' (an unknown key first: a typo
    shows as the key it is, not as the key it should have been, missing)."""
    errors = _number_unions(exc.errors())
    err = sorted(errors, key=lambda e: e["type"] != "extra_forbidden")[0]
    key = ".".join(str(p) for p in (*prefix, *err["loc"])) or "<file>"
    kind = err["type"]
    if kind == "extra_forbidden":
        parent = err["loc"][:-1]
        what = f"unknown key (expected one of {sorted(_allowed(parent, model or ProtocolFile))})"
    elif kind == "missing":
        what = "missing"
    else:
        what = f"{_expected(kind, err.get('ctx') or {}, err['msg'])}; got {err.get('input')!r}"
    more = len(errors) - 1
    return InputError(str(path), key, what + (f" (and {more} more problem(s))" if more else ""))


def _number_unions(errors: list) -> list:
    """pydantic's errors with an ``int | float`` field's two member errors (locations ending in
    'int' and 'float', e.g. BudgetTable.max_usd given true) as the float member's error at the field
    ('expected a number', 'finite number'): one problem, at a key the protocol has."""
    members: dict[tuple, set] = {}
    for e in errors:
        if e["loc"] and e["loc"][-1] in ("int", "float"):
            members.setdefault(tuple(e["loc"][:-1]), set()).add(e["loc"][-1])
    unions = {loc for loc, tags in members.items() if tags == {"int", "float"}}
    out = []
    for e in errors:
        loc = tuple(e["loc"][:-1])
        if e["loc"] and e["loc"][-1] in ("int", "float") and loc in unions:
            if e["loc"][-1] == "float":  # the float member's error says what a number must be (e.g. finite)
                out.append({**e, "loc": loc})
            continue
        out.append(e)
    return out


_TYPES = {"int_type": "an integer", "int_parsing": "an integer", "float_type": "a number", "float_parsing": "a number",
          "string_type": "a string", "bool_type": "true or false", "list_type": "a list", "dict_type": "a table",
          "model_type": "a table", "model_attributes_type": "a table"}


def _expected(kind: str, ctx: dict, msg: str) -> str:
    """pydantic's error kinds in the words the rest of the harness uses ('expected a positive integer')."""
    if kind in _TYPES:
        return f"expected {_TYPES[kind]}"
    if kind in ("greater_than_equal", "greater_than", "less_than", "less_than_equal"):
        op, bound = {"greater_than_equal": (">=", "ge"), "greater_than": (">", "gt"), "less_than": ("<", "lt"),
                     "less_than_equal": ("<=", "le")}[kind]
        b = ctx.get(bound)
        if kind == "greater_than_equal" and b == 1:
            return "expected a positive integer >= 1"
        return f"expected a value {op} {b}"
    if kind == "literal_error":
        return f"expected one of {ctx.get('expected')}"
    if kind == "too_short":
        return "expected a non-empty value"
    return msg[0].lower() + msg[1:]


def _allowed(loc: tuple, model: type[BaseModel]) -> list[str]:
    """The keys the table at ``loc`` accepts (for the 'unknown key' message)."""
    for part in loc:
        field = model.model_fields.get(part) if isinstance(part, str) else None
        if field is None:
            continue  # a key of a dict of tables (an arm's name) or a list index
        sub = _model_in(field.annotation)
        if sub is None:
            break
        model = sub
    return list(model.model_fields)


def _model_in(ann) -> type[BaseModel] | None:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for arg in getattr(ann, "__args__", ()):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def load_protocol(path: Path | str) -> Protocol:
    """Load and validate a protocol TOML (one pydantic model, ``ProtocolFile``, checks every table,
    key and type). Errors name the file, the key and what was expected."""
    path = Path(path).resolve()
    raw = load_toml(path)
    try:
        doc = ProtocolFile.model_validate(raw)
    except ValidationError as exc:
        raise _schema_error(path, exc) from None
    p = doc.protocol
    _expect(len(set(p.tasks)) == len(p.tasks), path, "protocol.tasks", "task ids must be unique")
    tasks_dir = (path.parent / p.tasks_dir).resolve()
    table = scenario_table(tasks_dir)
    known_ids = list(table) if table else None
    for s in p.scenarios:
        _expect(known_ids is None or s in known_ids, path, "protocol.scenarios",
                f"unknown scenario {s!r} (expected one of {known_ids})")
    _expect(len(set(p.scenarios)) == len(p.scenarios), path, "protocol.scenarios", "scenarios must be unique")
    arms = _arms(path, doc, raw)
    scen = list(p.scenarios)
    applicability = _applicability(path, doc, arms, scen, second_attempt_scenarios(table))
    factors = _factors(path, doc)
    _check_hypotheses(path, doc, arms)
    monitoring = _monitoring(path, doc)
    _check_providers(path, doc.providers)
    _check_matrix_size(path, p.repeats, len(p.tasks), applicability, factors)
    from harness.core.pricing import validate as validate_pricing  # [pricing]: see harness.core.pricing
    for problem in validate_pricing(doc.pricing):
        key, what = problem.split(": ", 1)
        raise InputError(str(path), key, what)
    return Protocol(path=path, name=p.name, seed=p.seed, repeats=p.repeats, tasks_dir=tasks_dir, tasks=tuple(p.tasks),
                    scenarios=tuple(scen), arms=tuple(arms), applicability=applicability, factors=factors,
                    engine=p.engine, limits=doc.limits, rerun=doc.rerun, hypotheses=tuple(doc.hypotheses),
                    analysis=doc.analysis, pricing=doc.pricing, monitoring=monitoring, budget=doc.budget,
                    providers=dict(doc.providers), raw=raw)


def _arms(path: Path, doc: "ProtocolFile", raw: dict) -> list[Arm]:
    """Each [arms.NAME]: its controller is registered, and its keys are the controller's declared
    parameters (validated against the controller's own model)."""
    arms = []
    for an, ad in doc.arms.items():
        ctrl = ad.controller or an
        _expect(ctrl in ARMS, path, f"arms.{an}.controller", f"expected one of {ARMS.names()}, got {ctrl!r}")
        part = ARMS.get(ctrl)
        try:
            _arm_model(part).model_validate(raw["arms"][an])
        except ValidationError as exc:
            raise _schema_error(path, exc, ("arms", an), _arm_model(part)) from None
        arms.append(Arm(an, ctrl, {k: v for k, v in raw["arms"][an].items() if k != "controller"}))
    return arms


def _applicability(path: Path, doc: "ProtocolFile", arms: list[Arm], scen: list[str],
                   second: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """{arm: the scenarios it runs}: [applicability] include/exclude over protocol.scenarios; a
    single-shot arm may not run a scenario that needs a second attempt (paper Appendix A)."""
    applicability = {}
    for an in doc.applicability:
        _expect(an in doc.arms, path, f"applicability.{an}", "names an arm that is not declared under [arms]")
    for arm in arms:
        rule = doc.applicability.get(arm.name, RuleTable())
        for kk in ("include", "exclude"):
            for s in getattr(rule, kk) or []:
                _expect(s in scen, path, f"applicability.{arm.name}.{kk}", f"scenario {s!r} is not in protocol.scenarios")
        runs = [s for s in scen if s in (rule.include or scen) and s not in (rule.exclude or [])]
        single_shot = ARMS.get(arm.controller).flag("single_shot")
        bad = [s for s in runs if not applicable(single_shot, s, second)]
        _expect(not bad, path, f"applicability.{arm.name}",
                f"a single-shot arm cannot run {bad} (they need a second attempt); exclude them")
        applicability[arm.name] = tuple(runs)
    return applicability


def _factors(path: Path, doc: "ProtocolFile") -> dict[str, tuple[str, ...]]:
    """[factors]: each a non-reserved name with a non-empty list of levels safe in a cell key."""
    factors = {}
    for fk, levels in doc.factors.items():
        _expect(fk not in ("arm", "task", "scenario", "repeat"), path, f"factors.{fk}", "reserved factor name")
        _expect(bool(levels) and all("|" not in v and "=" not in v for v in levels), path, f"factors.{fk}",
                "expected a non-empty list of strings without '|' or '='")
        factors[fk] = tuple(levels)
    return factors


def _check_hypotheses(path: Path, doc: "ProtocolFile", arms: list[Arm]) -> None:
    """Each hypothesis compares two declared arms, with an interval method `harness analyze` offers."""
    names = {a.name for a in arms}
    for i, h in enumerate(doc.hypotheses):
        _expect(h.a in names and h.b in names, path, f"hypotheses[{i}].a/b", f"expected declared arms {sorted(names)}")
        if h.interval is not None:
            methods: tuple[str, ...] = INTERVAL_METHODS  # the interval methods `harness analyze` offers
            _expect(h.interval in methods, path, f"hypotheses[{i}].interval", f"expected one of {methods}")


def _monitoring(path: Path, doc: "ProtocolFile") -> MonitoringTable:
    """[monitoring]: declared hypothesis ids (absent: the first hypothesis at the default alpha),
    and half_width exactly when stop_when = "half_width_below". Returned with its hypotheses resolved."""
    ids = [h.id for h in doc.hypotheses]
    m = doc.monitoring or MonitoringTable()  # absent: monitor the first hypothesis at the default alpha
    hs = m.hypotheses if m.hypotheses is not None else ids[:1]
    for hid in hs:
        _expect(hid in ids, path, "monitoring.hypotheses", f"{hid!r} is not a declared hypothesis id {ids}")
    _expect((m.stop_when == "half_width_below") == (m.half_width is not None), path, "monitoring.half_width",
            "required with (and only with) stop_when = \"half_width_below\"")
    return m.model_copy(update={"hypotheses": list(hs)})


MAX_CELLS = 1_000_000  # the declared cap on a protocol's matrix; above it a run would hang enumerating it


def matrix_size(repeats: int, n_tasks: int, applicability: dict, factors: dict) -> int:
    """Cells the protocol declares (arms x their scenarios x tasks x repeats x factor levels),
    computed by arithmetic, never by enumerating them."""
    levels = 1
    for v in factors.values():
        levels *= len(v)
    return sum(len(s) for s in applicability.values()) * n_tasks * repeats * levels


def _check_matrix_size(path: Path, repeats: int, n_tasks: int, applicability: dict, factors: dict) -> None:
    n = matrix_size(repeats, n_tasks, applicability, factors)
    _expect(n <= MAX_CELLS, path, "protocol.repeats", f"the matrix has {n} cells ({sum(map(len, applicability.values()))}"
            f" arm-scenario pairs x {n_tasks} tasks x repeats {repeats}"
            + "".join(f" x {len(v)} {k}" for k, v in factors.items())
            + f"), above the cap of {MAX_CELLS} cells; split the design into several protocols")


def _check_providers(path: Path, providers: dict) -> None:
    """Every [providers.NAME] table names a live engine: a misspelt one would be ignored silently."""
    live = [n for n in sorted(ENGINES.names()) if needs_model(n)]
    for name in providers:
        _expect(name in live, path, f"providers.{name}", f"unknown provider {name!r} (expected one of {live})")


def scenario_table(tasks_dir: Path) -> dict[str, dict]:
    """The scenario table the protocol's tasks use (their scenarios.toml; the shipped one when the
    tasks directory has none yet): the one source of scenario ids and of needs_second_attempt."""
    from harness.core.scenarios import load_scenarios
    for d in (tasks_dir, DEFAULT_TASKS_DIR):
        if (d / "scenarios.toml").is_file():
            return load_scenarios(d)
    return {}


def check_corpus(proto: Protocol) -> None:
    """Every task the protocol names loads, and every scenario it names is in the scenario table."""
    from harness.core.scenarios import load_scenarios
    from harness.core.tasks import load_task
    for tid in proto.tasks:
        if not (proto.tasks_dir / tid / "task.toml").is_file():
            raise InputError(str(proto.path), "protocol.tasks", f"task {tid!r} not found under {proto.tasks_dir}")
        load_task(proto.tasks_dir / tid)
    table = load_scenarios(proto.tasks_dir)
    for s in proto.scenarios:
        if s not in table:
            raise InputError(str(proto.path), "protocol.scenarios",
                             f"scenario {s!r} is not in {proto.tasks_dir / 'scenarios.toml'}")


def covered_files(proto: Protocol) -> dict[str, Path]:
    """Every file the lock covers: each named task's whole directory and the scenario table."""
    out: dict[str, Path] = {}
    for tid in proto.tasks:
        root = proto.tasks_dir / tid
        if not (root / "task.toml").is_file():
            raise InputError(str(proto.path), "protocol.tasks", f"task {tid!r} not found under {proto.tasks_dir}")
        for f in sorted(root.rglob("*")):
            if "__pycache__" in f.parts:
                continue
            _refuse_special(proto.path, tid, root, f)
            if f.is_file():
                out[f"{tid}/{f.relative_to(root).as_posix()}"] = f
    scen = proto.tasks_dir / "scenarios.toml"
    if scen.is_file():
        out["scenarios.toml"] = scen
    return out


def _refuse_special(proto_path: Path, tid: str, root: Path, f: Path) -> None:
    """A task's files are regular files and directories: a link (dangling, looping or not) or a
    FIFO, device or socket is refused at freeze and validation, naming it (it would void cells)."""
    import stat as st
    mode = f.lstat().st_mode
    if st.S_ISREG(mode) or st.S_ISDIR(mode):
        return
    kind = "symbolic link" if st.S_ISLNK(mode) else "FIFO" if st.S_ISFIFO(mode) else "device or socket"
    raise InputError(str(f), f"task {tid}", f"is a {kind}; a task holds only regular files and directories "
                     f"({f.relative_to(root).as_posix()})")


def _file_digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:  # mode 000, or gone since it was listed
        raise InputError(str(path), "<file>", f"cannot read a file the lock covers: {exc.strerror or exc}") from None


def compute_lock(proto: Protocol) -> dict:
    files = {rel: _file_digest(p) for rel, p in covered_files(proto).items()}
    body = {"protocol": proto.name, "protocol_sha256": proto.canonical_digest(), "files": files}
    return {**body, "digest": sha256_json(body)}


def freeze(proto: Protocol, note: str | None = None) -> dict:
    """Write the protocol's lock. ``note`` (what changed since the last freeze, and why) is appended,
    dated, to the lock's ``notes``; earlier notes are kept from a readable previous lock, so the
    lock carries the amendment history of the pre-registration. The notes are commentary outside
    ``digest``: the digest a run records is the design's, the same with or without them."""
    lock = compute_lock(proto)
    notes = _previous_notes(proto)
    if note is not None and note.strip():
        notes.append(f"{time.strftime('%Y-%m-%d', time.gmtime())}: {' '.join(note.split())}")
    if notes:
        lock["notes"] = notes
    from harness.core import runio
    from harness.core.errors import ExitCode
    # atomic: a kill never leaves a torn lock; a full disk is one line naming the lock (the old one kept)
    runio.write_json(proto.lock_path, lock, f"harness protocol freeze {proto.path}", ExitCode.BAD_INPUT)
    return lock


def _previous_notes(proto: Protocol) -> list[str]:
    """The notes of the protocol's current lock; none when it has no lock or one that does not validate."""
    try:
        return list(read_lock(proto).get("notes", []))
    except InputError:
        return []


LOCK_KEYS = {"protocol": str, "protocol_sha256": str, "files": dict, "digest": str}
OPTIONAL_LOCK_KEYS = {"notes": list}  # commentary, not covered by ``digest`` (see ``freeze``)


@dataclass(frozen=True)
class ProtocolLock:
    """A protocol's lock as its typed view: the protocol's name and canonical digest, each covered file's
    sha256 by path, the digest over those, and the amendment notes (outside the digest)."""
    protocol: str
    protocol_sha256: str
    files: dict[str, str]
    digest: str
    notes: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, obj: dict) -> ProtocolLock:
        """A lock's object as ``read_lock`` validated it (or ``compute_lock`` made it); a missing key raises."""
        return cls(obj["protocol"], obj["protocol_sha256"], dict(obj["files"]), obj["digest"],
                   tuple(obj.get("notes", ())))


def read_lock(proto: Protocol) -> dict:
    """The protocol's lock, validated: every key present with its type, every file digest a sha256,
    and the top-level digest equal to the digest of the rest (so no digest in it was edited)."""
    path = proto.lock_path
    if not path.is_file():
        raise InputError(str(path), "<file>", "no lock: run `harness protocol freeze` first (or pass --exploratory)")
    try:
        from harness.core.statefile import loads
        lock = loads(path.read_text())
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(path), "<file>", f"not JSON ({exc}); re-freeze the protocol") from None
    if not isinstance(lock, dict):
        raise InputError(str(path), "<file>", "expected a JSON object")
    for key, typ in LOCK_KEYS.items():
        if not isinstance(lock.get(key), typ):
            raise InputError(str(path), key, f"missing or not a {typ.__name__}")
    for key in lock:
        if key not in LOCK_KEYS and key not in OPTIONAL_LOCK_KEYS:
            raise InputError(str(path), key, f"unknown key (expected {sorted(LOCK_KEYS | OPTIONAL_LOCK_KEYS)})")
    if not isinstance(lock.get("notes", []), list) or not all(isinstance(n, str) for n in lock.get("notes", [])):
        raise InputError(str(path), "notes", "expected a list of strings")
    hexd = set("0123456789abcdef")
    for rel, d in lock["files"].items():
        if not (isinstance(d, str) and len(d) == 64 and set(d) <= hexd):
            raise InputError(str(path), f"files.{rel}", "expected a sha256 hex digest")
    body = {k: lock[k] for k in ("protocol", "protocol_sha256", "files")}
    if lock["digest"] != sha256_json(body):
        raise InputError(str(path), "digest", "does not match the lock's own content (the lock was edited); "
                                              "re-freeze the protocol")
    return lock


def shipped_protocols() -> list[Path]:
    """The protocols shipped beside the task corpus (``protocols/*.toml``), sorted by name."""
    return sorted((DEFAULT_TASKS_DIR.parent / "protocols").glob("*.toml"))


def check_protocol(path: Path) -> str | None:
    """None when the protocol at ``path`` validates, its tasks and scenarios load and it matches its
    lock; else one line saying why: the InputError, or ``drifted:`` and every drifted entry."""
    try:
        proto = load_protocol(path)
        check_corpus(proto)
        changes = drift(proto)
    except InputError as exc:
        return f"error: {exc}"
    return "drifted: " + "; ".join(changes) if changes else None


def drift(proto: Protocol) -> list[str]:
    """What changed since the lock, as human-readable lines; raises InputError if no lock or a
    lock whose digests do not hold together."""
    old = ProtocolLock.from_json(read_lock(proto))
    new = ProtocolLock.from_json(compute_lock(proto))
    out = []
    if old.protocol != new.protocol:
        out.append(f"the lock is for protocol {old.protocol!r}, not {new.protocol!r}")
    if old.protocol_sha256 != new.protocol_sha256:
        out.append(f"protocol {proto.path.name} changed since it was frozen")
    for rel in sorted(set(old.files) | set(new.files)):
        a, b = old.files.get(rel), new.files.get(rel)
        if a != b:
            out.append(f"{rel}: " + ("added" if a is None else "removed" if b is None else "content changed"))
    if not out and old.digest != new.digest:  # cannot happen once the parts match, but never assume it
        out.append("the lock's digest differs from the recomputed one")
    return out
