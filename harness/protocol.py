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
from dataclasses import dataclass, field
from pathlib import Path

from harness.errors import InputError
from harness.tomlfile import load_toml

CONTROLLERS = ("A1", "A2", "A2p", "A3", "A4")
SCENARIO_IDS = ("null", *[f"B{i}" for i in range(1, 16)])
# Scenarios that only exist for arms able to make a second attempt (paper Appendix A).
NEEDS_SECOND_ATTEMPT = ("B4", "B5", "B10")
ENDPOINTS = ("not_amplified", "completion", "amplified")
CELL_SETS = ("injected", "null", "all")
CLUSTERS = ("task", "task x scenario", "cell")

ARM_DEFAULTS = {
    "A1": {},
    "A2": {"retries": 3},
    "A2p": {"retries": 3, "token_budget": 8000, "wall_budget_s": 120.0},
    "A3": {"retries": 3},
    "A4": {"attempts": 3, "review_rounds": 2, "reflection": True},
}
PROVIDER_KEYS = {"requests_per_minute", "tokens_per_minute", "max_retries", "backoff_base_s", "backoff_max_s",
                 "request_timeout_s", "base_url", "max_tokens_param", "temperature"}
# [monitoring] (optional, pre-registered): read by `harness monitor RUN` (analysis/monitor.py)
MONITOR_KEYS = {"hypotheses", "alpha", "stop_when", "half_width", "min_units", "tuned_for_v"}
STOP_RULES = ("excludes_zero", "half_width_below")
ARM_KEYS = {"controller", "engine", "model", "reviewer_engine", "reviewer_model", "retries", "token_budget",
            "wall_budget_s", "attempts", "review_rounds", "reflection", "max_turns"}


@dataclass(frozen=True)
class Arm:
    name: str
    controller: str
    params: dict

    def get(self, key: str, default=None):
        return self.params.get(key, ARM_DEFAULTS[self.controller].get(key, default))


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
    limits: dict
    rerun: dict
    hypotheses: tuple[dict, ...]
    analysis: dict
    pricing: dict
    raw: dict = field(repr=False, default_factory=dict)
    monitoring: dict = field(default_factory=dict)

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


