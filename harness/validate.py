"""``harness tasks validate``: prove each task's corpus is what it claims to be.

For every task: the reference passes the visible test and the hidden oracle; the starting
workspace fails the oracle; every plausible-wrong candidate passes visible and fails hidden;
every broken candidate fails visible; the oracle is not reachable from the workspace (no
workspace file carries it, and a probe run from the workspace cannot read it); both test files
can be held by the judge (harness/probes.py); and two cheating candidates built from the task's
wrong candidate fail the hidden oracle: one that patches pytest's runner to swallow failures, one
that reads the test files it is run with and answers their literal asserts.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from harness.adjudicator import ORACLE_DEST
from harness.sandbox import confinement_level, hidden_for, run_confined
from harness.tasks import Task, read_tree
from harness.probes import ProbeError
from harness.testrun import probe_for, run_pytest
from harness.workspace import Workspace


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


def cheating_candidates(task: Task) -> dict[str, dict[str, str]]:
    """The runner-patching and test-introspecting cheats, each built on the task's first wrong
    candidate (plausible-wrong, else broken), put into every Python file that candidate changes."""
    wrong = task.candidates_of("plausible_wrong") + task.candidates_of("broken")
    base = wrong[0] if wrong else None
    files = base.files() if base else {}
    py = {p: t for p, t in files.items() if p.endswith(".py")}
    return {"runner-patching": {**files, **{p: RUNNER_PATCH + t for p, t in py.items()}},
            "test-introspecting": {**files, **{p: t + INTROSPECTION for p, t in py.items()}}}


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
