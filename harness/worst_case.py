"""The most a protocol can spend, in closed form from the protocol alone (``harness plan P --worst-case``).

Bounded Loops (seed 001, Corollary 5.1: everything above the controller is declared and readable
before the run) asks that the worst case be computable before anything runs. For one execution of
one cell of an arm, with T = max turns per attempt, M = the per-call max_tokens clamp
(``[limits] max_tokens``), M_r = the reviewer's max_tokens (harness/reviewer.py), C = the most
input tokens one call can bill (``[limits] context_tokens``: the model's context window; the
provider refuses a longer request without billing it, so nothing larger is ever paid for):

    worker attempts  W:  A1 = 1,  A2 = A2p = R (retries),  A3 = R + 1 (the advisory revision),
                         A4 = N (attempts)
    reviewer calls   V:  A1 = A2 = A2p = 0,  A3 = 1,  A4 = 2N (each attempt can reach one review,
                         asked twice when the first reply does not parse)
    engine calls        = W*T + V                       (run_attempt makes at most T calls)
    output tokens    O  = W*T*M + V*M_r
    input tokens     I  = (W*T + V) * C
    with a token budget B and no reviewer (A2p, or A2 declaring token_budget; harness/budget.py
    charges input + output, clamps each worker call's output to what is left and makes no call
    once it is spent; a reviewer call is not clamped, so a reviewed arm gets no cap):
                     O <= B,  I + O <= B + C   (the last call may bill its input past B)
    where I counts uncached input, as the budget and the records do; USD still prices W*T*C of
    input, since cache reads and writes are billed but not charged to the budget.

A cell is executed at most E = 1 + max_reruns times (``[rerun]``; a void is rerun), and twice
over in a scenario that kills the host (B5: the killed host's calls, then a full restart), so
per cell: calls x E x h, tokens likewise. USD prices the worker's and the reviewer's model from
``[pricing]`` (harness/pricing.py): input at the highest of its input, cache_read and cache_write
prices (a provider may bill any input token as a cache write), output at the output price. Terms the protocol leaves open are reported as unbounded
with the reason, never guessed: no context_tokens (input, and so USD, unbounded), no model named
for a live engine, no price for a model. The simulated and replay engines call no provider: USD 0.

Not in the bound (printed as notes): a dead worker process re-queues its cells (up to
``executors.MAX_REQUEUES`` times per dispatch); a cell cut off by a stop (refused credentials, the
ceiling) restarts on ``--resume``; a request retried after an infrastructure fault
(harness/retry.py): unbilled for a connection or status fault, billed for a malformed reply (spend.py
charges it against the ceiling). A run-wide ``[budget]`` ceiling caps all of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.pricing import price_for
from harness.reviewer import REVIEW_MAX_TOKENS

FREE_ENGINES = ("simulated", "replay")


@dataclass(frozen=True)
class CellShape:
    """One cell's controller parameters, as the protocol declares them."""
    controller: str
    retries: int = 1
    attempts: int = 1
    max_turns: int = 12
    max_tokens: int = 4096
    token_budget: int | None = None
    reviewer_max_tokens: int = REVIEW_MAX_TOKENS


def attempts_and_reviews(s: CellShape) -> tuple[int, int]:
    """(W, V): worker attempts and reviewer calls of one execution of a cell (see the module docstring)."""
    return {"A1": (1, 0), "A2": (s.retries, 0), "A2p": (s.retries, 0), "A3": (s.retries + 1, 1),
            "A4": (s.attempts, 2 * s.attempts)}[s.controller]


@dataclass
class Spend:
    """Worst-case calls, tokens and USD. None means unbounded (the reason is in ``unbounded``)."""
    calls: int = 0
    worker_calls: int = 0
    reviewer_calls: int = 0
    tokens_in: int | None = 0
    tokens_out: int = 0
    usd: float | None = 0.0
    unbounded: list[str] = field(default_factory=list)

    def add(self, other: Spend) -> None:
        self.calls += other.calls
        self.worker_calls += other.worker_calls
        self.reviewer_calls += other.reviewer_calls
        self.tokens_out += other.tokens_out
        self.tokens_in = None if self.tokens_in is None or other.tokens_in is None else self.tokens_in + other.tokens_in
        self.usd = None if self.usd is None or other.usd is None else self.usd + other.usd
        self.unbounded.extend(u for u in other.unbounded if u not in self.unbounded)


def cell_spend(s: CellShape, context_tokens: int | None, worker_price: dict | None, reviewer_price: dict | None,
               executions: int = 1) -> Spend:
    """Worst-case spend of one cell executed ``executions`` times (prices None: USD unbounded;
    the caller says why). Prices are [pricing] entries (USD per million tokens)."""
    w, v = attempts_and_reviews(s)
    wc, rc = w * s.max_turns, v
    out_w, out_r = wc * s.max_tokens, rc * s.reviewer_max_tokens
    in_w = None if context_tokens is None else wc * context_tokens
    in_r = None if context_tokens is None else rc * context_tokens
    billed_in = in_w  # cached input is billed but not charged to a token budget: USD keeps W*T*C
    if s.token_budget is not None and rc == 0:  # a reviewer call is not clamped: no cap then
        out_w = min(out_w, s.token_budget)
        in_w = None if in_w is None or context_tokens is None else min(in_w, s.token_budget + context_tokens)
    usd = None
    if billed_in is not None and in_r is not None and worker_price is not None:  # known context size and price
        reviewer_usd = 0.0 if rc == 0 else None if reviewer_price is None else _usd(in_r, out_r, reviewer_price)
        if reviewer_usd is not None:
            usd = _usd(billed_in, out_w, worker_price) + reviewer_usd
    tokens_in = None if in_w is None else in_w + (in_r or 0)
    return Spend(calls=(wc + rc) * executions, worker_calls=wc * executions, reviewer_calls=rc * executions,
                 tokens_in=None if tokens_in is None else tokens_in * executions,
                 tokens_out=(out_w + out_r) * executions, usd=None if usd is None else usd * executions)


