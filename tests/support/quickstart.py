"""The quickstart run, made once per test session (real cells on the simulated engine, ~15 s), shared
by every pytest-xdist worker of the session: the first worker to ask makes it under a file lock in the
session's common temporary folder, the others wait for it and read it. Its readers (the viewer, the
Inspect export, the pinned outcomes) only read it; a test that changes a run copies it first."""
from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.scripted import REPO

_RUN: dict[str, Path] = {}


def _make(out: Path, done: Path) -> None:
    """`harness run protocols/quickstart.toml --out out --workers 2`, the command `make run` uses."""
    r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", str(REPO / "protocols" / "quickstart.toml"),
                        "--out", str(out), "--workers", "2"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr[-3000:]
    done.write_text("harness run exited 0\n")  # beside the run, not in it: the run dir is exactly the CLI's


def _shared_root(factory: pytest.TempPathFactory) -> Path:
    """The folder all workers of this session share (pytest-xdist gives each worker a child of it);
    without xdist, this process's own base folder."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def quickstart_run(factory: pytest.TempPathFactory) -> Path:
    """The run folder of the session's one quickstart run (made on first use, under a lock)."""
    if "run" not in _RUN:
        root = _shared_root(factory)
        out, done = root / "quickstart-run", root / "quickstart-run.done"  # no .done: never handed out
        with open(root / "quickstart-run.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if _make fails
            if not done.is_file():
                if out.exists():  # a worker's attempt that failed: start again from nothing
                    shutil.rmtree(out)
                _make(out, done)
        _RUN["run"] = out
    return _RUN["run"]