def load_protocol(path: Path | str) -> Protocol:
    """Load and validate a protocol TOML. Errors name the file, the key and what was expected."""
    path = Path(path).resolve()
    raw = load_toml(path)
    p = raw.get("protocol")
    _expect(isinstance(p, dict), path, "protocol", "missing [protocol] table")
    allowed = {"name", "description", "seed", "repeats", "tasks_dir", "tasks", "scenarios", "engine"}
    for k in p:
        _expect(k in allowed, path, f"protocol.{k}", f"unknown key (expected one of {sorted(allowed)})")
    name = p.get("name")
    _expect(isinstance(name, str) and name, path, "protocol.name", "expected a non-empty string")
    seed = p.get("seed")
    _expect(isinstance(seed, int) and not isinstance(seed, bool), path, "protocol.seed", "expected an integer")
    k = p.get("repeats")
    _expect(isinstance(k, int) and not isinstance(k, bool) and k >= 1, path, "protocol.repeats",
            "expected an integer >= 1")
    tasks = p.get("tasks")
    _expect(isinstance(tasks, list) and tasks and all(isinstance(t, str) for t in tasks), path,
            "protocol.tasks", "expected a non-empty list of task ids")
    _expect(len(set(tasks)) == len(tasks), path, "protocol.tasks", "task ids must be unique")
    scen = p.get("scenarios")
    _expect(isinstance(scen, list) and scen, path, "protocol.scenarios", "expected a non-empty list")
    for s in scen:
        _expect(s in SCENARIO_IDS, path, "protocol.scenarios", f"unknown scenario {s!r} (expected null or B1..B15)")
    _expect(len(set(scen)) == len(scen), path, "protocol.scenarios", "scenarios must be unique")
    tasks_dir = (path.parent / p.get("tasks_dir", "../tasks")).resolve()

    arms_raw = raw.get("arms")
    _expect(isinstance(arms_raw, dict) and arms_raw, path, "arms", "expected at least one [arms.NAME] table")
    arms = []
    for an, ad in arms_raw.items():
        _expect(isinstance(ad, dict), path, f"arms.{an}", "expected a table")
        ctrl = ad.get("controller", an)
        _expect(ctrl in CONTROLLERS, path, f"arms.{an}.controller", f"expected one of {CONTROLLERS}, got {ctrl!r}")
        for key, val in ad.items():
            _expect(key in ARM_KEYS, path, f"arms.{an}.{key}", f"unknown key (expected one of {sorted(ARM_KEYS)})")
            if key in ("retries", "attempts", "review_rounds", "token_budget", "max_turns"):
                _expect(isinstance(val, int) and not isinstance(val, bool) and val >= (0 if key == "review_rounds" else 1),
                        path, f"arms.{an}.{key}", "expected a positive integer")
            if key == "wall_budget_s":
                _expect(isinstance(val, (int, float)) and val > 0, path, f"arms.{an}.{key}", "expected seconds > 0")
            if key == "reflection":
                _expect(isinstance(val, bool), path, f"arms.{an}.{key}", "expected true or false")
        arms.append(Arm(an, ctrl, {k2: v for k2, v in ad.items() if k2 != "controller"}))

    appl_raw = raw.get("applicability", {})
    _expect(isinstance(appl_raw, dict), path, "applicability", "expected a table of arm -> {include|exclude}")
    applicability = {}
    for arm in arms:
        rule = appl_raw.get(arm.name, {})
        _expect(isinstance(rule, dict) and set(rule) <= {"include", "exclude"}, path, f"applicability.{arm.name}",
                "expected a table with 'include' or 'exclude' lists of scenarios")
        for kk, lst in rule.items():
            for s in lst:
                _expect(s in scen, path, f"applicability.{arm.name}.{kk}", f"scenario {s!r} is not in protocol.scenarios")
        runs = [s for s in scen if s in rule.get("include", scen) and s not in rule.get("exclude", [])]
        if arm.controller == "A1":
            bad = [s for s in runs if s in NEEDS_SECOND_ATTEMPT]
            _expect(not bad, path, f"applicability.{arm.name}",
                    f"a single-shot arm cannot run {bad} (they need a second attempt); exclude them")
        applicability[arm.name] = tuple(runs)
    for an in appl_raw:
        _expect(an in arms_raw, path, f"applicability.{an}", "names an arm that is not declared under [arms]")

    factors = {}
    for fk, levels in raw.get("factors", {}).items():
        _expect(fk not in ("arm", "task", "scenario", "repeat"), path, f"factors.{fk}", "reserved factor name")
        _expect(isinstance(levels, list) and levels and all(isinstance(v, str) and "|" not in v and "=" not in v
                                                            for v in levels),
                path, f"factors.{fk}", "expected a non-empty list of strings without '|' or '='")
        factors[fk] = tuple(levels)

    hyps = []
    names = {a.name for a in arms}
    for i, h in enumerate(raw.get("hypotheses", [])):
        where = f"hypotheses[{i}]"
        for key in ("id", "a", "b", "endpoint", "cells"):
            _expect(key in h, path, f"{where}.{key}", "missing")
        _expect(h["a"] in names and h["b"] in names, path, f"{where}.a/b", f"expected declared arms {sorted(names)}")
        _expect(h["endpoint"] in ENDPOINTS, path, f"{where}.endpoint", f"expected one of {ENDPOINTS}")
        _expect(h["cells"] in CELL_SETS, path, f"{where}.cells", f"expected one of {CELL_SETS}")
        _expect(h.get("cluster", "task") in CLUSTERS, path, f"{where}.cluster", f"expected one of {CLUSTERS}")
        from analysis.intervals import METHODS  # the interval methods `harness analyze` offers
        _expect(h.get("interval", METHODS[0]) in METHODS, path, f"{where}.interval", f"expected one of {METHODS}")
        hyps.append(dict(h))
    analysis = raw.get("analysis", {})
    _expect(isinstance(analysis, dict), path, "analysis", "expected a table")
    monitoring = _monitoring(raw.get("monitoring", {}), path, [h["id"] for h in hyps])
    limits = {"test_timeout_s": 60.0, "memory_mb": 2048, "max_turns": 12, "max_tokens": 4096}
    limits.update(raw.get("limits", {}))
    rerun = {"max_reruns": 2}
    rerun.update(raw.get("rerun", {}))
    from harness.pricing import validate as validate_pricing  # [pricing] and [providers]: see harness/pricing.py, limiter.py
    for problem in validate_pricing(raw.get("pricing", {})):
        key, what = problem.split(": ", 1)
        raise InputError(str(path), key, what)
    providers = raw.get("providers", {})
    _expect(isinstance(providers, dict), path, "providers", "expected [providers.NAME] tables")
    for pn, pc in providers.items():
        _expect(isinstance(pc, dict), path, f"providers.{pn}", "expected a table")
        for key, val in pc.items():
            _expect(key in PROVIDER_KEYS, path, f"providers.{pn}.{key}", f"unknown key (expected one of {sorted(PROVIDER_KEYS)})")
            if key in ("base_url", "max_tokens_param"):
                _expect(isinstance(val, str) and val, path, f"providers.{pn}.{key}", "expected a string")
            else:
                _expect(isinstance(val, (int, float)) and not isinstance(val, bool) and val >= 0, path,
                        f"providers.{pn}.{key}", "expected a non-negative number")
    return Protocol(path=path, name=name, seed=seed, repeats=k, tasks_dir=tasks_dir, tasks=tuple(tasks),
                    scenarios=tuple(scen), arms=tuple(arms), applicability=applicability, factors=factors,
                    engine=p.get("engine", "simulated"), limits=limits, rerun=rerun, hypotheses=tuple(hyps),
                    analysis=analysis, pricing=raw.get("pricing", {}), raw=raw, monitoring=monitoring)


