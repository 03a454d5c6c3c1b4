"""`harness loop run` through the real anthropic and openai SDKs against a 127.0.0.1 loopback
server: a reject is retried with the gate's message, the gate write is refused, and two models
print Table 8's layout with the paper's caution."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from corpus.catalogue import CATALOGUE_DIR
from harness.cli.cli import main
from harness.core.engine import EngineReply, ToolCall, Usage
from harness.ledger.ledger import inspect
from harness.loop.loop import audit_done
from support.loopback import Loopback, decode_anthropic, decode_openai, encode_anthropic, encode_openai

LOOP = CATALOGUE_DIR / "runbook-complete"
CONFORMING = (LOOP / "artifact" / "runbook.md").read_text()
GATE = str(LOOP / "gates" / "gate.toml")


class LoopModel(Loopback):
    """First attempt: the headings with nothing under them (and a try at the gate); after the
    gate's reject message: the conforming runbook."""

    def answer(self, body: dict) -> dict:
        msgs, _system, _tools = (decode_anthropic if self.flavor == "anthropic" else decode_openai)(body)
        prompt = msgs[0].content
        if "The gate rejected the previous attempt" in prompt:
            calls = [ToolCall("w2", "write_file", {"path": "runbook.md", "content": CONFORMING})]
        else:
            hollow = "\n".join(line for line in CONFORMING.splitlines() if line.startswith("#"))
            calls = [ToolCall("g1", "write_file", {"path": GATE, "content": "[gate]\n"}),
                     ToolCall("w1", "write_file", {"path": "runbook.md", "content": hollow})]
        reply = EngineReply("Done, every heading is there.", calls, Usage(input_tokens=120, output_tokens=40),
                            "tool_use", "x")
        return (encode_anthropic if self.flavor == "anthropic" else encode_openai)(reply, self.model_id)


@pytest.mark.parametrize("flavor", ["anthropic", "openai"])
def test_live_loop_retries_with_the_gate_message_and_prints_table_8(tmp_path, secret_env, flavor):
    before = open(GATE, "rb").read()
    with LoopModel(flavor, []) as lb:
        secret_env.setenv(f"{flavor.upper()}_BASE_URL", lb.url)
        out = tmp_path / "out"
        r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--engine", flavor, "--model", "model-a",
                                      "--model", "model-b", "--out", str(out)])
        assert r.exit_code == 0, r.output
        assert len(lb.requests) == 4  # two attempts per model, each one SDK request
        second = json.dumps(lb.requests[1]["body"])
        assert "The gate rejected the previous attempt" in second and "words under it" in second
    assert open(GATE, "rb").read() == before
    assert "| runbook-complete | command | A | done | 2 |" in r.output and "| B | done | 2 |" in r.output
    assert "do NOT identify a model" in r.output and "support no product comparison" in r.output
    recs = inspect(out / "ledger.jsonl").records
    attempts = [x for x in recs if x["kind"] == "attempt"]
    assert [x["verdict"] for x in attempts] == ["reject", "accept"] * 2
    assert all(x["model_id"] == lb.model_id for x in attempts) and attempts[0]["tokens_out"] == 40
    assert "gate" in attempts[0]["refused"][0]["why"]
    assert audit_done(recs) == []


def test_replay_engine_runs_a_loop_from_a_transcript(tmp_path):
    t = tmp_path / "t.json"
    t.write_text(json.dumps([{"role": "worker", "reply": {"text": "done", "tool_calls": [
        {"name": "write_file", "arguments": {"path": "runbook.md", "content": CONFORMING}}]}}]))
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--engine", "replay", "--transcript", str(t),
                                  "--out", str(tmp_path / "o")])
    assert r.exit_code == 0, r.output
    assert "| runbook-complete | command | A | done | 1 |" in r.output
    # a transcript that runs out is a halt with the reason, never a traceback
    t.write_text(json.dumps([{"role": "worker", "reply": {"text": "done", "tool_calls": []}}]))
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--engine", "replay", "--transcript", str(t),
                                  "--out", str(tmp_path / "o2")])
    assert r.exit_code == 0, r.output
    assert "| A | halt (engine fault) | n/a |" in r.output
    summary = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert "holds only 1 worker turn" in next(iter(summary["halts"].values()))


def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch):
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--engine", "replay", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "needs --transcript" in r.output
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--gate", "nope", "--out", str(tmp_path / "p")])
    assert r.exit_code == 2 and "no gate named 'nope'" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--model", "m", "--out", str(tmp_path / "q")])
    assert r.exit_code == 2 and "--model names a live model" in r.output
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    r = CliRunner().invoke(main, ["loop", "run", str(LOOP), "--engine", "openai", "--model", "m",
                                  "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "cannot start the engine" in r.output and "Traceback" not in r.output
