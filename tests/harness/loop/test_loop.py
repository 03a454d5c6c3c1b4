"""One bounded loop (harness.loop.loop): the verdict routes, the worker writes only its artifact,
the ledger holds one row per attempt and DONE needs an accepting verdict row."""
from __future__ import annotations

import json

import pytest

from corpus.catalogue import CATALOGUE_DIR, load_catalogue, load_loop
from corpus.gates import load_gate
from harness.core.engine import EngineReply, ToolCall, Usage
from harness.ledger.ledger import Ledger, inspect
from harness.loop.loop import DONE, HALT, LoopBudget, LoopSpec, audit_done, authorize_write, run_loop, spent_attempts
from harness.loop.loop_runs import MemoJudge, loop_spec, run_simulated
from harness.loop.loop_workers import ClaimingWorker, ScriptedWorker, write_scripted_gate

TARGET = "status.json"


@pytest.fixture
def scripted(tmp_path):
    gate = load_gate(write_scripted_gate(tmp_path / "gate"))
    return LoopSpec("n", 'The artifact is the JSON string "ACCEPT".', TARGET, gate), Ledger(tmp_path / "ledger.jsonl")


def test_accept_routes_to_done_after_k_attempts_with_one_verdict_row_each(scripted):
    spec, ledger = scripted
    res = run_loop(spec, ScriptedWorker(TARGET, productive=3, accepts=True), LoopBudget(10, 3), ledger, run_id="r")
    assert (res.state, res.spent, res.attempts_to_done) == (DONE, 4, 4)
    rows = [r for r in ledger.records if r["kind"] == "attempt"]
    assert [r["verdict"] for r in rows] == ["reject"] * 3 + ["accept"]
    assert all(r["spent"] is True for r in rows)
    end = ledger.records[-1]
    assert end["kind"] == "terminal" and end["spent"] is False and end["verdict_seq"] == rows[-1]["seq"]
    assert audit_done(ledger.records) == [] and inspect(ledger.path).problems == []


def test_reject_retries_with_the_gates_message(scripted):
    spec, ledger = scripted
    seen = []

    class Recording(ScriptedWorker):
        def complete(self, request):
            seen.append(request.messages[0].content)
            return super().complete(request)

    run_loop(spec, Recording(TARGET, productive=1, accepts=True), LoopBudget(5), ledger, run_id="r")
    assert "rejected" not in seen[0]
    assert "The gate rejected the previous attempt" in seen[1] and "'draft 1' does not match" in seen[1]


@pytest.mark.parametrize("productive,expected", [(0, 3), (1, 4), (2, 5), (4, 7)])
def test_soft_bound_halts_after_k_plus_s_before_the_ceiling(scripted, productive, expected):
    spec, ledger = scripted
    budget = LoopBudget(10, 3)
    res = run_loop(spec, ScriptedWorker(TARGET, productive, accepts=False), budget, ledger, run_id="r")
    assert (res.state, res.ending, res.spent) == (HALT, "no-progress", expected)
    assert budget.predicted(productive, accepts=False) == (expected, "no-progress")
    assert spent_attempts(ledger.records, "r") == expected


def test_ceiling_halts_without_borrowing_an_extra_attempt(scripted):
    spec, ledger = scripted
    res = run_loop(spec, ScriptedWorker(TARGET, productive=20, accepts=True), LoopBudget(6), ledger, run_id="r")
    assert (res.state, res.ending, res.spent) == (HALT, "ceiling", 6)
    # the terminal row is the 7th row but is not a spent attempt: utilisation from receipts = 6/6
    assert len(ledger.records) == 7 and spent_attempts(ledger.records, "r") == 6


def test_incapacity_halts_at_once_with_the_reason(tmp_path):
    (tmp_path / "g.toml").write_text('[gate]\nname = "broken"\nkind = "command"\n'
                                     'argv = ["/nonexistent/checker", "{artifact}"]\n')
    spec = LoopSpec("n", "anything", TARGET, load_gate(tmp_path / "g.toml"))
    ledger = Ledger(tmp_path / "ledger.jsonl")
    res = run_loop(spec, ScriptedWorker(TARGET, 0, True), LoopBudget(10, 3), ledger, run_id="r")
    assert (res.state, res.ending, res.spent) == (HALT, "incapacity", 1)
    assert "missing executable" in res.reason


