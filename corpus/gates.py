"""Gates: declared in TOML, judged in a sandbox, returning accept / reject / incapacity.

Kinds: ``command`` (argv, exit code), ``pytest`` (a suite run against the artifact),
``jsonschema`` (via the jsonschema library), ``predicate`` (a Python function over the
artifact, run in a subprocess), ``composite`` (every child must accept) and ``external``
(a third-party analyser; a missing executable is incapacity).

Every gate that executes code runs as a subprocess, with a timeout, in a temporary copy of
the artifact directory, with a scrubbed environment. A timeout, a crash, an unexpected exit
code or a missing executable is *incapacity*: the gate could not judge. Incapacity is never
folded into accept or reject.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from corpus.declarations import LIST_INT, LIST_STR, STR, DeclarationError, check_gate, read_toml  # noqa: F401
from corpus.text import escape_controls
from harness.core.registry import GATES

GATELIB = Path(__file__).resolve().parent / "catalogue" / "_gatelib"
DEFAULT_TIMEOUT_S = 30.0
_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "SYSTEMROOT", "TMPDIR")
_SECRETISH = re.compile(r"(KEY|SECRET|TOKEN|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION)", re.I)


class Verdict(str, Enum):
    ACCEPT = "accept"
    REJECT = "reject"
    INCAPACITY = "incapacity"

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        return self.value


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reason: str = ""
    seconds: float = 0.0
    children: tuple["Judgement", ...] = ()

    def as_dict(self) -> dict:
        return {"verdict": self.verdict.value, "reason": self.reason,
                "seconds": round(self.seconds, 4)}


class GateError(ValueError):
    """A gate declaration is malformed (raised at load time, not at judge time)."""


@dataclass
class Gate:
    name: str
    kind: str
    path: Path                      # the gate's TOML file
    spec: dict
    children: list["Gate"] = field(default_factory=list)
    # set by the measurement from the control's own run time (``derive_timeout``); None = declared
    derived_timeout_s: float | None = None

    @property
    def dir(self) -> Path:
        return self.path.parent

    @property
    def declared_timeout_s(self) -> float:
        return float(self.spec.get("timeout_s", DEFAULT_TIMEOUT_S))

    @property
    def timeout_s(self) -> float:
        """The timeout a judgment gets: the one derived from the control when there is one (never
        above the declared one), else the declared one (``timeout_s``, default 30 s)."""
        if self.derived_timeout_s is not None:
            return min(self.derived_timeout_s, self.declared_timeout_s)
        return self.declared_timeout_s

    @property
    def status(self) -> str:
        """"current" (default), "repaired" or "planted" (a deliberately defective gate; its
        ``planted`` key names the defect class, e.g. "absence", "hollowing", "self-derived-scope")."""
        return self.spec.get("status", "current")

    def files(self) -> list[Path]:
        """Every file this gate's verdict depends on (for the freeze digest)."""
        out = {self.path.resolve()}
        for key in ("schema", "module", "tests"):
            if key in self.spec:
                p = (self.dir / self.spec[key]).resolve()
                out.update(q for q in ([p] if p.is_file() else sorted(p.rglob("*"))) if q.is_file()
                           and "__pycache__" not in q.parts)
        for tok in self.spec.get("argv", []):
            resolved = _subst(tok, {"gate_dir": str(self.dir), "gatelib": str(GATELIB)})
            p = Path(resolved)
            if p.is_absolute() and p.is_file():
                out.add(p.resolve())
        for extra in self.spec.get("data", []):
            out.add((self.dir / extra).resolve())
        for c in self.children:
            out.update(c.files())
        return sorted(out)

    def digest(self) -> str:
        """sha256 over (relative name, bytes) of every file the gate depends on."""
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent
        for p in self.files():
            try:
                rel = str(p.relative_to(root))
            except ValueError:
                rel = str(p)
            h.update(rel.encode() + b"\0" + p.read_bytes() + b"\0")
        return h.hexdigest()

    def required_tools(self) -> list[str]:
        tools = list(self.spec.get("requires", []))
        for c in self.children:
            tools += c.required_tools()
        return tools

    def missing_tools(self) -> list[str]:
        return [t for t in self.required_tools() if shutil.which(t) is None]