def _monitoring(mon, path: Path, hyp_ids: list[str]) -> dict:
    """Validate the optional [monitoring] table: which hypotheses `harness monitor` tracks, its
    confidence level, and an optional pre-registered stopping rule."""
    _expect(isinstance(mon, dict), path, "monitoring", "expected a table")
    for key in mon:
        _expect(key in MONITOR_KEYS, path, f"monitoring.{key}", f"unknown key (expected one of {sorted(MONITOR_KEYS)})")
    hs = mon.get("hypotheses", hyp_ids[:1])
    _expect(isinstance(hs, list) and all(isinstance(h, str) for h in hs), path, "monitoring.hypotheses",
            "expected a list of hypothesis ids")
    for h in hs:
        _expect(h in hyp_ids, path, "monitoring.hypotheses", f"{h!r} is not a declared hypothesis id {hyp_ids}")
    a = mon.get("alpha", 0.05)
    _expect(isinstance(a, float) and 0 < a < 1, path, "monitoring.alpha", "expected a number in (0, 1), e.g. 0.05")
    rule = mon.get("stop_when")
    _expect(rule is None or rule in STOP_RULES, path, "monitoring.stop_when", f"expected one of {STOP_RULES}")
    hw = mon.get("half_width")
    _expect((rule == "half_width_below") == (hw is not None), path, "monitoring.half_width",
            "required with (and only with) stop_when = \"half_width_below\"")
    _expect(hw is None or (isinstance(hw, (int, float)) and not isinstance(hw, bool) and 0 < hw <= 1), path,
            "monitoring.half_width", "expected a difference in (0, 1], e.g. 0.02 for 2 pp")
    for key in ("min_units", "tuned_for_v"):
        v = mon.get(key)
        _expect(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0), path,
                f"monitoring.{key}", "expected a number >= 0")
    return {**mon, "hypotheses": hs, "alpha": a}


def covered_files(proto: Protocol) -> dict[str, Path]:
    """Every file the lock covers: each named task's whole directory and the scenario table."""
    out: dict[str, Path] = {}
    for tid in proto.tasks:
        root = proto.tasks_dir / tid
        if not (root / "task.toml").is_file():
            raise InputError(str(proto.path), "protocol.tasks", f"task {tid!r} not found under {proto.tasks_dir}")
        for f in sorted(root.rglob("*")):
            if f.is_file() and "__pycache__" not in f.parts:
                out[f"{tid}/{f.relative_to(root).as_posix()}"] = f
    scen = proto.tasks_dir / "scenarios.toml"
    if scen.is_file():
        out["scenarios.toml"] = scen
    return out


def compute_lock(proto: Protocol) -> dict:
    files = {rel: hashlib.sha256(p.read_bytes()).hexdigest() for rel, p in covered_files(proto).items()}
    body = {"protocol": proto.name, "protocol_sha256": proto.canonical_digest(), "files": files}
    return {**body, "digest": sha256_json(body)}


def freeze(proto: Protocol) -> dict:
    lock = compute_lock(proto)
    proto.lock_path.write_text(json.dumps(lock, indent=1, sort_keys=True) + "\n")
    return lock


def drift(proto: Protocol) -> list[str]:
    """What changed since the lock, as human-readable lines; raises InputError if no lock."""
    if not proto.lock_path.is_file():
        raise InputError(str(proto.lock_path), "<file>", "no lock: run `harness protocol freeze` first "
                         "(or pass --exploratory)")
    old = json.loads(proto.lock_path.read_text())
    new = compute_lock(proto)
    out = []
    if old.get("protocol_sha256") != new["protocol_sha256"]:
        out.append(f"protocol {proto.path.name} changed since it was frozen")
    for rel in sorted(set(old.get("files", {})) | set(new["files"])):
        a, b = old.get("files", {}).get(rel), new["files"].get(rel)
        if a != b:
            out.append(f"{rel}: " + ("added" if a is None else "removed" if b is None else "content changed"))
    return out
