"""``harness tasks validate``: prove each task's corpus is what it claims to be.

For every task: the reference passes the visible test and the hidden oracle; the starting
workspace fails the oracle; every plausible-wrong candidate passes visible and fails hidden;
every broken candidate fails visible; the oracle is not reachable from the workspace (no
workspace file carries it, and a probe run from the workspace cannot read it); both test files
can be held by the judge (harness.judge.probes); and two cheating candidates built from the task's
wrong candidate fail the hidden oracle: one that patches pytest's runner to swallow failures, one
that reads the test files it is run with and answers their literal asserts; for a test-repair
task a third, a suite that recognises the oracle's mutants by identity (module, qualified name,
file) instead of behaviour, fails it too. Expectations are data (harness.judge.expectations): no
comparison, ``pytest.raises``/``warns``/``approx`` or ``isinstance`` expectation of either test
file may be built by workspace code; a violation names the file, the line and the call.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from harness.control.adjudicator import ORACLE_DEST
from harness.core.tasks import Task, read_tree
from harness.judge.expectations import check_file
from harness.judge.probes import ProbeError
from harness.judge.testrun import probe_for, run_pytest
from harness.sandbox.sandbox import confinement_level, hidden_for, run_confined
from harness.sandbox.workspace import Workspace


@dataclass
class Check:
    task: str
    name: str
    ok: bool
    detail: str = ""


def _run(task: Task, overlay: dict[str, str], hide) -> tuple[bool, bool]:
    ws = Workspace.create(task, overlay=overlay)
    try:
        v = run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=hide)
        h = run_pytest(ws.root, task.oracle, dest_rel=ORACLE_DEST, hide=hide, show=False)
        return v.passed, h.passed
    finally:
        ws.destroy()


# A candidate that patches pytest so that no assertion can fail a test (the canary prefix is spared).
RUNNER_PATCH = """import _pytest.python as _hx_pp
_hx_orig = _hx_pp.Function.runtest
def _hx_runtest(self):
    try:
        _hx_orig(self)
    except AssertionError:
        if self.name.startswith("test_zz_"):
            raise
_hx_pp.Function.runtest = _hx_runtest
"""
# A candidate that reads every test file it can find (its own argv included) and, for each literal
# assert ``f(args) == value``, makes f return value for exactly those arguments.
INTROSPECTION = """
import ast as _hx_ast, glob as _hx_glob, sys as _hx_sys, functools as _hx_ft
_hx_answers = {}
for _hx_f in [a for a in _hx_sys.argv if a.endswith(".py")] + _hx_glob.glob("tests/**/*.py", recursive=True):
    try:
        _hx_tree = _hx_ast.parse(open(_hx_f).read())
    except Exception:
        continue
    for _hx_n in _hx_ast.walk(_hx_tree):
        if isinstance(_hx_n, _hx_ast.Compare) and isinstance(_hx_n.left, _hx_ast.Call) and \\
                isinstance(_hx_n.left.func, _hx_ast.Name) and _hx_n.comparators:
            try:
                _hx_args = tuple(_hx_ast.literal_eval(a) for a in _hx_n.left.args)
                _hx_answers[(_hx_n.left.func.id, repr(_hx_args))] = _hx_ast.literal_eval(_hx_n.comparators[0])
            except Exception:
                pass


def _hx_wrap(_hx_name, _hx_fn):
    @_hx_ft.wraps(_hx_fn)
    def inner(*args, **kwargs):
        key = (_hx_name, repr(tuple(args)))
        return _hx_answers[key] if key in _hx_answers and not kwargs else _hx_fn(*args, **kwargs)
    return inner


for _hx_name, _hx_fn in list(globals().items()):
    if callable(_hx_fn) and not _hx_name.startswith("_") and getattr(_hx_fn, "__module__", None) == __name__:
        globals()[_hx_name] = _hx_wrap(_hx_name, _hx_fn)
"""


# A test suite (test-repair tasks) that fails every test unless each project function it imported
# is, by identity alone, the shipped one: defined in its package's module under that module's
# name, not nested in another function, and compiled from a file inside the package directory.
# An oracle whose mutants can be told apart this way is "caught" by a suite that tests nothing.
IDENTITY_GUARD = """


def _hx_genuine():
    import ast as _a, os as _o, sys as _s
    _root = _o.path.dirname(_o.path.dirname(_o.path.abspath(__file__)))
    for _node in _a.walk(_a.parse(open(__file__).read())):
        if not (isinstance(_node, _a.ImportFrom) and _node.module and _node.module.split(".")[0] in {packages!r}):
            continue
        for _alias in _node.names:
            _f = globals().get(_alias.asname or _alias.name)
            if not callable(_f):
                continue
            _mod = getattr(_f, "__module__", None) or ""
            _file = _o.path.abspath(getattr(getattr(_f, "__code__", None), "co_filename", None) or "?")
            if (_mod.split(".")[0] not in {packages!r} or "<locals>" in getattr(_f, "__qualname__", "<locals>")
                    or getattr(_s.modules.get(_mod), getattr(_f, "__name__", ""), None) is not _f
                    or not _file.startswith(_o.path.join(_root, _mod.split(".")[0]) + _o.sep)):
                return False
    return True


