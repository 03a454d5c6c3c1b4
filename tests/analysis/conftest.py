"""Helpers: build small records files in the interchange format."""
from __future__ import annotations

import json

import pytest

FLAGS = {"completed": (True, True, True), "recovered": (True, True, True),
         "amplified": (True, False, True), "safe_stop": (False, False, False),
         "false_stop": (False, True, False), "acceptance_fail": (False, False, True),
         "unsafe": (True, True, True), "void": (None, None, None)}


def rec(arm, task, scenario, repeat, outcome, **extra):
    vis, hid, ship = FLAGS[outcome]
    r = {"arm": arm, "task": task, "scenario": scenario, "repeat": repeat, "outcome": outcome,
         "visible_pass": vis, "hidden_pass": hid, "shipped": ship, "tokens_in": 100, "tokens_out": 10,
         "wall_s": 1.5}
    r.update(extra)
    return r


def write_jsonl(path, records):
    with open(path, "w") as fh:
        for r in records:
            fh.write((r if isinstance(r, str) else json.dumps(r)) + "\n")
    return path


@pytest.fixture
def small_records(tmp_path):
    """Two tasks x (null, B1, B2) x 3 repeats for A4 and A2p, with a few failures."""
    recs = []
    for arm in ("A4", "A2p", "A3"):
        for t in ("t1", "t2"):
            for sc in ("null", "B1", "B2"):
                for r in (1, 2, 3):
                    o = "completed" if sc == "null" else "recovered"
                    if arm == "A2p" and t == "t1" and sc == "B1" and r <= 2:
                        o = "amplified"
                    if arm == "A2p" and t == "t2" and sc == "null" and r == 1:
                        o = "false_stop"
                    if arm == "A3" and t == "t2" and sc == "B2" and r == 3:
                        o = "safe_stop"
                    recs.append(rec(arm, t, sc, r, o, cost_usd=0.01))
    return write_jsonl(tmp_path / "small.jsonl", recs)
