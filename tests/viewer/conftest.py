"""Shared fixtures: the quickstart run and its report (built once per session)."""
from __future__ import annotations

import pytest

from support.quickstart import quickstart_run
from viewer.site import build


@pytest.fixture(scope="session")
def qs_run(tmp_path_factory):
    return quickstart_run(tmp_path_factory)


@pytest.fixture(scope="session")
def qs_report(qs_run, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    build(qs_run, out)
    return out
