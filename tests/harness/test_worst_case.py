"""`harness plan --worst-case`: the closed-form bound (harness/worst_case.py) is an upper bound on
what a run records, and is met exactly by an engine that spends the maximum at every step."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import engines
from harness.cli import main
from harness.driver import execute, prepare
from harness.engine import EngineReply, EngineRequest, ToolCall, Usage
from harness.protocol import load_protocol
from harness.registry import ENGINES
from harness.tasks import load_tasks, read_tree
from harness.worst_case import (
    CellShape,
    attempts_and_reviews,
    cell_spend,
    protocol_worst_case,
    render,
)
from support.scripted import BLOCK, TASKS

CONTEXT, MAX_TOKENS, TURNS = 1000, 100, 2
PRICE = {"date": "2025-10-01", "input": 1.0, "output": 2.0}

PROTO = f"""
[protocol]
name = "worst-case"
seed = 1
repeats = 1
tasks_dir = "{TASKS}"
tasks = ["median"]
scenarios = ["null"]
engine = "maxspend"

[arms.A1]
controller = "A1"
[arms.A2]
controller = "A2"
retries = 2
[arms.A2p]
controller = "A2p"
retries = 2
token_budget = 1000000
[arms.A2p_bind]
controller = "A2p"
retries = 2
token_budget = 1150
[arms.A3]
controller = "A3"
retries = 2
[arms.A4]
controller = "A4"
attempts = 2
review_rounds = 2

[limits]
max_turns = {TURNS}
max_tokens = {MAX_TOKENS}
context_tokens = {CONTEXT}

[rerun]
max_reruns = 0