def load_gate(path: str | Path, _seen: tuple[Path, ...] = ()) -> Gate:
    """A gate file, validated (corpus/declarations.py): unknown keys, wrong types, missing files
    and composite cycles are GateErrors naming the file and the key, raised at load time."""
    path = Path(path).resolve()
    if path in _seen:
        raise GateError(f"{_seen[-1]}: [gate] key 'children': {path.name} includes itself (a cycle)")
    try:
        spec = check_gate(path, read_toml(path))
    except DeclarationError as exc:
        raise GateError(str(exc)) from None
    gate = Gate(name=spec.get("name", path.stem), kind=spec["kind"], path=path, spec=spec)
    if gate.kind == "composite":
        gate.children = [load_gate(path.parent / c, (*_seen, path)) for c in spec["children"]]
    return gate


# --------------------------------------------------------------------------- sandbox

def scrubbed_env(extra: dict[str, str] | None = None, home: str | None = None) -> dict[str, str]:
    """An allow-listed environment: nothing secret-shaped survives, whatever the caller has."""
    env = {k: os.environ[k] for k in _ENV_KEEP if k in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update({"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0", "PYTHONNOUSERSITE": "1",
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "NO_COLOR": "1"})
    if home:
        env["HOME"] = home
    env.update(extra or {})
    return {k: v for k, v in env.items() if not _SECRETISH.search(k)}


def _subst(token: str, mapping: dict[str, str]) -> str:
    def rep(m: re.Match) -> str:
        key = m.group(1)
        return mapping.get(key, m.group(0))
    return re.sub(r"\{(\w+)\}", rep, token)


def run_sandboxed(argv: list[str], cwd: Path, env: dict[str, str], timeout_s: float
                  ) -> tuple[int | None, str, str]:
    """Run argv; returns (exit code or None on timeout, stdout, stderr). Raises FileNotFoundError."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout_s)
        return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        return None, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _tail(s: str, n: int = 300) -> str:
    """The last ``n`` characters of a gate's output, control characters escaped (corpus/text.py):
    the artifact under judgment can make a gate print anything."""
    s = s.strip()
    return escape_controls(s[-n:])


# --------------------------------------------------------------------------- judging

def judge(gate: Gate, artifact_dir: str | Path, target: str) -> Judgement:
    """Judge the artifact ``artifact_dir/target`` (which may be absent) with ``gate``.

    The gate runs on a private temporary copy of ``artifact_dir``; the original is never touched.
    """
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="corpus-gate-") as tmp:
        work = Path(tmp) / "artifact"
        if Path(artifact_dir).exists():
            shutil.copytree(artifact_dir, work, symlinks=False)
        else:
            work.mkdir()
        home = Path(tmp) / "home"
        home.mkdir()
        try:
            j = _judge_in(gate, work, target, str(home))
        except FileNotFoundError as exc:
            j = Judgement(Verdict.INCAPACITY, f"missing executable: {exc.filename or exc}")
        except Exception as exc:  # the harness must never turn its own crash into a verdict
            j = Judgement(Verdict.INCAPACITY, f"gate runner error: {type(exc).__name__}: {exc}")
    return Judgement(j.verdict, escape_controls(j.reason), time.perf_counter() - t0, j.children)


def _mapping(gate: Gate, work: Path, target: str) -> dict[str, str]:
    return {"python": sys.executable, "artifact": str(work / target), "artifact_dir": str(work),
            "gate_dir": str(gate.dir), "gatelib": str(GATELIB), "target": target}


def _code_verdict(gate: Gate, code: int | None, out: str, err: str) -> Judgement:
    if code is None:
        return Judgement(Verdict.INCAPACITY, f"timeout after {gate.timeout_s:g}s")
    accept = gate.spec.get("accept_codes", [0])
    reject = gate.spec.get("reject_codes", [1])
    if code in accept:
        return Judgement(Verdict.ACCEPT, _tail(out or err, 200))
    if code in reject:
        return Judgement(Verdict.REJECT, _tail(out or err))
    return Judgement(Verdict.INCAPACITY, f"exit {code}: {_tail(err or out)}")


def _judge_in(gate: Gate, work: Path, target: str, home: str) -> Judgement:
    m = _mapping(gate, work, target)
    env = scrubbed_env({"CORPUS_ARTIFACT": m["artifact"], "CORPUS_ARTIFACT_DIR": str(work),
                        "CORPUS_GATE_DIR": str(gate.dir)}, home=home)
    return GATES.get(gate.kind).obj(gate, work, target, home, m, env)


# -- gate kinds, registered in the one plug-in registry (harness.core.registry): ``keys`` are the
# kind's own declaration keys (besides the common ones), ``required`` the ones it cannot do without.
# A judge maps (gate, work dir, target, HOME, placeholder mapping, scrubbed env) -> Judgement.
_ARGV_KEYS = {"argv": LIST_STR, "requires": LIST_STR, "accept_codes": LIST_INT, "reject_codes": LIST_INT}


@GATES.register("command", keys=_ARGV_KEYS, required=("argv",))
def _judge_command(gate: Gate, work: Path, target: str, home: str, m: dict, env: dict) -> Judgement:
    """argv's exit code: accept_codes accept, reject_codes reject, anything else is incapacity."""
    missing = gate.missing_tools()
    if missing:
        return Judgement(Verdict.INCAPACITY, f"missing tool: {', '.join(missing)}")
    argv = [_subst(t, m) for t in gate.spec["argv"]]
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        return Judgement(Verdict.INCAPACITY, f"missing executable: {argv[0]}")
    code, out, err = run_sandboxed(argv, work, env, gate.timeout_s)
    return _code_verdict(gate, code, out, err)


GATES.add("external", _judge_command, keys=_ARGV_KEYS, required=("argv",))  # a third-party analyser


@GATES.register("pytest", keys={"tests": STR}, required=("tests",))
def _judge_pytest(gate: Gate, work: Path, target: str, home: str, m: dict, env: dict) -> Judgement:
    """A pytest suite run against the artifact."""
    env["PYTHONPATH"] = str(work)
    code, out, err = run_sandboxed(pytest_argv(gate, work), work, env, gate.timeout_s)
    return pytest_verdict(gate, code, out, err, work, target)


@GATES.register("jsonschema", keys={"schema": STR}, required=("schema",))
def _judge_schema(gate: Gate, work: Path, target: str, home: str, m: dict, env: dict) -> Judgement:
    """The artifact validated against a JSON schema (the jsonschema library)."""
    return _judge_jsonschema(gate, work / target)


@GATES.register("predicate", keys={"module": STR, "function": STR}, required=("module",))
def _judge_predicate(gate: Gate, work: Path, target: str, home: str, m: dict, env: dict) -> Judgement:
    """A Python function over the artifact, run in a subprocess; it must return a bool."""
    module = (gate.dir / gate.spec["module"]).resolve()
    func = gate.spec.get("function", "check")
    argv = [sys.executable, "-c", _PREDICATE_RUNNER, str(module), func, m["artifact"]]
    code, out, err = run_sandboxed(argv, work, env, gate.timeout_s)
    if code is None:
        return Judgement(Verdict.INCAPACITY, f"timeout after {gate.timeout_s:g}s")
    line = out.strip().splitlines()[-1] if out.strip() else ""
    if code == 0 and line in ("ACCEPT", "REJECT"):
        return Judgement(Verdict.ACCEPT if line == "ACCEPT" else Verdict.REJECT,
                         _tail(err, 200))
    return Judgement(Verdict.INCAPACITY, f"predicate did not return a bool: {_tail(err or out)}")


@GATES.register("composite", keys={"children": LIST_STR}, required=("children",))
def _judge_composite(gate: Gate, work: Path, target: str, home: str, m: dict, env: dict) -> Judgement:
    """Every child must accept; any reject rejects; otherwise incapacity."""
    kids = tuple(_judge_in(c, work, target, home) for c in gate.children)
    if any(k.verdict is Verdict.REJECT for k in kids):
        why = "; ".join(f"{c.name}: reject" for c, k in zip(gate.children, kids)
                        if k.verdict is Verdict.REJECT)
        return Judgement(Verdict.REJECT, why, children=kids)
    if all(k.verdict is Verdict.ACCEPT for k in kids):
        return Judgement(Verdict.ACCEPT, "every child accepted", children=kids)
    why = "; ".join(f"{c.name}: {k.reason}" for c, k in zip(gate.children, kids)
                    if k.verdict is Verdict.INCAPACITY)
    return Judgement(Verdict.INCAPACITY, why, children=kids)


def pytest_argv(gate: Gate, work: Path, selected: list[str] | None = None) -> list[str]:
    """The cold pytest command line; ``selected`` (node ids) replaces the whole suite."""
    tests = (gate.dir / gate.spec["tests"]).resolve()
    return [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
            "--rootdir", str(work), "-c", os.devnull, *(selected if selected else [str(tests)])]


def pytest_verdict(gate: Gate, code: int | None, out: str, err: str, work: Path, target: str) -> Judgement:
    """pytest's exit code as a verdict: 0 accept, 1 reject, 2 reject only when the artifact broke
    collection, anything else (or a timeout) incapacity. Shared by the cold path and the
    fork-server path (corpus/fast_pytest.py), so both read a run the same way."""
    if code is None:
        return Judgement(Verdict.INCAPACITY, f"timeout after {gate.timeout_s:g}s")
    if code == 0:
        return Judgement(Verdict.ACCEPT, _tail(out, 200))
    if code == 1:
        return Judgement(Verdict.REJECT, _tail(out))
    # 2 = interrupted, usually a collection error. Ownership decides (paper Fig. 4): if the
    # error comes from the artifact (it is missing, will not import, has a syntax error),
    # the suite did reach a diagnosis and filing it as incapacity would be the "misfiled
    # incapacity" of Table 11. Otherwise (the gate's own suite is broken), incapacity.
    # 3 internal error, 4 usage error, 5 no tests collected: the suite did not judge.
    if code == 2 and _artifact_owns_error(out + err, work, target):
        return Judgement(Verdict.REJECT, f"artifact broke collection: {_tail(out)}")
    return Judgement(Verdict.INCAPACITY, f"pytest exit {code}: {_tail(out + err)}")


def _artifact_owns_error(output: str, work: Path, target: str) -> bool:
    """Did a collection error originate in the artifact rather than in the gate's suite?"""
    stem = Path(target).stem
    if f"No module named '{stem}'" in output or f'No module named "{stem}"' in output:
        return True
    if f'File "{work}{os.sep}' in output or f"{work}{os.sep}{target}:" in output:
        return True
    # pytest prints a traceback entry relative to its rootdir (the artifact's directory) as
    # "vat.py:3: in <module>": an import-time error raised by the artifact itself
    return re.search(rf"^{re.escape(target)}:\d+: in ", output, re.M) is not None


def _judge_jsonschema(gate: Gate, artifact: Path) -> Judgement:
    import jsonschema

    try:
        schema = json.loads((gate.dir / gate.spec["schema"]).read_text())
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
    except Exception as exc:  # the gate itself is broken: it cannot judge
        return Judgement(Verdict.INCAPACITY, f"bad schema: {type(exc).__name__}: {exc}")
    if not artifact.is_file():
        return Judgement(Verdict.REJECT, "artifact absent")
    try:
        doc = json.loads(artifact.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return Judgement(Verdict.REJECT, f"not JSON: {exc}")
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
    if errors:
        return Judgement(Verdict.REJECT, "; ".join(e.message for e in errors[:3]))
    return Judgement(Verdict.ACCEPT, "valid")


_PREDICATE_RUNNER = r"""
import importlib.util, sys
path, func, artifact = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("corpus_predicate", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
result = getattr(mod, func)(artifact)
if result is True:
    print("ACCEPT")
elif result is False:
    print("REJECT")
else:
    print(f"predicate returned {result!r}, not a bool", file=sys.stderr)
    sys.exit(3)
"""
