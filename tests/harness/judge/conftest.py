"""The judge's tests share their process with every other test on the same xdist worker: what the judge does to
the interpreter in its driver (``subject_rpc.StdlibPatches`` gives every module a watching class) must not
outlive the test that did it (nor the import record ``subject_rpc.import_record`` wraps the import system with). A Ray run later on the same worker pickled ``ray`` and failed on a watched module
(CI, stop 41)."""
from __future__ import annotations

import sys

import pytest


@pytest.fixture(autouse=True)
def _no_module_left_watched():
    yield
    rpc = sys.modules.get("harness.judge.subject_rpc")
    if rpc is not None:
        left = sorted(n for n, m in list(sys.modules.items()) if type(m) is rpc._WatchedModule)
        assert not left, f"modules left with the judge's watching class: {left[:5]}"
        assert not rpc._LOADS, "the judge's import record left on this process's import system (rpc.drop_import_record)"
