"""Issue 25, "no finished cell is dropped, at any stop kind": the credentials are revoked (the
provider refuses every request from then on, with a 401 or a 403) while a cell is at each stage it can
be at, through both SDKs against the loopback provider.

Two cells (tasks ``median`` and ``parse-range``, one arm, two workers). The staged cell (``median``)
is held at its stage by a hook: a loopback route for the stages that wait on the provider, and, for
the two that do not (adjudicating, writing its record), a ``sitecustomize`` that holds
``harness.run.cellrun._adjudicate_cell`` / ``_record`` on a file handshake. docs/reference/exit-codes.md's rule (exit
table, "the provider refused the credentials"): dispatch stops, cells in flight that finish are
recorded, the refused cell is unrun (not void, not scored), ``--resume`` continues. So:

- a stage that needs another call (awaiting the first worker reply, between two worker turns,
  awaiting a reviewer reply, an A2 rerun attempt): the other cell finished first and is recorded;
  the staged cell is refused and unrun;
- a stage that needs no call (adjudicating, writing its record): the other cell is refused (unrun)
  while the staged cell is held; the staged cell finishes after the stop and is recorded.

Every case: exit 4, one STOPPED line, no traceback; the finished cell recorded once and never asked
again on ``--resume``; resume completes with one record per cell key and ``ledger verify`` clean;
spend.json equals the provider's bill (every billed reply charged once, refusals never).

Formerly ``tests/engines/test_revoked_stages_issue25.py``, named after its origin."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from support.loopback import REPO, SNAPSHOT, Loopback, decode_anthropic, decode_openai
from tests.harness.engines.test_cli_runs import harness
from tests.harness.engines.test_provider_faults import PRICE, _provider_usd

STAGED, OTHER = "median", "parse-range"

#  stage -> (arm, who is refused and unrun, whether the staged cell is held inside the harness)
STAGES = {
    "first_worker_reply": ("A1", STAGED, False),
    "between_worker_turns": ("A1", STAGED, False),
    "awaiting_reviewer": ("A3", STAGED, False),
    "a2_rerun_attempt": ("A2", STAGED, False),
    "adjudicating": ("A1", OTHER, True),
    "writing_record": ("A1", OTHER, True),
}

HOOK = '''
import os, time
_stage, _dir = os.environ.get("K27_HELD_STAGE"), os.environ.get("K27_HELD_DIR")
if _stage and _dir:
    try:
        import harness.run.cellrun as _cr
    except ImportError:  # a process that is not the harness (e.g. a sandboxed test run)
        _cr = None
    if _cr is not None:
        _name = {"adjudicating": "_adjudicate_cell", "writing_record": "_record"}[_stage]
        _orig = getattr(_cr, _name)

        def _held(spec, *args, **kw):
            if spec.cell.task == "median":
                open(os.path.join(_dir, "at_stage"), "w").close()
                go = os.path.join(_dir, "go")
                deadline = time.monotonic() + 120
                while not os.path.exists(go) and time.monotonic() < deadline:
                    time.sleep(0.02)
            return _orig(spec, *args, **kw)
        setattr(_cr, _name, _held)
'''


def _decode(flavor: str, body: dict):
    return (decode_anthropic if flavor == "anthropic" else decode_openai)(body)


def _task_of(flavor: str, body: dict) -> str:
    msgs, _, _ = _decode(flavor, body)
    first = next(m.content for m in msgs if m.role == "user")
    return STAGED if "median" in first.lower() else OTHER


def _wait_for(cond, what: str, timeout: float = 120.0) -> None:
    """Wait for a condition the run reaches (a file the harness or the hook writes), never a guess."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"never reached: {what}")
        time.sleep(0.02)


def _finish_only(flavor: str, reply: dict) -> dict:
    """The worker's reply replaced by a bare finish: attempt 1 ships the untouched (failing) tree."""
    if flavor == "anthropic":
        reply["content"] = [{"type": "tool_use", "id": "toolu_fin", "name": "finish", "input": {"claim": "done"}}]
        reply["stop_reason"] = "tool_use"
    else:
        msg = reply["choices"][0]["message"]
        msg["content"] = None
        msg["tool_calls"] = [{"id": "call_fin", "type": "function",
                              "function": {"name": "finish", "arguments": json.dumps({"claim": "done"})}}]
        reply["choices"][0]["finish_reason"] = "tool_calls"
    return reply


