"""``harness tasks validate``: prove each task's corpus is what it claims to be.

For every task: the reference passes the visible test and the hidden oracle; the starting
workspace fails the oracle; every plausible-wrong candidate passes visible and fails hidden;
every broken candidate fails visible; the oracle is not reachable from the workspace (no
workspace file carries it, and a probe run from the workspace cannot read it).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from harness.adjudicator import ORACLE_DEST
from harness.sandbox import confinement_level, hidden_for, run_confined
from harness.tasks import Task, read_tree
from harness.testrun import run_pytest
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
        h = run_pytest(ws.root, task.oracle, dest_rel=ORACLE_DEST, hide=hide)
        return v.passed, h.passed
    finally:
        ws.destroy()


def validate_task(task: Task, tasks_dir: Path) -> list[Check]:
    hide = hidden_for(Path(tasks_dir))
    out = []
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
