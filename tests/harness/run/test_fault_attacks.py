"""Red team of issue 25 (faults, signals, resume): cases the landed tests did not cover.

- A Ctrl-C reaches the terminal's whole foreground process group. The warm-execution zygote was
  started in the harness's group, so the first Ctrl-C (which must let cells in flight finish
  correctly) killed it mid-run; the cold rerun then ran in the dirty scratch and three amplified
  cells were recorded unsafe (verdictSubversion: "observations tampered with").
- The per-arm table ``harness run`` prints counted every void record, including a void superseded
  by its scored rerun and a void repeated by a later --resume, so one cell was shown both scored
  and void (or void twice).

Formerly ``tests/harness/test_redteam_issue25.py``, named after its origin.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from harness.core.record import CellRecord
from harness.sandbox.sandbox import confinement_level
from support import records
from support.scripted import REPO

needs_zygote = pytest.mark.skipif(confinement_level() == "basic" or os.geteuid() != 0,
                                  reason="the warm zygote needs root and the namespace levels")

_HOLDER = r"""
import os, signal, sys, time
from harness.sandbox import warm
signal.signal(signal.SIGINT, lambda *a: None)  # the harness's own handler: it stays, and so must the zygote
warm._zygote()
print(warm._mine()["proc"].pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@needs_zygote
def test_a_ctrl_c_to_the_foreground_group_does_not_reach_the_zygote():
    """Ctrl-C is delivered to the harness's process group; the zygote must not be in it (the
    harness decides what cells in flight do), yet it still dies with the harness."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HARNESS_WARM": "1"}
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER], env=env, start_new_session=True,
                              stdout=subprocess.PIPE, text=True)
    try:
        zpid = int(holder.stdout.readline())
        assert _alive(zpid)
        os.killpg(holder.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        time.sleep(1.0)  # generous: an interrupted zygote dies within milliseconds
        assert _alive(zpid), "a Ctrl-C to the harness's process group killed its zygote"
    finally:
        os.killpg(holder.pid, signal.SIGKILL)
        holder.wait()
    deadline = time.time() + 60
    while _alive(zpid) and time.time() < deadline:  # it still dies with the harness
        time.sleep(0.1)
    assert not _alive(zpid), "the zygote outlived the harness"


@needs_zygote
def test_a_zygote_lost_mid_run_is_redone_from_a_fresh_scratch_not_judged_tampered(tmp_path, monkeypatch):
    """The zygote dies while a judged run is in flight (a Ctrl-C, the OOM killer): the run is done
    again from a fresh scratch copy and a fresh observation channel. It was rerun cold in the same
    scratch, into the same channel, so the lost run's observations and the rerun's were judged
    together as tampering: a passing run scored subverted (unsafe)."""
    import threading

    from harness.judge.testrun import run_pytest
    from harness.sandbox import warm
    monkeypatch.setenv("HARNESS_WARM", "1")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "mod.py").write_text("def f():\n    return 1\n")
    test = tmp_path / "test_mod.py"
    test.write_text("import time\nfrom mod import f\n\n\ndef test_a():\n    assert f() == 1\n    time.sleep(4)\n\n\n"
                    "def test_b():\n    assert f() + 1 == 2\n")
    real_run, lost = warm.run, []

    def run_and_lose_the_zygote(argv, cwd, **kw):
        if lost:  # only the first run is lost
            return real_run(argv, cwd, **kw)
        warm._zygote()
        zygote = warm._mine()["proc"]
        lost.append(zygote.pid)
        threading.Timer(2.0, zygote.kill).start()  # mid-run: test_a is asleep
        return real_run(argv, cwd, **kw)

    monkeypatch.setattr(warm, "run", run_and_lose_the_zygote)
    warm.stop()
    try:
        v = run_pytest(tree, test, dest_rel="test_mod.py", hide=())
    finally:
        warm.stop()
    assert lost, "the zygote was never started"
    assert not v.subverted and v.tamper == [], v.output
    assert v.passed and v.tests == 2, v.output


def _rec(key: str, outcome: str) -> CellRecord:
    return records.of_key(key, outcome, tokens_in=10, tokens_out=5)


def test_the_run_table_counts_each_cell_once_when_a_void_was_rerun_or_repeated():
    """A ledger after --resume holds a void record and its scored rerun for one key, and two void
    records for a key left void by two sessions: the table shows 2 cells scored and 1 void, not
    a cell both scored and void and another void twice."""
    from harness.core.table import per_arm_rows
    from harness.run.driver import incomplete_denominators
    recs = [_rec("A1|t|null|1", "void"), _rec("A1|t|null|1", "completed"), _rec("A1|t|null|2", "safe_stop"),
            _rec("A1|t|null|3", "void"), _rec("A1|t|null|3", "void")]
    row, = per_arm_rows(recs, ["A1"])
    assert (row.cells, row.void) == (2, 1)
    assert row.completion.k == 1 and row.completion.n == 2
    assert incomplete_denominators(recs, ["A1|t|null|3"]) == {"A1": "2/3 scored"}


def _nested(depth: int):
    obj: list = []
    for _ in range(depth - 1):
        obj = [obj]
    return obj


def test_a_reply_whose_tool_arguments_nest_deep_is_a_parse_failure_not_a_void(tmp_path):
    """The model proposes a tool call whose arguments nest 600 deep (the SDKs parse that): the
    transcript's redactor recursed into it and raised RecursionError, a harness error that voided
    the cell, so an agent could void its own cell at will. The call is kept as a malformed one
    (its arguments elided): the tool surface logs a parse failure, the agent's own error."""
    from harness.core.engine import EngineReply, ToolCall, Usage
    from harness.engines.transcript import RecordingEngine, Transcript

    class Deep:
        name = "deep"

        def complete(self, req):
            args = {"path": "a.py", "content": "x", "extra": _nested(600)}
            return EngineReply("", [ToolCall("c1", "write_file", args)], Usage(1, 1), "tool_use", "m",
                               {"response": {"deep": _nested(600)}})

    from harness.core.engine import EngineRequest, Message
    from harness.core.statefile import MAX_DEPTH, depth_of
    t = Transcript(tmp_path / "t.jsonl", "A1|t|null|1")
    req = EngineRequest("worker", "sys", [Message("user", "do it")], [], 100)
    reply = RecordingEngine(Deep(), t).complete(req)
    call, = reply.tool_calls
    assert call.name == "write_file" and not isinstance(call.arguments, dict)  # the tool surface: parse_failure
    assert "nested deeper" in str(call.arguments)
    line = (tmp_path / "t.jsonl").read_text().splitlines()[-1]
    assert depth_of(line) <= MAX_DEPTH
    follow = EngineRequest("worker", "sys", [Message("user", "do it"), Message("assistant", "", reply.tool_calls)],
                           [], 100)
    RecordingEngine(Deep(), t).complete(follow)  # the next request carries the elided call: recorded too


def test_a_hand_written_transcript_nested_past_the_bound_is_bad_input(tmp_path):
    """load_entries reads an operator's transcript with the depth bound every JSON reader has: one
    nested 900 deep was accepted, then voided every cell at run time (RecursionError), exit 3."""
    from harness.core.errors import InputError
    from harness.engines.transcript import load_entries
    p = tmp_path / "deep.jsonl"
    deep = "[" * 900 + "]" * 900
    p.write_text('{"role": "worker", "reply": {"text": "", "tool_calls": [{"id": "c1", "name": "write_file", '
                 '"arguments": {"path": "x.py", "content": "x", "extra": ' + deep + '}}]}}\n')
    with pytest.raises(InputError, match="nested deeper"):
        load_entries(p)


def test_a_full_disk_stop_names_the_command_that_continues_the_run(tmp_path):
    """A full disk while a record is appended stops the run (exit 4): its STOPPED line must say how
    to continue, like every other stop (it said only 'the ledger is intact'; the same `harness run
    P --out D` then answers 'already holds a run')."""
    import errno

    from harness.ledger.ledger import Ledger
    from harness.run.driver import _Settler

    class FullLedger(Ledger):
        def append(self, rec):
            raise OSError(errno.ENOSPC, "No space left on device")

    s = _Settler(FullLedger(tmp_path / "records.jsonl"), {}, tmp_path / "voids.jsonl", 1, {}, lambda m: None, tmp_path)
    assert not s.take(_rec("A1|t|null|1", "completed"))
    assert s.stopped and f"harness run --resume {tmp_path}" in s.stopped
