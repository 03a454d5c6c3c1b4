"""Issue 25 through the real SDKs against the loopback provider: no finished cell is dropped at a
credentials stop; whole-reply deadlines; every billed reply is charged."""
from __future__ import annotations

import json
import threading

from engines.loopback import Loopback, decode_openai
from engines.test_cli_runs import harness, write_proto


def _task_of(body) -> str:
    msgs, _, _ = decode_openai(body)
    first = next(m.content for m in msgs if m.role == "user")
    return "median" if "median" in first.lower() else "other"


def test_a_cell_in_flight_at_a_401_stop_is_recorded_not_dropped(tmp_path, tasks):
    """Two cells in flight: one is refused (401) while the other has its reply and is running its
    tests. The run stops dispatching, and the cell that finishes after the stop is recorded (it was
    dropped, and billed again on resume); resume runs only the refused cell."""
    proto = write_proto(tmp_path, "openai", arms=("A1",))
    proto.write_text(proto.read_text().replace('tasks = ["median"]', 'tasks = ["median", "parse-range"]'))
    out = tmp_path / "run"
    refused = threading.Event()

    with Loopback("openai", tasks) as lb:
        def route(body):
            if _task_of(body) == "median":
                refused.wait(60)  # the median cell gets its reply only after the other cell was refused
                return None
            refused.set()
            return "401"
        lb.route = route
        p = harness(str(proto), "--out", str(out), "--model", "gpt-x", "--exploratory", "--workers", "2",
                    env_extra={"OPENAI_BASE_URL": lb.url})
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("STOPPED:") == 1 and "Traceback" not in p.stderr
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert [r["task"] for r in recs] == ["median"]  # finished after the stop, and kept
    with Loopback("openai", tasks) as lb:
        p = harness("--resume", str(out), env_extra={"OPENAI_BASE_URL": lb.url})
        asked = [_task_of(r["body"]) for r in lb.requests]
    assert p.returncode == 0, p.stderr
    assert "median" not in asked  # the recorded cell is not run (nor billed) again
    recs = [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines()]
    assert sorted(r["task"] for r in recs) == ["median", "parse-range"]