[pricing."maxspend-1"]
date = "2025-10-01"
input = 1.0
output = 2.0
"""

# the attempt on whose last turn the worker writes the reference (visible then passes): A3 must
# pass to reach its review and revision; A4 passes every attempt so every review round happens
PASS_FROM = {"A3": 2, "A4": 1}


class MaxSpender:
    """Bills the full context as input and the full clamp as output on every call. The worker keeps
    calling a tool until its turns run out (so every attempt uses max_turns calls) and fails the
    visible test, except where PASS_FROM says otherwise; the reviewer blocks (A4: after a reply that
    does not parse, so each review is asked twice)."""

    name = "maxspend"

    def __init__(self, ctx):
        self.role, self.arm = ctx.role, ctx.options["cell_key"].split("|")[0]
        # a plug-in engine sees only the task's narrow view (harness/task_view.py), so the scripted
        # max-spender reads the reference from the task directory itself
        self.reference = read_tree(load_tasks(Path(TASKS), [ctx.task.id])[ctx.task.id].reference)
        self.reviews = 0

    def complete(self, req: EngineRequest) -> EngineReply:
        usage = Usage(CONTEXT, req.max_tokens)
        if self.role == "reviewer":
            self.reviews += 1
            text = "not json" if self.arm == "A4" and self.reviews % 2 else BLOCK
            return EngineReply(text, [], usage, "max_tokens", "maxspend-1")
        users = [i for i, m in enumerate(req.messages) if m.role == "user"]
        turn = sum(1 for m in req.messages[users[-1]:] if m.role == "assistant")
        attempt = len(users)
        calls = [ToolCall(f"c{attempt}-{turn}", "list_files", {})]
        if turn == TURNS - 1 and attempt >= PASS_FROM.get(self.arm, 10 ** 6):
            calls = [ToolCall(f"w{attempt}-{p}", "write_file", {"path": p, "content": t})
                     for p, t in self.reference.items()]
        return EngineReply("", calls, usage, "max_tokens", "maxspend-1")


@pytest.fixture
def maxspend():
    engines.register("maxspend")(MaxSpender)
    yield
    ENGINES._parts.pop("maxspend", None)


def test_hand_worked_bound_for_each_controller():
    # A4, N = 3 attempts, T = 4 turns, M = 100, C = 1000, reviewer clamp 2048, priced 1 / 2 USD per Mtok
    s = CellShape("A4", attempts=3, max_turns=4, max_tokens=100)
    assert attempts_and_reviews(s) == (3, 6)
    sp = cell_spend(s, 1000, PRICE, PRICE, executions=3)  # max_reruns = 2
    assert sp.calls == (3 * 4 + 6) * 3 == 54
    assert sp.tokens_in == 18 * 1000 * 3
    assert sp.tokens_out == (12 * 100 + 6 * 2048) * 3
    assert sp.usd == pytest.approx((54_000 * 1.0 + (1200 + 12288) * 3 * 2.0) / 1e6)
    assert attempts_and_reviews(CellShape("A1")) == (1, 0)
    assert attempts_and_reviews(CellShape("A2", retries=3)) == (3, 0)
    assert attempts_and_reviews(CellShape("A3", retries=3)) == (4, 1)
    # a token budget caps output at B and (uncached) input at B + C; USD still prices 12 calls of C
    # input, since cached input is billed but not charged to the budget
    b = cell_spend(CellShape("A2p", retries=3, max_turns=4, max_tokens=100, token_budget=1150), 1000, PRICE, None)
    assert (b.tokens_in, b.tokens_out) == (2150, 1150)
    assert b.usd == pytest.approx((12 * 1000 * 1.0 + 1150 * 2.0) / 1e6)
    # no context window declared: input (and so USD) is unbounded, never guessed
    u = cell_spend(CellShape("A1"), None, PRICE, None)
    assert u.tokens_in is None and u.usd is None


def test_unbounded_terms_are_named(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace(f"context_tokens = {CONTEXT}", "").replace('engine = "maxspend"', 'engine = "openai"')
                 .replace("A2p_bind]", "A2p_bind]\nmodel = \"gpt-unpriced\""))
    wc = protocol_worst_case(load_protocol(p), model="maxspend-1")
    assert wc["A1"].tokens_in is None and wc["A1"].usd is None
    text = render(wc, {a: 1 for a in wc})
    assert "unbounded: input tokens: no [limits] context_tokens" in text
    assert "unbounded: USD: no [pricing] entry for the worker model 'gpt-unpriced'" in text
    sim = protocol_worst_case(load_protocol(p), engine="simulated")
    assert all(s.usd == 0.0 for s in sim.values())  # no provider: nothing billed


def test_plan_worst_case_cli_prints_the_table(tmp_path):
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace('engine = "maxspend"', 'engine = "simulated"'))
    out = CliRunner().invoke(main, ["plan", str(p), "--worst-case"])
    assert out.exit_code == 0, out.output
    assert "WORST CASE" in out.output and "total" in out.output
    table = out.output.split("WORST CASE", 1)[1]
    a1 = next(line for line in table.splitlines() if line.startswith("A1 "))
    assert a1.split()[1:] == ["1", "2", "2,000", "200", "0.0000"]


def test_observed_spend_never_exceeds_the_bound_and_meets_it_for_a_max_spender(tmp_path, maxspend):
    p = tmp_path / "p.toml"
    p.write_text(PROTO)
    run = tmp_path / "run"
    prepare(p, run, engine=None, reviewer_engine=None, model="maxspend-1", exploratory=True)
    res = execute(run, log=lambda m: None)  # the verdict cache reuses identical trees
    bound = protocol_worst_case(load_protocol(p), model="maxspend-1")
    by_arm = {r["arm"]: r for r in res.records}
    assert set(by_arm) == set(bound) and all(r["outcome"] != "void" for r in res.records)
    for arm, r in by_arm.items():
        b = bound[arm]
        assert r["engine_calls"] <= b.calls and r["tokens_in"] <= b.tokens_in and r["tokens_out"] <= b.tokens_out
        assert r["cost_usd"] <= b.usd + 1e-12, arm
        if arm != "A2p_bind":  # every step spent its maximum: the bound is met exactly
            assert (r["engine_calls"], r["tokens_in"], r["tokens_out"]) == (b.calls, b.tokens_in, b.tokens_out), arm
            assert r["cost_usd"] == pytest.approx(b.usd), arm
    # A2p with a binding budget B = 1150: the second call is clamped to the 50 tokens left and the
    # budget then stops the arm, so input + output meets B + C exactly; the per-column bounds and the
    # call count are looser because the closed form does not know which column the budget went to
    r, b = by_arm["A2p_bind"], bound["A2p_bind"]
    assert r["tokens_in"] + r["tokens_out"] == 1150 + CONTEXT
    assert (r["engine_calls"], b.calls) == (2, 4)
    assert r["stop_reason"] == "budget:tokens"
