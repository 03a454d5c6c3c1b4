"""harness/loop/loop_runs.py: starting a loop's worker engine, which has no task."""
import json

import pytest

from harness.loop.loop_runs import start_engine


def test_a_loop_worker_engine_starts_without_a_task(tmp_path):
    # A loop's worker gets no task (the loop's prompt is its own). EngineContext used to narrow
    # task=None as if it were a Task, so every engine failed to start with an AttributeError.
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps([{"role": "worker", "reply": {"text": "done"}}]))
    engine = start_engine("replay", None, {"transcript": str(transcript)}, seed=1)
    assert engine.name == "replay"


def test_the_simulated_engine_refuses_to_start_without_a_task():
    with pytest.raises(ValueError, match="simulated engine needs a task"):
        start_engine("simulated", None, {}, seed=1)