def test_a_worker_that_always_claims_done_against_a_refusing_gate_halts_and_never_writes_the_gate(scripted):
    """Fig. 3's adversarial test: the claim reaches no guard, and the gate write is refused, not discouraged."""
    spec, ledger = scripted
    before = spec.gate.path.read_bytes()
    res = run_loop(spec, ClaimingWorker(TARGET, str(spec.gate.path)), LoopBudget(5), ledger, run_id="adv")
    assert res.state == HALT and res.ending == "ceiling"
    assert spec.gate.path.read_bytes() == before
    rows = [r for r in ledger.records if r["kind"] == "attempt"]
    assert len(rows) == 5 and {r["verdict"] for r in rows} == {"reject"}
    for r in rows:
        assert "DONE" in r["worker_claim"] and "claim_done" in r["worker_claim"]
        assert r["refused"][0]["path"] == str(spec.gate.path) and "gate" in r["refused"][0]["why"]
    assert not any(r.get("state") == DONE for r in ledger.records)


def test_a_forged_done_row_is_caught_by_the_audit(scripted):
    spec, ledger = scripted
    run_loop(spec, ScriptedWorker(TARGET, 0, False), LoopBudget(2), ledger, run_id="r")
    ledger.append({"run_id": "r", "node": "n", "pass": 1, "kind": "terminal", "state": DONE, "cell_key": "x",
                   "verdict_seq": 0, "verdict_hash": ledger.records[0]["hash"]})  # seq 0 was a reject
    assert audit_done(ledger.records) == [f"seq {ledger.records[-1]['seq']}: node 'n' is DONE without an accepting "
                                          "verdict row"]


