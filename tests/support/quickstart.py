"""The quickstart run, made once per test session (real cells on the simulated engine, ~15 s)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.scripted import REPO

_RUN: dict[str, Path] = {}


def quickstart_run(base: Path) -> Path:
    """results of `harness run protocols/quickstart.toml` in a folder under base (cached per session)."""
    if "run" not in _RUN:
        out = Path(base) / "quickstart"
        r = subprocess.run([sys.executable, "-m", "harness.cli.cli", "run", str(REPO / "protocols" / "quickstart.toml"),
                            "--out", str(out), "--workers", "2"], capture_output=True, text=True, cwd=REPO)
        assert r.returncode == 0, r.stderr[-3000:]
        _RUN["run"] = out
    return _RUN["run"]