def input_rate(price: dict) -> float:
    """USD per million input tokens at the dearest way an input token can be billed."""
    return max(float(price.get(k, price["input"])) for k in ("input", "cache_read", "cache_write"))


def _usd(tokens_in: int, tokens_out: int, price: dict) -> float:
    return (tokens_in * input_rate(price) + tokens_out * float(price["output"])) / 1e6


def protocol_worst_case(proto, model: str | None = None, engine: str | None = None,
                        reviewer_engine: str | None = None) -> dict[str, Spend]:
    """Worst-case spend per arm (the module docstring's formula over every cell of the protocol)."""
    from harness.injections import load_scenarios
    from harness.matrix import enumerate_cells
    scen = load_scenarios(proto.tasks_dir)
    context = proto.limits.get("context_tokens")
    executions = 1 + int(proto.rerun.get("max_reruns", 2))
    out: dict[str, Spend] = {a.name: Spend() for a in proto.arms}
    for cell in enumerate_cells(proto):
        arm = proto.arm(cell.arm)
        shape = shape_of(arm, proto.limits)
        host_kill = any(e.get("action") == "kill_host" for e in scen.get(cell.scenario, {}).get("at_turn", []))
        w_engine = arm.get("engine") or engine or proto.engine
        r_engine = arm.get("reviewer_engine") or reviewer_engine or w_engine
        w_model = arm.get("model") or cell.factor("model") or model
        r_model = arm.get("reviewer_model") or w_model
        reasons = []
        if context is None:
            reasons.append("input tokens: no [limits] context_tokens (the most input one call can bill)")
        w_price = _price(proto.pricing, w_engine, w_model, "worker", reasons)
        _, v = attempts_and_reviews(shape)
        r_price = _price(proto.pricing, r_engine, r_model, "reviewer", reasons) if v else None
        sp = cell_spend(shape, context, w_price, r_price, executions * (2 if host_kill else 1))
        if w_price is FREE_PRICE and (not v or r_price is FREE_PRICE):
            sp.usd = 0.0  # no provider is called: nothing is billed, whatever the tokens
        elif reasons:
            sp.usd = None
        sp.unbounded = reasons
        out[arm.name].add(sp)
    return out


FREE_PRICE = {"input": 0.0, "output": 0.0, "date": "n/a"}


def _price(pricing: dict, engine: str, model: str | None, role: str, reasons: list[str]) -> dict | None:
    if engine in FREE_ENGINES:
        return FREE_PRICE
    if not model:
        reasons.append(f"USD: the {role} engine {engine!r} has no model named (pass --model)")
        return None
    hit = price_for(pricing or {}, model)
    if hit is None:
        reasons.append(f"USD: no [pricing] entry for the {role} model {model!r}")
        return None
    return hit[1]


def shape_of(arm, limits: dict) -> CellShape:
    budget = arm.get("token_budget") if arm.controller == "A2p" or "token_budget" in arm.params else None
    return CellShape(controller=arm.controller, retries=int(arm.get("retries") or 1),
                     attempts=int(arm.get("attempts") or 1),
                     max_turns=int(arm.get("max_turns") or limits.get("max_turns", 12)),
                     max_tokens=int(limits.get("max_tokens", 4096)), token_budget=budget)


def render(per_arm: dict[str, Spend], cells: dict[str, int]) -> str:
    """The worst-case table: per arm and total, with every unbounded term named."""
    total = Spend()
    lines = [("WORST CASE (closed form, harness/worst_case.py; method: every call bills its full input "
              "(context_tokens) and output (max_tokens), every attempt fails so every retry and review round "
              "happens, every cell is rerun max_reruns times)"),
             f"{'arm':<8}{'cells':>7}{'calls':>10}{'tokens_in':>14}{'tokens_out':>14}{'USD':>14}"]
    for arm, sp in per_arm.items():
        total.add(sp)
        lines.append(_row(arm, cells.get(arm, 0), sp))
    lines.append(_row("total", sum(cells.values()), total))
    for reason in total.unbounded:
        lines.append(f"unbounded: {reason}")
    from harness.executors import MAX_REQUEUES
    lines.append("not included: re-queues after a dead worker process (each repeats a cell's spend, at most "
                 f"{MAX_REQUEUES} per dispatch), a cell restarted by --resume after a stop, and requests retried after an "
                 "infrastructure fault (a connection or status fault is unbilled, but a malformed reply re-asked was billed and is "
                 "not in this bound); a [budget] ceiling caps every term and charges each such reply its booking")
    return "\n".join(lines)


def _row(name: str, cells: int, sp: Spend) -> str:
    tin = "unbounded" if sp.tokens_in is None else f"{sp.tokens_in:,}"
    usd = "unbounded" if sp.usd is None else f"{sp.usd:,.4f}"
    return f"{name:<8}{cells:>7}{sp.calls:>10,}{tin:>14}{sp.tokens_out:>14,}{usd:>14}"
