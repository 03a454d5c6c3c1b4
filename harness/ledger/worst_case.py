"""The most a protocol can spend, in closed form from the protocol alone (``harness plan P --worst-case``).

Bounded Loops (seed 001, Corollary 5.1: everything above the controller is declared and readable
before the run) asks that the worst case be computable before anything runs. For one execution of
one cell of an arm, with T = max turns per attempt, M = the per-call max_tokens clamp
(``[limits] max_tokens``), M_r = the reviewer's max_tokens (harness.control.reviewer), C = the most
input tokens one call can bill (``[limits] context_tokens``: the model's context window; the
provider refuses a longer request without billing it, so nothing larger is ever paid for):

    worker attempts  W:  A1 = 1,  A2 = A2p = R (retries),  A3 = R + 1 (the advisory revision),
                         A4 = N (attempts)
    reviewer calls   V:  A1 = A2 = A2p = 0,  A3 = 1,  A4 = 2N (each attempt can reach one review,
                         asked twice when the first reply does not parse)
                         (W and V are what each arm registers as ``max_attempts`` and ``max_reviews``,
                         see ``Count``; a plug-in arm that declares neither is reported unbounded)
    engine calls        = W*T + V                       (run_attempt makes at most T calls)
    output tokens    O  = W*T*M + V*M_r
    input tokens     I  = (W*T + V) * C
    with a token budget B and no reviewer (A2p, or A2 declaring token_budget; harness.control.budget
    charges input + output, clamps each worker call's output to what is left and makes no call
    once it is spent; a reviewer call is not clamped, so a reviewed arm gets no cap):
                     O <= B,  I + O <= B + C   (the last call may bill its input past B)
    where I counts uncached input, as the budget and the records do; USD still prices W*T*C of
    input, since cache reads and writes are billed but not charged to the budget.

A cell is executed at most E = 1 + max_reruns times (``[rerun]``; a void is rerun), and twice
over in a scenario that kills the host (B5: the killed host's calls, then a full restart), so
per cell: calls x E x h, tokens likewise. USD prices the worker's and the reviewer's model from
``[pricing]`` (harness.core.pricing): input at the highest of its input, cache_read and cache_write
prices (a provider may bill any input token as a cache write), output at the output price. Terms the protocol leaves open are reported as unbounded
with the reason, never guessed: no context_tokens (input, and so USD, unbounded), no model named
for a live engine, no price for a model, an arm without a declared bound. An engine registered
without ``live`` (simulated, replay) calls no provider: USD 0.

Not in the bound (printed as notes): a dead worker process re-queues its cells (up to
``MAX_REQUEUES`` times per dispatch); a cell cut off by a stop (refused credentials, the
ceiling) restarts on ``--resume``; a request retried after an infrastructure fault
(harness.engines.retry): unbilled for a connection or status fault, billed for a malformed reply (spend.py
charges it against the ceiling). A run-wide ``[budget]`` ceiling caps all of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from harness.core.arm_params import Count, Unbounded  # what arms declare for their bound (re-exported)
from harness.core.pricing import FREE, price_for, price_tokens
from harness.core.protocol import DEFAULT_LIMITS, LimitsTable
from harness.core.registry import ARMS, is_free
from harness.core.roles import Role, Roles, RunEngines, resolve_roles

# Two bounds this module prices, defined here (below their users, the reviewer and the executors)
# so the worst case needs nothing above the ledger layer.
REVIEW_MAX_TOKENS = 2048  # output clamp of one review call (harness.control.reviewer.review)
MAX_REQUEUES = 3  # a cell whose worker died is re-queued at most this many times per dispatch (harness.run.executors)


BOUND_FLAGS = ("max_attempts", "max_reviews")


def declared_calls(arm) -> tuple[int, int]:
    """(W, V) of one execution of a cell of ``arm``, from its controller's registered ``max_attempts``
    and ``max_reviews`` (see ``Count``). Raises Unbounded, naming the arm, when either is missing."""
    part = ARMS.get(arm.controller)
    missing = [f for f in BOUND_FLAGS if not isinstance(part.flag(f, None), Count)]
    if missing:
        raise Unbounded(f"arm {arm.name}: controller {arm.controller!r} ({part.origin}) declares no "
                        f"{' or '.join(missing)}, so its calls have no bound (register it with "
                        "max_attempts=Count(...), max_reviews=Count(...))")
    return part.flags["max_attempts"].of(arm), part.flags["max_reviews"].of(arm)


@dataclass(frozen=True)
class CellShape:
    """One cell's worst-case parameters: W and V (``declared_calls``) and the protocol's limits."""
    worker_attempts: int = 1
    reviewer_calls: int = 0
    max_turns: int = DEFAULT_LIMITS.max_turns
    max_tokens: int = DEFAULT_LIMITS.max_tokens
    token_budget: int | None = None
    reviewer_max_tokens: int = REVIEW_MAX_TOKENS


@dataclass
class Spend:
    """Worst-case calls, tokens and USD. None means unbounded (the reason is in ``unbounded``)."""
    calls: int | None = 0
    worker_calls: int | None = 0
    reviewer_calls: int | None = 0
    tokens_in: int | None = 0
    tokens_out: int | None = 0
    usd: float | None = 0.0
    unbounded: list[str] = field(default_factory=list)

    @classmethod
    def without_bound(cls, reason: str) -> Spend:
        """Every term unbounded, for ``reason``."""
        return cls(None, None, None, None, None, None, [reason])

    def add(self, other: Spend) -> None:
        self.calls = _plus(self.calls, other.calls)
        self.worker_calls = _plus(self.worker_calls, other.worker_calls)
        self.reviewer_calls = _plus(self.reviewer_calls, other.reviewer_calls)
        self.tokens_out = _plus(self.tokens_out, other.tokens_out)
        self.tokens_in = _plus(self.tokens_in, other.tokens_in)
        self.usd = _plus(self.usd, other.usd)
        self.unbounded.extend(u for u in other.unbounded if u not in self.unbounded)


def _plus(a, b):
    """a + b, None (unbounded) when either is."""
    return None if a is None or b is None else a + b


def cell_spend(s: CellShape, context_tokens: int | None, worker_price: dict | None, reviewer_price: dict | None,
               executions: int = 1) -> Spend:
    """Worst-case spend of one cell executed ``executions`` times (prices None: USD unbounded;
    the caller says why). Prices are [pricing] entries (USD per million tokens)."""
    wc, rc = s.worker_attempts * s.max_turns, s.reviewer_calls
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


def _usd(tokens_in: int, tokens_out: int, entry: dict) -> float:
    """Worst-case USD of these tokens: input at the dearest input rate (harness.core.pricing.price_tokens)."""
    return price_tokens(entry, output_tokens=tokens_out, unknown_input_tokens=tokens_in)


def protocol_worst_case(proto, model: str | None = None, engine: str | None = None,
                        reviewer_engine: str | None = None) -> dict[str, Spend]:
    """Worst-case spend per arm (the module docstring's formula over every cell of the protocol). An
    arm whose calls cannot be bounded (``declared_calls``) is unbounded in every term, with the reason."""
    from harness.core.matrix import enumerate_cells
    from harness.core.scenarios import load_scenarios
    scen = load_scenarios(proto.tasks_dir)
    run = RunEngines.choose(proto.engine, engine, reviewer_engine, model)
    executions = 1 + proto.rerun.max_reruns
    shapes: dict[str, CellShape | str] = {}
    for arm in proto.arms:
        try:
            shapes[arm.name] = shape_of(arm, proto.limits)
        except Unbounded as exc:
            shapes[arm.name] = str(exc)
    out: dict[str, Spend] = {a.name: Spend() for a in proto.arms}
    for cell in enumerate_cells(proto):
        shape = shapes[cell.arm]
        if isinstance(shape, str):
            out[cell.arm].add(Spend.without_bound(shape))
            continue
        host_kill = any(e.get("action") == "kill_host" for e in scen.get(cell.scenario, {}).get("at_turn", []))
        roles = resolve_roles(proto.arm(cell.arm), run, dict(cell.factors))
        out[cell.arm].add(_priced_cell(proto, shape, roles, executions * (2 if host_kill else 1)))
    return out


def _priced_cell(proto, shape: CellShape, roles: Roles, executions: int) -> Spend:
    """One cell's bound, priced per role (harness.core.roles.resolve_roles: the engines and models the
    run calls); every term left open is named in ``unbounded``."""
    context = proto.limits.context_tokens
    reasons = []
    if context is None:
        reasons.append("input tokens: no [limits] context_tokens (the most input one call can bill)")
    w_price = _price(proto.pricing, roles.worker.engine, roles.worker.model, Role.WORKER, reasons)
    r_price = (_price(proto.pricing, roles.reviewer.engine, roles.reviewer.model, Role.REVIEWER, reasons)
               if shape.reviewer_calls else None)
    sp = cell_spend(shape, context, w_price, r_price, executions)
    if w_price is FREE and (not shape.reviewer_calls or r_price is FREE):
        sp.usd = 0.0  # no provider is called: nothing is billed, whatever the tokens
    elif reasons:
        sp.usd = None
    sp.unbounded = reasons
    return sp


def _price(pricing: dict, engine: str, model: str | None, role: Role, reasons: list[str]) -> dict | None:
    """The role's [pricing] entry; FREE for an engine registered without ``live`` (no provider)."""
    if is_free(engine):
        return FREE
    if not model:
        reasons.append(f"USD: the {role.value} engine {engine!r} has no model named (pass --model)")
        return None
    hit = price_for(pricing or {}, model)
    if hit is None:
        reasons.append(f"USD: no [pricing] entry for the {role.value} model {model!r}")
        return None
    return hit[1]


