"""The kernel's act recorder (harness.sandbox.syscalls, docs/kernel-record.md): what recording the
agent's acts costs, as ratios against unrecorded runs in the same bench run.

- one agent command (``run_command``'s confined ``python3`` script that writes a file): recorded
  under strace vs the same run unrecorded;
- one agent test run (``run_acceptance``: the advisory pytest run): recorded (cold: strace wraps a
  launcher it starts) vs unrecorded (warm, the zygote, as before the recorder);
- per cell: the first N cells of the powered design's run order (simulated engine, 1 worker,
  uncached) with the recorder vs with it switched off (``syscalls.recording`` made a no-op; the
  B15 secret run included, which only recorded cells run).
"""
from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def _unrecorded():
    from harness.sandbox import syscalls
    real = syscalls.recording
    with mock.patch.object(syscalls, "recording", lambda path, label, **kw: real(None, label)):
        yield


def _mean(f, n: int) -> float:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return sum(ts) / n


def _one_command(tmp: Path, n: int) -> tuple[float, float]:
    from harness.sandbox import syscalls
    from harness.sandbox.sandbox import run_confined
    ws = tmp / "ws"
    ws.mkdir()
    (ws / "s.py").write_text("import os\nfor i in range(20):\n    open(f'f{i}', 'w').write('x')\n    os.remove(f'f{i}')\n")
    argv = ["sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", str(ws), "python3", "s.py"]

    def recorded():
        with syscalls.recording(tmp / "acts.jsonl", "command"):
            run_confined(argv, ws, writable=(ws,))
    return _mean(lambda: run_confined(argv, ws, writable=(ws,)), n), _mean(recorded, n)


def _one_test_run(tmp: Path, n: int) -> tuple[float, float]:
    from harness.core.tasks import load_task
    from harness.judge.testrun import run_pytest
    from harness.sandbox import syscalls
    task = load_task(ROOT / "tasks" / "median")
    hide = (ROOT / "tasks",)

    def go():
        run_pytest(task.root / "workspace", task.acceptance, dest_rel=task.acceptance_dest, hide=hide, judged=False)

    def recorded():
        with syscalls.recording(tmp / "acts-t.jsonl", "agent_test"):
            go()
    go()  # a zygote up before timing
    return _mean(go, n), _mean(recorded, n)


def run(quick: bool = False) -> list[dict]:
    from benchmarks.bench_cells import _design, _run
    from harness.sandbox import syscalls
    if syscalls.strace_binary() is None:
        return [{"name": "act recorder", "ratio": None, "unit": "n/a: strace cannot trace on this machine"}]
    n, cells = (3, 6) if quick else (8, 16)
    rows = []
    with tempfile.TemporaryDirectory(prefix="hx-bench-rec-") as tmp:
        tmp = Path(tmp)
        base, rec = _one_command(tmp, n)
        rows.append({"name": "act recorder: one agent command (python3 script, 20 files written)",
                     "baseline": "the same confined run unrecorded", "baseline_s": base, "subject_s": rec,
                     "ratio": rec / base, "unit": f"x slower (mean of {n} runs each)"})
        base, rec = _one_test_run(tmp, n)
        rows.append({"name": "act recorder: one agent test run (run_acceptance, task median)",
                     "baseline": "unrecorded (warm zygote)", "baseline_s": base, "subject_s": rec,
                     "ratio": rec / base, "unit": f"x slower (recorded runs go cold; mean of {n} runs each)"})
        proto = _design(tmp)
        on = _run(proto, tmp / "on", cells, workers=1, cache=False)
        with _unrecorded():
            off = _run(proto, tmp / "off", cells, workers=1, cache=False)
        same = "outcomes identical" if on["outcomes"] == off["outcomes"] else "OUTCOMES DIFFER"
        rows.append({"name": "act recorder: per cell (first cells of the powered design, 1 worker, uncached)",
                     "baseline": f"recorder off, {off['n']} cells", "baseline_s": off["cell_s"] / max(1, off["n"]),
                     "subject_s": on["cell_s"] / max(1, on["n"]), "ratio": (on["cell_s"] / max(1, on["n"]))
                     / (off["cell_s"] / max(1, off["n"])), "unit": f"x mean cell wall ({same})"})
    return rows
