"""Independent review of issue 11 (ledger, faults, inputs): each test is a defect found and fixed."""
from __future__ import annotations

import json

import pytest

from harness.driver import execute, prepare
from harness.errors import InputError
from harness.protocol import freeze, load_protocol
from support.scripted import copy_tasks

PROTO = """
[protocol]
name = "mini"
seed = 11
repeats = 1
tasks_dir = "tasks"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]

[arms.A1]
[arms.A2]
"""


@pytest.fixture
def frozen(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    p = tmp_path / "mini.toml"
    p.write_text(PROTO)
    freeze(load_protocol(p))
    return p


def test_resume_refuses_a_protocol_refrozen_after_the_run_started(frozen, tmp_path):
    """A pre-registered run is bound to the digest in its run.json. Editing the protocol and
    re-freezing it (a new pre-registration) must not let --resume run the remaining cells under the
    new protocol while their records still carry the old digest; nothing is appended."""
    run = tmp_path / "run"
    prepare(frozen, run, engine=None, reviewer_engine=None, model=None, exploratory=False)
    execute(run, limit_cells=2, log=lambda m: None)
    before = (run / "records.jsonl").read_bytes()
    frozen.write_text(PROTO + "\n[limits]\nmax_turns = 1\n")
    freeze(load_protocol(frozen))
    with pytest.raises(InputError) as exc:
        execute(run, log=lambda m: None)
    assert exc.value.field == "digest"
    assert "changed since this pre-registered run started" in str(exc.value)
    assert (run / "records.jsonl").read_bytes() == before
    assert json.loads((run / "run.json").read_text())["preregistered"] is True
