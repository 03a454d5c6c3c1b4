"""The quickstart run (shared with the viewer tests: made once per session)."""
from __future__ import annotations

import pytest

from support.quickstart import quickstart_run


@pytest.fixture(scope="session")
def qs_run(tmp_path_factory):
    return quickstart_run(tmp_path_factory)