def shape_of(arm, limits: LimitsTable) -> CellShape:
    """The arm's CellShape: its declared W and V, turns, the max_tokens clamp and any token budget
    (an arm registered ``budgeted`` carries its default budget; any arm may set ``token_budget``)."""
    w, v = declared_calls(arm)
    budgeted = ARMS.get(arm.controller).flag("budgeted") or "token_budget" in arm.params
    return CellShape(worker_attempts=w, reviewer_calls=v,
                     max_turns=arm.get("max_turns") or limits.max_turns, max_tokens=limits.max_tokens,
                     token_budget=arm.get("token_budget") if budgeted else None)


def render(per_arm: dict[str, Spend], cells: dict[str, int]) -> str:
    """The worst-case table: per arm and total, with every unbounded term named."""
    total = Spend()
    lines = [("WORST CASE (closed form, harness.ledger.worst_case; method: every call bills its full input "
              "(context_tokens) and output (max_tokens), every attempt fails so every retry and review round "
              "happens, every cell is rerun max_reruns times)"),
             f"{'arm':<8}{'cells':>7}{'calls':>10}{'tokens_in':>14}{'tokens_out':>14}{'USD':>14}"]
    for arm, sp in per_arm.items():
        total.add(sp)
        lines.append(_row(arm, cells.get(arm, 0), sp))
    lines.append(_row("total", sum(cells.values()), total))
    for reason in total.unbounded:
        lines.append(f"unbounded: {reason}")
    lines.append("not included: re-queues after a dead worker process (each repeats a cell's spend, at most "
                 f"{MAX_REQUEUES} per dispatch), a cell restarted by --resume after a stop, and requests retried after an "
                 "infrastructure fault (a connection or status fault is unbilled, but a malformed reply re-asked was billed and is "
                 "not in this bound); a [budget] ceiling caps every term and charges each such reply its booking")
    return "\n".join(lines)


def _row(name: str, cells: int, sp: Spend) -> str:
    calls, tin, tout = (_count(v) for v in (sp.calls, sp.tokens_in, sp.tokens_out))
    usd = "unbounded" if sp.usd is None else f"{sp.usd:,.4f}"
    return f"{name:<8}{cells:>7}{calls:>10}{tin:>14}{tout:>14}{usd:>14}"


def _count(value: int | None) -> str:
    return "unbounded" if value is None else f"{value:,}"