def test_write_set_is_exactly_the_artifact(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    anchors = [tmp_path / "gate" / "gate.toml", ws / "reference.json"]
    assert authorize_write("status.json", TARGET, ws, anchors) is None
    assert authorize_write("./status.json", TARGET, ws, anchors) is None
    assert "anchor" in authorize_write(str(anchors[0]), TARGET, ws, anchors)
    assert "anchor" in authorize_write("reference.json", TARGET, ws, anchors)
    assert "anchor" in authorize_write("other.txt", TARGET, ws, anchors)  # a workspace file that is not the artifact
    assert "outside" in authorize_write("../status.json", TARGET, ws, anchors)
    assert "outside" in authorize_write("/etc/passwd", TARGET, ws, anchors)
    assert authorize_write(None, TARGET, ws, anchors) == "no path given"


def test_a_target_that_leaves_the_workspace_is_never_writable(tmp_path):
    """Even when a loop declares such a target, the controller's write set stays inside the
    workspace: the worker writes only there (Definition 3.6), never beside the gate."""
    ws = tmp_path / "ws"
    ws.mkdir()
    anchors = [tmp_path / "gate" / "gate.toml"]
    assert "outside" in authorize_write("../escape.json", "../escape.json", ws, anchors)
    assert "outside" in authorize_write("../gate/helper.py", "../gate/helper.py", ws, anchors)
    assert "outside" in authorize_write(str(tmp_path / "x.json"), str(tmp_path / "x.json"), ws, anchors)


def test_an_unknown_tool_and_malformed_arguments_are_refused_and_logged(scripted):
    spec, ledger = scripted

    class Odd:
        def complete(self, request):
            return EngineReply("", [ToolCall("1", "bash", {"command": "rm -rf /"}), ToolCall("2", "write_file", "oops"),
                                    ToolCall("3", "write_file", {"path": TARGET, "content": json.dumps("ACCEPT")})],
                               Usage(), "tool_use", "odd")

    res = run_loop(spec, Odd(), LoopBudget(2), ledger, run_id="r")
    assert res.state == DONE
    refused = ledger.records[0]["refused"]
    assert [r["why"] for r in refused] == ["unknown tool", "arguments are not a JSON object"]


def test_planted_vacuous_gate_reaches_false_done_and_its_repaired_twin_does_not(tmp_path):
    """The corpus tied to the loop: drafts from the conforming artifact and its tier-1 mutants."""
    loop = load_loop(CATALOGUE_DIR / "runbook-complete")
    ledger = Ledger(tmp_path / "ledger.jsonl")
    out = {s.status: s for s in run_simulated(loop, loop.gates(), ledger, LoopBudget(10, 3), runs=20, seed=1,
                                              tiers=(1,))}
    assert out["planted"].false_done > 0 and out["planted"].planted == "hollowing"
    assert out["repaired"].false_done == 0 and out["repaired"].done == 20
    assert audit_done(ledger.records) == []
    # each false DONE is traceable: the run, the destroying draft, the artifact digest in the ledger
    false = [d for d in out["planted"].detail if d["ending"] == DONE and d["label"] == "destroying"]
    assert len(false) == out["planted"].false_done
    digests = {(r["run_id"], r["artifact_digest"]) for r in ledger.records if r.get("verdict") == "accept"}
    assert all((d["run_id"], d["artifact_digest"]) in digests for d in false)
    # the rate carries its numerator, denominator and method
    assert out["planted"].rate.fmt().startswith(f"{out['planted'].false_done}/{out['planted'].done} ")


def test_every_corpus_loop_can_be_run_by_the_simulated_worker(tmp_path):
    """One attempt per loop (first gate, first tier-1 draft): every loop yields a verdict row."""
    ledger = Ledger(tmp_path / "ledger.jsonl")
    memo = MemoJudge()
    from harness.loop.loop_workers import CorpusWorker, corpus_pool
    loops = load_catalogue()
    for loop in loops:
        gate = loop.gates()[0]
        pool = corpus_pool(loop, 1)[:1]  # the conforming draft: a gate that can judge accepts it
        res = run_loop(loop_spec(loop, gate), CorpusWorker(pool, loop.target, "s"), LoopBudget(1), ledger,
                       run_id=loop.id, judge_fn=memo)
        assert res.spent == 1 and res.attempts[0].verdict in ("accept", "incapacity"), (loop.id, res.reason)
        assert res.state == DONE or res.ending == "incapacity"
    assert len({r["run_id"] for r in ledger.records}) == len(loops) == 27


def test_a_gate_changed_during_the_loop_halts_it_and_never_reaches_done(scripted):
    """A pytest or command gate executes the artifact, and the artifact's code can rewrite the gate's
    own files (its tests, its schema) with the harness's rights; the write-set check never sees
    that write. The controller re-reads the gate's digest after every verdict: once it differs
    from the one the loop started with, the loop halts (incapacity) and no later verdict of the
    altered gate can route it to DONE."""
    from corpus.gates import judge
    spec, ledger = scripted

    def executing_judge(gate, ws, target):  # what artifact code run by the gate can do
        if "TAMPER" in (ws / target).read_text():
            (gate.dir / "schema.json").write_text("{}")  # the schema now accepts anything
        return judge(gate, ws, target)

    class Tamperer:
        def __init__(self):
            self.drafts = [json.dumps("TAMPER"), json.dumps("garbage")]

        def complete(self, request):
            return EngineReply("", [ToolCall("w", "write_file", {"path": TARGET, "content": self.drafts.pop(0)})],
                               Usage(), "tool_use", "tamperer")

    res = run_loop(spec, Tamperer(), LoopBudget(5), ledger, run_id="r", judge_fn=executing_judge)
    assert res.state == HALT and res.ending == "incapacity" and "gate changed" in res.reason
    assert res.spent == 1 and audit_done(ledger.records) == []
    assert not any(r.get("state") == DONE for r in ledger.records)


def test_loop_run_on_a_directory_without_loops_is_bad_input(tmp_path):
    """A directory that is neither a loop nor a catalogue (corpus/catalogue/_gatelib, a typo'd path)
    is refused with exit 2, not run as zero loops with an empty table and exit 0."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    (tmp_path / "notaloop").mkdir()
    res = CliRunner().invoke(main, ["loop", "run", str(tmp_path / "notaloop"), "--engine", "simulated",
                                    "--out", str(tmp_path / "out")])
    assert res.exit_code == 2 and "no corpus loop here" in res.output


def test_the_soft_bound_sees_a_repeated_pytest_reject_despite_its_timing_line(tmp_path):
    """A pytest gate's reject ends with '1 failed in 0.19s' (and names its temporary copy), so two
    judgements of the same broken artifact never read alike; the no-progress bound must compare
    the rejects without those, or it never fires on a pytest-gated loop and the worker runs to the
    hard ceiling."""
    loop = load_loop(CATALOGUE_DIR / "tax-calc-module")
    gate = next(g for g in loop.gates() if g.kind == "pytest")
    broken = "def vat_amount(net, rate):\n    return 0\n\n\ndef gross(net, rate):\n    return net\n"

    class Same:
        def complete(self, request):
            return EngineReply("", [ToolCall("w", "write_file", {"path": loop.target, "content": broken})],
                               Usage(), "tool_use", "same")

    res = run_loop(loop_spec(loop, gate), Same(), LoopBudget(4, 2), Ledger(tmp_path / "l.jsonl"), run_id="r")
    assert (res.state, res.ending, res.spent) == (HALT, "no-progress", 2)
