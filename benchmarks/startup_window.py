"""The start-up window of the ``harness`` console script (issue 34): how long after ``execve`` SIGTERM
is still the kernel's default (a silent exit -15) and SIGINT the interpreter's (a KeyboardInterrupt
traceback), because no instruction of the harness has run yet.

``python -m benchmarks.startup_window [N] [--script PATH]`` runs ``PATH --version`` N times under
``strace --seccomp-bpf`` (only execve, openat and rt_sigaction are stopped at, so the program runs
at nearly its own speed) and reports, from each trace's timestamps:

- exec -> guard: ``execve`` to the ``rt_sigaction(SIGTERM, handler)`` of
  ``harness.cli.startup.guard_startup`` (the whole window);
- exec -> script: ``execve`` to the interpreter opening the console script (the interpreter's
  initialisation and ``site``: the ``.pth`` files, an editable install's finder among them). No
  code of the harness can run before this;
- script -> guard: the harness's own part (the imports on the way to ``guard_startup``).

Medians and the 10th/90th percentiles, in milliseconds. Needs strace (``make tracer``).
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def one(script: str, trace: Path) -> tuple[float, float] | None:
    """(exec -> script, script -> guard) in ms for one run of ``script --version``, or None."""
    subprocess.run(["strace", "-f", "--seccomp-bpf", "-ttt", "-e", "trace=execve,openat,rt_sigaction", "-o",
                    str(trace), script, "--version"], capture_output=True, check=False)
    t0 = at_script = None
    for line in trace.read_text().splitlines():
        _pid, ts_text, body = line.split(None, 2)
        ts = float(ts_text)
        if t0 is None and "execve(" in body:
            t0 = ts
        elif t0 is not None and at_script is None and "openat(" in body and f'"{script}"' in body:
            at_script = ts
        elif at_script is not None and "rt_sigaction(SIGTERM, {sa_handler=0x" in body:
            return (at_script - t0) * 1e3, (ts - at_script) * 1e3
    return None


def _summary(xs: list[float]) -> str:
    xs = sorted(xs)
    return f"median {statistics.median(xs):.1f} ms (p10 {xs[len(xs) // 10]:.1f}, p90 {xs[(9 * len(xs)) // 10]:.1f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.startup_window")
    ap.add_argument("n", nargs="?", type=int, default=30)
    ap.add_argument("--script", default=str(Path(sys.executable).parent / "harness"))
    args = ap.parse_args(argv)
    if shutil.which("strace") is None:
        print("strace is missing (make tracer)", file=sys.stderr)
        return 2
    runs = []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(args.n):
            got = one(args.script, Path(d) / "trace")
            if got is not None:
                runs.append(got)
    if not runs:
        print("no run installed the guard (is --script the harness console script?)", file=sys.stderr)
        return 1
    print(f"{len(runs)} runs of {args.script} --version")
    print(f"exec -> guard (the window):            {_summary([a + b for a, b in runs])}")
    print(f"exec -> script (interpreter and site): {_summary([a for a, _ in runs])}")
    print(f"script -> guard (the harness's part):  {_summary([b for _, b in runs])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
