"""`harness plan --worst-case`: the closed-form bound (harness.ledger.worst_case) is an upper bound on
what a run records, and is met exactly by an engine that spends the maximum at every step."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness import engines
from harness.cli.cli import main
from harness.control.arms import ArmParams
from harness.core.engine import EngineReply, EngineRequest, ToolCall, Usage
from harness.core.protocol import Arm, load_protocol
from harness.core.registry import ARMS, ENGINES
from harness.core.tasks import load_tasks, read_tree
from harness.ledger.worst_case import (
    CellShape,
    Count,
    cell_spend,
    declared_calls,
    protocol_worst_case,
    render,
)
from harness.run.driver import execute, prepare
from support.records import as_json
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
        # a plug-in engine sees only the task's narrow view (harness.core.task_view), so the scripted
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
    engines.register("maxspend", live=True)(MaxSpender)  # stands in for a provider: its calls are priced
    yield
    ENGINES._parts.pop("maxspend", None)


def test_hand_worked_bound_for_each_controller():
    # A4, N = 3 attempts, T = 4 turns, M = 100, C = 1000, reviewer clamp 2048, priced 1 / 2 USD per Mtok
    assert declared_calls(Arm("x", "A4", {"attempts": 3})) == (3, 6)
    s = CellShape(worker_attempts=3, reviewer_calls=6, max_turns=4, max_tokens=100)
    sp = cell_spend(s, 1000, PRICE, PRICE, executions=3)  # max_reruns = 2
    assert sp.calls == (3 * 4 + 6) * 3 == 54
    assert sp.tokens_in == 18 * 1000 * 3
    assert sp.tokens_out == (12 * 100 + 6 * 2048) * 3
    assert sp.usd == pytest.approx((54_000 * 1.0 + (1200 + 12288) * 3 * 2.0) / 1e6)
    assert declared_calls(Arm("x", "A1", {})) == (1, 0)
    assert declared_calls(Arm("x", "A2", {"retries": 3})) == (3, 0)
    assert declared_calls(Arm("x", "A3", {"retries": 3})) == (4, 1)
    assert declared_calls(Arm("x", "A2p", {})) == (3, 0)  # the registered default, retries = 3
    # a token budget caps output at B and (uncached) input at B + C; USD still prices 12 calls of C
    # input, since cached input is billed but not charged to the budget
    b = cell_spend(CellShape(worker_attempts=3, max_turns=4, max_tokens=100, token_budget=1150), 1000, PRICE, None)
    assert (b.tokens_in, b.tokens_out) == (2150, 1150)
    assert b.usd == pytest.approx((12 * 1000 * 1.0 + 1150 * 2.0) / 1e6)
    # no context window declared: input (and so USD) is unbounded, never guessed
    u = cell_spend(CellShape(), None, PRICE, None)
    assert u.tokens_in is None and u.usd is None


def test_count_reads_the_arms_parameter():
    assert str(Count(1, "retries")) == "retries+1" and str(Count(param="attempts", times=2)) == "2*attempts"
    assert Count(param="attempts", times=2).of(Arm("x", "A4", {"attempts": 5})) == 10
    assert Count(7).of(Arm("x", "A1", {})) == 7


@pytest.fixture
def plugin_arms():
    """CONTRIBUTING's example arm (A1-twice: `tries` prompt-only attempts, no review), registered
    in-process with the bound it declares, and the same controller registered with no bound."""
    @dataclass(frozen=True)
    class TwiceParams(ArmParams):
        tries: int = 2

    def run_twice(ctx, arm):
        raise AssertionError("never run: planning only")

    ARMS.add("A1-twice", run_twice, params=TwiceParams, max_attempts=Count(param="tries"), max_reviews=Count(0))
    ARMS.add("A1-undeclared", run_twice, params=TwiceParams)
    yield
    for name in ("A1-twice", "A1-undeclared"):
        ARMS._parts.pop(name, None)


def test_a_plug_in_arm_plans_with_worst_case_from_its_declared_bound(tmp_path, plugin_arms):
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace('engine = "maxspend"', 'engine = "simulated"')
                 + '\n[arms.X]\ncontroller = "A1-twice"\ntries = 3\n')
    out = CliRunner().invoke(main, ["plan", str(p), "--worst-case"])
    assert out.exit_code == 0, out.output
    x = next(line for line in out.output.split("WORST CASE", 1)[1].splitlines() if line.startswith("X "))
    # W = tries = 3, T = 2, M = 100, C = 1000, one execution: 6 calls, 6,000 in, 600 out, free engine
    assert x.split()[1:] == ["1", "6", "6,000", "600", "0.0000"]


def test_an_arm_without_a_declared_bound_is_unbounded_with_the_reason(tmp_path, plugin_arms):
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace('engine = "maxspend"', 'engine = "simulated"')
                 + '\n[arms.Y]\ncontroller = "A1-undeclared"\n')
    out = CliRunner().invoke(main, ["plan", str(p), "--worst-case"])
    assert out.exit_code == 0, out.output
    table = out.output.split("WORST CASE", 1)[1]
    y = next(line for line in table.splitlines() if line.startswith("Y "))
    assert y.split()[1:] == ["1"] + ["unbounded"] * 4
    assert next(line for line in table.splitlines() if line.startswith("total ")).split()[2:] == ["unbounded"] * 4
    assert ("unbounded: arm Y: controller 'A1-undeclared' (built-in) declares no max_attempts or max_reviews, "
            "so its calls have no bound") in table


def test_free_or_priced_follows_the_engines_live_flag(tmp_path, maxspend):
    p = tmp_path / "p.toml"
    p.write_text(PROTO)
    priced = protocol_worst_case(load_protocol(p), model="maxspend-1")
    assert all(s.usd and s.usd > 0 for s in priced.values())
    ENGINES.add("maxspend-free", MaxSpender)  # the same engine registered without live: no provider, no bill
    try:
        free = protocol_worst_case(load_protocol(p), engine="maxspend-free")
    finally:
        ENGINES._parts.pop("maxspend-free", None)
    assert all(s.usd == 0.0 and not s.unbounded for s in free.values())


def test_the_bound_prices_the_reviewer_the_run_calls(tmp_path, maxspend):
    """An arm that pins its worker to a free engine still has its reviewer on the run's engine (the
    cell runner binds it so, harness.core.roles.resolve_roles): the bound prices that reviewer, where
    it used to take the arm's free engine for both roles and bound the USD at 0."""
    p = tmp_path / "p.toml"
    p.write_text(PROTO.replace("[arms.A3]\n", '[arms.A3]\nengine = "simulated"\n'))
    wc = protocol_worst_case(load_protocol(p), model="maxspend-1")
    shape = CellShape(worker_attempts=3, reviewer_calls=1, max_turns=TURNS, max_tokens=MAX_TOKENS)
    review_usd = (CONTEXT * PRICE["input"] + shape.reviewer_max_tokens * PRICE["output"]) / 1e6  # one review, priced
    assert wc["A3"].usd == pytest.approx(review_usd) and not wc["A3"].unbounded


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
    by_arm = {r["arm"]: r for r in as_json(res.records)}
    assert set(by_arm) == set(bound) and all(r["outcome"] != "void" for r in as_json(res.records))
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
