"""Fixtures of the command fault tests: one small run, built once per module and copied per case."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    """A two-cell quickstart run (records, receipts, run.json), built once and copied per case."""
    from harness.run.driver import execute, prepare
    run = tmp_path_factory.mktemp("run") / "run"
    prepare(ROOT / "protocols" / "quickstart.toml", run, engine=None, reviewer_engine=None, model=None,
            exploratory=False)
    execute(run, limit_cells=2, log=lambda m: None)
    return run


@pytest.fixture
def run_copy(tmp_path, small_run) -> Path:
    return Path(shutil.copytree(small_run, tmp_path / "run", symlinks=True))