class _Revoker:
    """The loopback's route: holds the staged cell at its stage, revokes the credentials there, and
    refuses every request from then on (with ``status``: 401 or 403)."""

    def __init__(self, flavor: str, stage: str, status: str, out: Path, hold_dir: Path):
        self.flavor, self.stage, self.status, self.out, self.hold_dir = flavor, stage, status, out, hold_dir
        self.lock = threading.Lock()
        self.revoked = threading.Event()
        self.refusals: list[tuple[str, str]] = []  # (task, status)
        self.staged_worker_calls = 0
        self.reached = False

    def _refuse(self, task: str) -> str:
        with self.lock:
            self.refusals.append((task, self.status))
        return self.status

    def _other_recorded(self) -> bool:
        f = self.out / "records.jsonl"
        return f.exists() and any(json.loads(x)["task"] == OTHER for x in f.read_text().splitlines() if x.strip())

    def _at_stage(self, body: dict) -> bool:
        msgs, _, tools = _decode(self.flavor, body)
        if not tools:
            return self.stage == "awaiting_reviewer"
        with self.lock:
            self.staged_worker_calls += 1
            n = self.staged_worker_calls
        users = sum(1 for m in msgs if m.role == "user")
        return {"first_worker_reply": n == 1, "between_worker_turns": n == 2,
                "a2_rerun_attempt": users >= 2}.get(self.stage, False)

    def route(self, body: dict):
        task = _task_of(self.flavor, body)
        if self.revoked.is_set():
            return self._refuse(task)
        held = STAGES[self.stage][2]
        if task == OTHER:
            if not held:
                return None  # runs to its record before the staged cell's credentials are revoked
            _wait_for(lambda: (self.hold_dir / "at_stage").exists(), f"{STAGED} held at {self.stage}")
            self.revoked.set()
            status = self._refuse(task)
            return lambda handler, b: self._refuse_then_release(handler, status)
        if held or not self._at_stage(body):
            if self.stage == "a2_rerun_attempt":
                return lambda handler, b: self._serve(handler, _finish_only(self.flavor, handler.lb.answer(b)))
            return None
        self.reached = True
        _wait_for(self._other_recorded, f"{OTHER} recorded")
        self.revoked.set()
        return self._refuse(task)

    def _serve(self, handler, reply: dict) -> None:
        handler.lb.bill(reply, "whole")
        handler._send(200, json.dumps(reply).encode())

    def _refuse_then_release(self, handler, status: str) -> None:
        """Send the refusal, then let the held cell go on: it finishes after the stop."""
        kind = "authentication_error" if status == "401" else "permission_error"
        err = ({"type": "error", "error": {"type": kind, "message": "invalid x-api-key"}} if self.flavor == "anthropic"
               else {"error": {"message": "invalid x-api-key", "type": kind, "code": None, "param": None}})
        handler._send(int(status), json.dumps(err).encode())
        (self.hold_dir / "go").touch()


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "records.jsonl").read_text().splitlines() if x.strip()]


def _protocol(write_protocol, flavor: str, arm: str) -> Path:
    proto = write_protocol(flavor, arms=f'[arms.{arm}]\ncontroller = "{arm}"\n', tasks=(STAGED, OTHER),
                           scenarios=("null",), max_retries=1, max_reruns=0)
    proto.write_text(proto.read_text() + "\n[budget]\nmax_usd = 100.0\n")
    return proto


# every stage through both SDKs; each SDK meets a 401 at half the stages and a 403 at the others
CASES = [(stage, flavor, ("401", "403")[(i + j) % 2])
         for i, stage in enumerate(STAGES) for j, flavor in enumerate(("anthropic", "openai"))]


@pytest.mark.parametrize(("stage", "flavor", "status"), CASES)
def test_revoked_credentials_at_every_stage_drop_no_finished_cell(tmp_path, tasks, write_protocol, stage, flavor,
                                                                  status):
    arm, refused_task, held = STAGES[stage]
    finished_task = OTHER if refused_task == STAGED else STAGED
    proto, out, hold_dir = _protocol(write_protocol, flavor, arm), tmp_path / "run", tmp_path / "hold"
    hold_dir.mkdir()
    (hold_dir / "sitecustomize.py").write_text(HOOK)
    key = {"ANTHROPIC_API_KEY" if flavor == "anthropic" else "OPENAI_API_KEY": "k"}
    hook = {"PYTHONPATH": os.pathsep.join(filter(None, [str(hold_dir), os.environ.get("PYTHONPATH")])),
            "K27_HELD_STAGE": stage, "K27_HELD_DIR": str(hold_dir)} if held else {}
    rev = _Revoker(flavor, stage, status, out, hold_dir)
    with Loopback(flavor, tasks) as lb:
        lb.route = rev.route
        url = {f"{flavor.upper()}_BASE_URL": lb.url, **key}
        p = harness(str(proto), "--out", str(out), "--model", SNAPSHOT[flavor], "--exploratory", "--workers", "2",
                    env_extra={**url, **hook})
        billed = list(lb.billed)
    assert rev.revoked.is_set() and (held or rev.reached), f"the run never reached {stage}: {p.stderr[-2000:]}"
    assert p.returncode == 4, p.stderr
    assert p.stderr.count("STOPPED:") == 1 and "Traceback" not in p.stderr, p.stderr
    assert {s for _, s in rev.refusals} == {status} and {t for t, _ in rev.refusals} == {refused_task}
    first = _records(out)
    assert [r["task"] for r in first] == [finished_task]  # finished (before or after the stop), kept once
    assert first[0]["outcome"] != "void" and not first[0].get("stop_run")
    assert [json.loads(x)["kind"] for x in (out / "stops.jsonl").read_text().splitlines()] == ["authentication"]
    voids = (out / "voids.jsonl").read_text() if (out / "voids.jsonl").exists() else ""
    assert refused_task not in voids  # the refused cell is unrun, never void

    with Loopback(flavor, tasks) as lb:
        p2 = harness("--resume", str(out), env_extra={f"{flavor.upper()}_BASE_URL": lb.url, **key})
        asked = {_task_of(flavor, r["body"]) for r in lb.requests}
        billed += list(lb.billed)
    assert p2.returncode == 0, p2.stderr
    assert asked == {refused_task}  # the recorded cell is not asked (nor billed) again
    recs = _records(out)
    assert sorted(r["task"] for r in recs) == sorted([STAGED, OTHER])
    assert len({r["cell_key"] for r in recs}) == len(recs) == 2
    verify = subprocess.run([sys.executable, "-m", "harness.cli.cli", "ledger", "verify", str(out)], cwd=REPO,
                            capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    state = json.loads((out / "spend.json").read_text())
    bill = sum(_provider_usd(flavor, b["usage"], PRICE) for b in billed)
    assert all(b["delivered"] == "whole" for b in billed) and state["unseen_billed"] == 0
    assert state["spent_usd"] == pytest.approx(bill, abs=1e-9)  # each billed reply charged once, refusals never
