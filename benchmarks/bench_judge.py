"""The judge's cost: a judged test run (probe in the sandbox, expected values decided outside it;
harness.judge.judge) against a plain pytest run of the same test file on the same tree, in the same
sandbox and executor, measured in the same bench run.

For every task (``--quick``: the first four) the reference tree is run against the hidden oracle
both ways, ``REPS`` times each, interleaved so that machine load hits both alike; the row reports
summed wall time and the ratio judged / plain. The verdict cache is off (each run executes).
"""
from __future__ import annotations

import time
from pathlib import Path

from harness.control.adjudicator import ORACLE_DEST
from harness.core.tasks import load_tasks, read_tree
from harness.judge.testrun import run_pytest
from harness.sandbox.sandbox import Limits, hidden_for
from harness.sandbox.workspace import Workspace

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "tasks"
REPS = 3


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def run(quick: bool = False) -> list[dict]:
    tasks = load_tasks(TASKS)
    ids = sorted(tasks)[:4] if quick else sorted(tasks)
    hide = hidden_for(TASKS)
    judged_s = plain_s = 0.0
    runs = 0
    disagreements = []
    for tid in ids:
        task = tasks[tid]
        ws = Workspace.create(task, overlay=read_tree(task.reference, skip_bytecode=True))
        try:
            for _ in range(REPS):
                out: dict = {}

                def judged():
                    out["judged"] = run_pytest(ws.root, task.oracle, dest_rel=ORACLE_DEST, hide=hide, show=False)

                def plain():
                    out["plain"] = run_pytest(ws.root, task.oracle, dest_rel=ORACLE_DEST, hide=hide, judged=False)

                judged_s += _time(judged)
                plain_s += _time(plain)
                runs += 1
                if out["judged"].passed != out["plain"].passed:
                    disagreements.append(tid)
        finally:
            ws.destroy()
    rows = [_oracle_row(plain_s, judged_s, ids, runs, disagreements), _visible_warm_row(tasks, hide),
            _final_adjudication_row(tasks, hide, quick)]
    return rows


def _oracle_row(plain_s, judged_s, ids, runs, disagreements) -> dict:
    note = (f"{len(ids)} tasks x {REPS} reps of the reference against the hidden oracle; "
            f"verdicts disagree on {len(disagreements)} of {runs} runs"
            + (f" ({sorted(set(disagreements))})" if disagreements else ""))
    return {"name": "judge: judged oracle run vs plain pytest run (same sandbox)",
            "baseline": "plain pytest run", "baseline_s": plain_s, "subject": "judged run (driver + subject + judge)",
            "subject_s": judged_s, "ratio": judged_s / plain_s if plain_s else float("nan"),
            "unit": "x wall (lower is better)", "notes": note}


VISIBLE_TASK = "median"
VISIBLE_REPS = 8


def _visible_warm_row(tasks, hide) -> dict:
    """Issue 21's cost: one task's visible test, warm (the zygote forks the driver; the subject is a
    fresh interpreter per run), judged against plain pytest, interleaved; the first pair warms the
    zygote and is not counted. Target: ratio <= 1.5."""
    import os

    from harness.sandbox import warm
    task = tasks[VISIBLE_TASK]
    old = os.environ.get("HARNESS_WARM")
    os.environ["HARNESS_WARM"] = "1"
    ws = Workspace.create(task, overlay=read_tree(task.reference, skip_bytecode=True))
    judged_s = plain_s = 0.0
    try:
        for i in range(VISIBLE_REPS + 1):
            j = _time(lambda: run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=hide))
            p = _time(lambda: run_pytest(ws.root, task.acceptance, dest_rel=task.acceptance_dest, hide=hide,
                                         judged=False))
            if i:
                judged_s, plain_s = judged_s + j, plain_s + p
    finally:
        ws.destroy()
        if old is None:
            os.environ.pop("HARNESS_WARM", None)
        else:
            os.environ["HARNESS_WARM"] = old
    executor = "warm" if warm.enabled() else "cold (warm unavailable at this level)"
    return {"name": f"judge: judged visible run vs plain pytest run, {VISIBLE_TASK}, {executor}",
            "baseline": "plain pytest run", "baseline_s": plain_s, "subject": "judged run (driver + subject + judge)",
            "subject_s": judged_s, "ratio": judged_s / plain_s if plain_s else float("nan"),
            "unit": "x wall (lower is better; target <= 1.5)",
            "notes": f"{VISIBLE_REPS} interleaved pairs after one warm-up pair, reference tree, acceptance test"}


FINAL_REPS = 8


