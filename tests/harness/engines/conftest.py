"""Fixtures for the live-engine tests: loopback servers, a planted secret, small protocols."""
from __future__ import annotations

import pytest

from harness.core.tasks import load_task
from support.loopback import ALL_ARMS, OPENAI_SECRET, PLANTED, PROTO, SECRET, TASKS


@pytest.fixture
def tasks():
    return [load_task(TASKS / "median"), load_task(TASKS / "parse-range")]


@pytest.fixture
def secret_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    monkeypatch.setenv("MY_SERVICE_TOKEN", PLANTED)
    return monkeypatch


@pytest.fixture
def write_protocol(tmp_path):
    def write(engine, *, name="live", arms=ALL_ARMS, tasks=("median",), scenarios=("null", "B2"), max_retries=6,
              max_reruns=2, price_model=None):
        price_model = price_model or {"anthropic": "claude-loopback-4-5", "openai": "gpt-loopback"}.get(engine, "x")
        p = tmp_path / f"{name}.toml"
        p.write_text(PROTO.format(name=name, tasks=TASKS, tasks_list=list(tasks), scenarios=list(scenarios),
                                  engine=engine, arms=arms, max_retries=max_retries, max_reruns=max_reruns,
                                  price_model=price_model).replace("'", '"'))
        return p
    return write