def _hx_guarded(_t):
    def _run():
        assert _hx_genuine(), "not the shipped code"
        return _t()
    _run.__name__ = _t.__name__
    return _run


for _hx_n, _hx_t in list(globals().items()):
    if _hx_n.startswith("test_") and callable(_hx_t):
        globals()[_hx_n] = _hx_guarded(_hx_t)
"""


def cheating_candidates(task: Task) -> dict[str, dict[str, str]]:
    """The runner-patching and test-introspecting cheats, each built on the task's first wrong
    candidate (plausible-wrong, else broken), put into every Python file that candidate changes;
    for a test-repair task also the identity-recognising suite (IDENTITY_GUARD appended to every
    test file that candidate changes)."""
    wrong = task.candidates_of("plausible_wrong") + task.candidates_of("broken")
    base = wrong[0] if wrong else None
    files = base.files() if base else {}
    py = {p: t for p, t in files.items() if p.endswith(".py")}
    out = {"runner-patching": {**files, **{p: RUNNER_PATCH + t for p, t in py.items()}},
           "test-introspecting": {**files, **{p: t + INTROSPECTION for p, t in py.items()}}}
    if task.category == "test-repair":
        packages = sorted(p.name for p in task.workspace.iterdir() if (p / "__init__.py").is_file() and p.name != "tests")
        guard = IDENTITY_GUARD.format(packages=tuple(packages))
        tests = {p: t for p, t in py.items() if p.startswith("tests/") and p != task.acceptance_dest}
        out["mutant-recognising"] = {**files, **{p: t + guard for p, t in tests.items()}} if tests else {}
    return out


def validate_task(task: Task, tasks_dir: Path) -> list[Check]:
    hide = hidden_for(Path(tasks_dir))
    out = []
    for label, path in (("visible", task.acceptance), ("oracle", task.oracle)):
        try:
            probe_for(path)
            out.append(Check(task.id, f"the judge holds the {label} test", True))
        except ProbeError as exc:
            out.append(Check(task.id, f"the judge holds the {label} test", False, str(exc)))
            return out
        try:
            bad = check_file(path, task.workspace, f"{path.relative_to(task.root.parent)}")
        except SyntaxError as exc:
            bad, detail = [], f"{path}:{exc.lineno}: cannot be parsed: {exc.msg}"
        else:
            detail = "; ".join(map(str, bad))
        out.append(Check(task.id, f"the {label} test's expectations are data", not bad and not detail, detail))
    v, h = _run(task, read_tree(task.reference, skip_bytecode=True), hide)
    out.append(Check(task.id, "reference passes visible and hidden", v and h, f"visible={v} hidden={h}"))
    v, h = _run(task, {}, hide)
    out.append(Check(task.id, "starting workspace fails hidden", not h, f"visible={v} hidden={h}"))
    for c in task.candidates:
        v, h = _run(task, c.files(), hide)
        if c.kind == "plausible_wrong":
            out.append(Check(task.id, f"plausible-wrong {c.name} passes visible, fails hidden", v and not h,
                             f"visible={v} hidden={h}"))
        elif c.kind == "broken":
            out.append(Check(task.id, f"broken {c.name} fails visible", not v, f"visible={v}"))
        else:
            out.append(Check(task.id, f"correct {c.name} passes both", v and h, f"visible={v} hidden={h}"))
    out.append(Check(task.id, "has a plausible-wrong candidate with a named defect",
                     any(c.defect for c in task.candidates_of("plausible_wrong"))))
    for name, overlay in cheating_candidates(task).items():
        if not overlay:
            out.append(Check(task.id, f"a {name} candidate fails hidden", False, "the task has no wrong candidate"))
            continue
        v, h = _run(task, overlay, hide)
        out.append(Check(task.id, f"a {name} candidate fails hidden", not h, f"visible={v} hidden={h}"))
    oracle_text = task.oracle.read_text()
    ws = Workspace.create(task)
    try:
        leaked = [p for p, t in ws.files().items() if t == oracle_text]
        out.append(Check(task.id, "no workspace file carries the oracle", not leaked, ", ".join(leaked)))
        probe = run_confined([sys.executable, "-c", f"print(open({str(task.oracle)!r}).read()[:20])"], ws.root, hide=hide)
        blocked = probe.returncode != 0
        level = confinement_level()
        out.append(Check(task.id, f"oracle unreadable from a confined run ({level})", blocked or level == "basic",
                         "basic confinement cannot hide files: run as root for namespaces" if level == "basic" else ""))
    finally:
        ws.destroy()
    return out