def _final_adjudication_row(tasks, hide, quick: bool) -> dict:
    """Issue 32's cost: the final adjudication's test runs on one cell (harness.control.adjudicator
    ``final_check`` of the visible test and of the hidden oracle: each judged AND run by plain pytest)
    against plain pytest alone on the same two tests and tree, interleaved pairs, the executor as
    configured (warm by default); the first pair warms the zygote and is not counted. Target <= 2.2x.

    Two ratios: wall time (the row's ``ratio``) and CPU time of this process and every process below it
    (``_tree_cpu``). ``final_check`` runs the plain run in a thread of its own beside the judged run
    (harness.judge.testrun ``run_judged_and_plain``), so on a machine with a free core its wall ratio is
    below its CPU ratio; on one whose cores are busy the two approach each other. A pair during which a
    long-lived process below this one ended (a zygote recycled: ``warm.RECYCLE``) takes that process's
    CPU time with it and is left out of the CPU sums (the notes count them)."""
    from harness.control.adjudicator import final_check
    task = tasks[VISIBLE_TASK]
    tests = ((task.acceptance, task.acceptance_dest, True), (task.oracle, ORACLE_DEST, False))
    ws = Workspace.create(task, overlay=read_tree(task.reference, skip_bytecode=True))
    final_s = plain_s = final_cpu = plain_cpu = 0.0
    reps = 3 if quick else FINAL_REPS
    lost = 0
    load0 = _load()
    try:
        for i in range(reps + 1):
            f, fc = _time_cpu(lambda: [final_check(ws.root, t, label="x", dest_rel=d, hide=hide, limits=Limits(),
                                                   show=show) for t, d, show in tests])
            p, pc = _time_cpu(lambda: [run_pytest(ws.root, t, dest_rel=d, hide=hide, judged=False, show=show)
                                       for t, d, show in tests])
            if i:
                final_s, plain_s = final_s + f, plain_s + p
                if fc is None or pc is None:
                    lost += 1
                else:
                    final_cpu, plain_cpu = final_cpu + fc, plain_cpu + pc
    finally:
        ws.destroy()
    cpu_ratio = final_cpu / plain_cpu if plain_cpu else float("nan")
    return {"name": f"judge: final adjudication (judged + plain, visible + oracle) vs plain pytest, {VISIBLE_TASK}",
            "baseline": "plain pytest, visible + oracle", "baseline_s": plain_s,
            "subject": "final adjudication's test runs (judge AND plain pytest)", "subject_s": final_s,
            "ratio": final_s / plain_s if plain_s else float("nan"), "cpu_ratio": cpu_ratio,
            "baseline_cpu_s": plain_cpu, "subject_cpu_s": final_cpu,
            "unit": "x wall (lower is better; target <= 2.2)",
            "notes": f"{reps} interleaved pairs after one warm-up pair, reference tree; CPU (this process and all below "
                     f"it): {final_cpu:.2f} s / {plain_cpu:.2f} s = {cpu_ratio:.2f}x"
                     + (f" ({reps - lost} pairs; {lost} left out: a zygote ended during them)" if lost else "")
                     + f"; {load0} before, {_load()} after"}


def _time_cpu(fn) -> tuple[float, float | None]:
    """Wall seconds of ``fn()`` and the CPU seconds it cost this process and every process below it (None when a
    process below this one at the start had ended by the end: its time is no longer counted anywhere we read)."""
    c0, alive0 = _tree_cpu()
    t0 = time.perf_counter()
    fn()
    wall = time.perf_counter() - t0
    c1, alive1 = _tree_cpu()
    return wall, (c1 - c0 if alive0 <= alive1 else None)


def _tree_cpu() -> tuple[float, frozenset]:
    """User + system CPU seconds of this process (every thread, and the children it has reaped) and of every
    live process below it (each with the children it has reaped: a run's processes, reaped by the zygote),
    read from /proc; and the pids of those processes."""
    import os
    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    tick = os.sysconf("SC_CLK_TCK")
    procs: dict[int, tuple[int, float]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:  # (no /proc: this process and the children it reaped only; the row's notes show the ratio)
        names = []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        procs[int(name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]) / tick)  # ppid; utime..cstime
    me, below = os.getpid(), set()
    for pid in procs:
        p, hops = pid, 0
        while p in procs and p != me and hops < 64:
            p, hops = procs[p][0], hops + 1
        if p == me and pid != me:
            below.add(pid)
    return total + sum(procs[p][1] for p in below), frozenset(below)


def _load() -> str:
    import os
    try:
        return "load average %.1f %.1f %.1f on %d CPUs" % (*os.getloadavg(), os.cpu_count() or 0)
    except OSError:
        return "load average n/a"
