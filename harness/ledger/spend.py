"""The run-wide spend ceiling (``[budget] max_usd`` / ``max_tokens``), enforced inside every engine call.

Bounded Loops (seed 001, Fig. 5 and 6): the ceiling is enforced inside an attempt, not between
attempts; past it the run halts rather than borrowing; a gate is never cut short, and what it
costs past the ceiling is declared and published.

Design (one ledger for every worker, executor and node):

- ``SpendLedger`` keeps the run's spend in ``run_dir/spend.json``, changed only under an
  ``fcntl.flock`` on ``run_dir/spend.lock`` and replaced atomically (a kill never leaves half a
  state), with one line per engine call in ``run_dir/spend.jsonl``. Local pool workers share it
  through the file; on Ray a single actor pinned to the driver's node owns it
  (harness.run.executors), so nodes without the run directory share it too.
- Before a call, ``reserve`` books the most the call can cost: an upper bound on its input
  tokens (``input_upper_bound``: one token per UTF-8 byte of the request, which no byte-level
  tokenizer exceeds, plus framing) and its output clamped to what is left (``clamp``). A call
  that cannot get one output token is not made: the run halts (``CeilingReached``), the ledger
  row says ``spent: false`` (the attempt was not spent), and every later call is refused too.
- After the call, ``settle`` replaces the booking with what the provider reported (priced by
  harness.core.pricing). A reply without usage is charged its whole booking, and so is each send
  the live engine's retry layer made whose usage was never read (a malformed 200 reply it
  discarded, a request the deadline cancelled in flight): billed by the provider, never free. Reported spend above
  the booking (an input estimate that fell short) is counted and published as overrun.
- A reply cut in transit (a connection reset mid-body, the whole-reply deadline) is billed by the
  provider as the whole reply (the billing model docs/reference/spend.md states): when the reply's ``usage``
  object arrived before the cut, it is charged exactly that (``cut_billed``); otherwise its
  booking, an upper bound (``unseen_billed``), so spend.json equals the provider's bill except for
  the declared ``unseen_billed_usd``, which bounds the difference from above.
- Tests and gates cost no tokens and are never interrupted: a cell in flight at the halt runs
  its test to the end; the driver records how long past the halt such cells ran.
- The ceiling is frozen with the protocol; ``harness run --resume DIR --raise-budget-usd X``
  (or ``--raise-budget-tokens N``) raises it for that run, written to the ledger with the time,
  so the protocol's digest and lock stay as they were and every raise is on the record.
- Bookings left open by a killed process are counted as spent when the run resumes.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from harness.core import runio, statefile
from harness.core.engine import EngineFault, EngineReply, EngineRequest, Usage
from harness.core.errors import HarnessError, InputError
from harness.core.events import CeilingEvent
from harness.core.pricing import FREE, input_rate, price_for, price_tokens, rate, usage_cost
from harness.core.registry import is_free

FRAMING_TOKENS = 16  # per message and per tool: role markers and separators a provider adds
TOOL_PROMPT_TOKENS = 1024  # a provider's own tool-use system prompt (Anthropic documents a few hundred)


class CeilingReached(HarnessError):
    """The run's spend ceiling left no room for this engine call: the run halts (not a fault)."""


@dataclass(frozen=True)
class Ceiling:
    max_usd: float | None = None
    max_tokens: int | None = None

    @property
    def active(self) -> bool:
        return self.max_usd is not None or self.max_tokens is not None


def input_upper_bound(req: EngineRequest) -> int:
    """The most input tokens ``req`` can be billed: one per UTF-8 byte of everything sent (a byte-level
    BPE token covers at least one byte), plus framing per message and per tool, plus the provider's
    tool-use prompt. Reported input above it is published as overrun, never hidden."""
    parts = [req.system] + [m.content + "".join(json.dumps(c.arguments) + c.name for c in m.tool_calls)
                            for m in req.messages]
    parts += [json.dumps({"n": t.name, "d": t.description, "p": t.parameters}) for t in req.tools]
    return (sum(len(p.encode()) for p in parts) + FRAMING_TOKENS * (1 + len(req.messages) + len(req.tools))
            + (TOOL_PROMPT_TOKENS if req.tools else 0))


def clamp(want_out: int, est_in: int, price: dict | None, left_usd: float | None, left_tokens: int | None) -> int:
    """The largest max_tokens (<= want_out) whose worst case fits what is left; 0 means no call fits.
    Pure: the arithmetic of one booking."""
    out = want_out
    if left_tokens is not None:
        out = min(out, left_tokens - est_in)
    if left_usd is not None:
        if price is None:
            return 0  # a call nobody can price cannot be booked against a USD ceiling
        p_out = rate(price, "output") / 1e6
        room = left_usd - est_in * input_rate(price) / 1e6
        if p_out > 0:
            out = min(out, int(room / p_out + 1e-9))
        elif room < 0:
            out = 0
    return max(0, out)


def booking(est_in: int, out: int, entry: dict | None) -> tuple[float, int]:
    """(USD, tokens) booked for a call: its input bound at the dearest input rate and its output
    (harness.core.pricing.price_tokens); USD 0 for an unpriced model (only a token ceiling books one)."""
    if entry is None:
        return 0.0, est_in + out
    return price_tokens(entry, output_tokens=out, unknown_input_tokens=est_in), est_in + out


def usage_tokens(u: Usage) -> int:
    return u.input_tokens + u.cache_read_tokens + u.cache_write_tokens + u.output_tokens


EMPTY = {"spent_usd": 0.0, "spent_tokens": 0, "open": {}, "calls": 0, "refused": 0, "overrun_usd": 0.0,
         "overrun_tokens": 0, "orphaned_usd": 0.0, "orphaned_tokens": 0, "halted": None, "ceilings": [], "unpriced_calls": 0,
         "unseen_billed": 0, "unseen_billed_usd": 0.0, "unseen_billed_tokens": 0,
         "cut_billed": 0, "cut_billed_usd": 0.0, "cut_billed_tokens": 0}


class SpendLedger:
    """The run's spend, shared by every process through ``run_dir`` (see the module docstring)."""

    def __init__(self, run_dir: Path | str):
        self.run_dir = Path(run_dir)

    @property
    def path(self) -> Path:
        return self.run_dir / "spend.json"

    def read(self) -> dict:
        try:
            state = runio.read_json(self.path, "spend ledger", 64 << 20)  # a FIFO or a deep nest refused, never waited on
        except FileNotFoundError:
            return json.loads(json.dumps(EMPTY))
        except runio.UnsafeFile as exc:  # written atomically: only an outside edit gets here
            raise InputError(str(self.path), "<file>", f"not the run's spend ledger ({exc.message}); restore it") from None
        if not isinstance(state, dict):
            raise InputError(str(self.path), "<file>", "expected a JSON object (the run's spend ledger)")
        for key, default in EMPTY.items():  # a field of the wrong type: named now, not a traceback after a cell
            v = state.get(key, default)
            ok = {float: lambda x: isinstance(x, (int, float)) and not isinstance(x, bool),
                  int: lambda x: isinstance(x, int) and not isinstance(x, bool),
                  dict: lambda x: isinstance(x, dict), list: lambda x: isinstance(x, list)}.get(type(default))
            if ok is not None and not ok(v):
                want = {float: "a number", int: "an integer", dict: "an object", list: "a list"}[type(default)]
                raise InputError(str(self.path), key, f"expected {want}, got "
                                 f"{'null' if v is None else type(v).__name__}; restore the run's spend ledger")
        return {**EMPTY, **state}

    def _update(self, fn):
        fd = os.open(self.run_dir / "spend.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            state = self.read()
            out = fn(state)
            statefile.write_json(self.path, state)  # temp, fsync, rename, fsync the directory
            for r in out.pop("_rows", []):
                runio.append_line(self.run_dir / "spend.jsonl", json.dumps({**r, "when": time.time()}, sort_keys=True))
            return out
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    # -- the driver's side -------------------------------------------------------------------------
    def open_session(self, protocol_ceiling: Ceiling, raise_to: Ceiling | None = None) -> Ceiling:
        """Start (or resume) a session: the first one freezes the protocol's ceiling; a raise is appended
        with the time; bookings a killed process left open count as spent. Returns the ceiling in force."""
        def fn(s):
            rows = []
            if not s["ceilings"]:
                s["ceilings"].append({"max_usd": protocol_ceiling.max_usd, "max_tokens": protocol_ceiling.max_tokens,
                                      "source": "protocol [budget]", "when": time.time()})
            if raise_to is not None and raise_to.active:
                cur = s["ceilings"][-1]
                new = {"max_usd": raise_to.max_usd if raise_to.max_usd is not None else cur["max_usd"],
                       "max_tokens": raise_to.max_tokens if raise_to.max_tokens is not None else cur["max_tokens"],
                       "source": "harness run --resume --raise-budget-*", "when": time.time()}
                s["ceilings"].append(new)
                s["halted"] = None
                rows.append({"event": "ceiling_raised", **new})
            for ticket, b in list(s["open"].items()):
                s["spent_usd"] += b["usd"]
                s["spent_tokens"] += b["tokens"]
                s["orphaned_usd"] += b["usd"]
                s["orphaned_tokens"] += b["tokens"]
                rows.append({"event": "orphaned_booking", "ticket": ticket, **b})
            s["open"] = {}
            return {"_rows": rows}
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self._update(fn)
        return self.ceiling()

    def ceiling(self) -> Ceiling:
        c = (self.read()["ceilings"] or [{}])[-1]
        return Ceiling(c.get("max_usd"), c.get("max_tokens"))

    def note_gate_overrun(self, after_halt_s: list[float]) -> None:
        """Publish the cells that finished after the halt (their gates ran to the end, no engine call)."""
        def fn(s):
            g = s.get("gate_overrun") or {"cells": 0, "after_halt_s": 0.0}
            s["gate_overrun"] = {"cells": g["cells"] + len(after_halt_s),
                                 "after_halt_s": max([g["after_halt_s"], *after_halt_s])}
            return {"_rows": [{"event": "gate_overrun", "after_halt_s": after_halt_s}]}
        self._update(fn)

    # -- every engine call -------------------------------------------------------------------------
    def reserve(self, cell_key: str, role: str, est_in: int, want_out: int, price: dict | None) -> tuple[str, int]:
        """Book the call's worst case and return (ticket, max_tokens to send); raise CeilingReached
        (after writing a ``spent: false`` row) when it does not fit or the run has halted."""
        got = self.book(cell_key, role, est_in, want_out, price)
        if got.get("refused"):
            raise CeilingReached(f"the run's spend ceiling leaves no room for another {role} call "
                                 f"(cell {cell_key}; see spend.json)")
        return got["ticket"], got["max_tokens"]

    def book(self, cell_key: str, role: str, est_in: int, want_out: int, price: dict | None) -> dict:
        """reserve's ledger step, returning {"ticket", "max_tokens"} or {"refused": True}."""
        def fn(s):
            c = s["ceilings"][-1] if s["ceilings"] else {}
            booked_usd = s["spent_usd"] + sum(b["usd"] for b in s["open"].values())
            booked_tok = s["spent_tokens"] + sum(b["tokens"] for b in s["open"].values())
            left_usd = None if c.get("max_usd") is None else c["max_usd"] - booked_usd
            left_tok = None if c.get("max_tokens") is None else c["max_tokens"] - booked_tok
            out = 0 if s["halted"] else clamp(want_out, est_in, price, left_usd, left_tok)
            if out < 1:
                s["refused"] += 1
                s["halted"] = s["halted"] or {"when": time.time(), "cell_key": cell_key,
                                              "spent_usd": s["spent_usd"], "spent_tokens": s["spent_tokens"]}
                return {"_rows": [{"event": "call", "cell_key": cell_key, "role": role, "spent": False,
                                   "reason": "ceiling", "est_input_tokens": est_in, "left_usd": left_usd,
                                   "left_tokens": left_tok}], "refused": True}
            ticket = uuid.uuid4().hex[:12]
            usd, tok = booking(est_in, out, price)
            s["open"][ticket] = {"usd": usd, "tokens": tok, "cell_key": cell_key}
            s["unpriced_calls"] += price is None
            return {"ticket": ticket, "max_tokens": out}
        return self._update(fn)

    def settle(self, ticket: str, cell_key: str, role: str, reply: EngineReply | None, price: dict | None,
               max_tokens: int, wanted: int, unseen: int = 0, cut: list[Usage] | None = None) -> None:
        """Replace a booking with what the provider reported (None: the call failed, assumed unbilled),
        plus the booking once for each of ``unseen`` sends that may have been billed but whose usage
        was never read (``unseen_billed``), plus the reported usage of each reply in ``cut`` (cut in
        transit after its usage arrived: ``cut_billed``)."""
        cuts = [(0.0 if price is None else usage_cost(u, price), usage_tokens(u)) for u in cut or []]
        if reply is None:
            self.record(ticket, cell_key, role, None, None, None, max_tokens, wanted, unseen, cuts)
        elif reply.usage.missing:
            self.record(ticket, cell_key, role, None, None, reply.model_id or "unknown", max_tokens, wanted, unseen,
                        cuts)
        else:
            usd = 0.0 if price is None else usage_cost(reply.usage, price)  # unpriced: tokens only
            self.record(ticket, cell_key, role, usd, usage_tokens(reply.usage),
                        reply.model_id or "unknown", max_tokens, wanted, unseen, cuts)

    def record(self, ticket: str, cell_key: str, role: str, reported_usd: float | None, reported_tok: int | None,
               model_id: str | None, max_tokens: int, wanted: int, unseen: int = 0,
               cuts: list | None = None) -> None:
        """settle's ledger step: usd/tok None with a model id means 'no usage reported' (charge the
        booking); with no model id, the call failed (nothing billed but the ``unseen`` sends and the
        ``cuts``, (USD, tokens) of each reply cut after its usage arrived)."""
        def fn(s):
            b = s["open"].pop(ticket, {"usd": 0.0, "tokens": 0})
            reply = model_id is not None or reported_usd is not None
            if not reply:
                usd, tok = 0.0, 0
            elif reported_usd is None:
                usd, tok = b["usd"], b["tokens"]
            else:
                usd, tok = reported_usd, reported_tok
            usd, tok = usd + unseen * b["usd"], tok + unseen * b["tokens"]
            for cut_usd, cut_tok in cuts or []:  # charged as the provider reported, like a whole reply
                usd, tok = usd + cut_usd, tok + cut_tok
                s["cut_billed"] += 1
                s["cut_billed_usd"] += cut_usd
                s["cut_billed_tokens"] += cut_tok
            s["unseen_billed"] += unseen  # declared in the spend line: charged at the booking, usage never read
            s["unseen_billed_usd"] += unseen * b["usd"]
            s["unseen_billed_tokens"] += unseen * b["tokens"]
            s["spent_usd"] += usd
            s["spent_tokens"] += tok
            s["calls"] += reply
            s["overrun_usd"] += max(0.0, usd - b["usd"])  # every send of the call past its one booking
            s["overrun_tokens"] += max(0, tok - b["tokens"])
            return {"_rows": [{"event": "call", "cell_key": cell_key, "role": role, "spent": reply,
                               "usd": round(usd, 9), "tokens": tok, "booked_usd": round(b["usd"], 9),
                               "booked_tokens": b["tokens"], "max_tokens": max_tokens, "clamped": max_tokens < wanted,
                               "model_id": model_id, "unseen_billed": unseen, "cut_billed": len(cuts or [])}]}
        self._update(fn)


class RemoteLedger(SpendLedger):
    """The ledger seen from a Ray worker: its two steps run in one actor (a SpendLedger on the
    driver's node, harness.run.executors), so every node books against the same spend."""

    def __init__(self, actor, run_dir):
        self.actor = actor
        self.run_dir = Path(run_dir)  # the driver reads the state from here; workers only book and record

    def book(self, *args) -> dict:
        import ray
        return ray.get(self.actor.book.remote(*args))

    def record(self, *args) -> None:
        import ray
        ray.get(self.actor.record.remote(*args))


def call_price(pricing: dict, engine: str, model: str | None) -> dict | None:
    """The [pricing] entry a call is booked at: free for an engine registered without ``live`` (it
    calls no provider); None if unpriced."""
    if is_free(engine):
        return FREE
    hit = price_for(pricing or {}, model) if model else None
    return hit[1] if hit else None


class CeilingEngine:
    """Wraps a cell's engine: every call is booked against the run's ledger, clamped to what is
    left, and refused (CeilingReached) when nothing is. ``log`` gets a ``ceiling`` event for a
    refused call and a clamped one."""

    def __init__(self, inner, ledger, cell_key: str, role: str, price: dict | None, log=None):
        self.inner, self.ledger, self.cell_key, self.role, self.price, self.log = inner, ledger, cell_key, role, price, log
        self.name = getattr(inner, "name", "engine")
        self.transcript = getattr(inner, "transcript", None)

    def complete(self, req: EngineRequest) -> EngineReply:
        est = input_upper_bound(req)
        try:
            ticket, max_tokens = self.ledger.reserve(self.cell_key, self.role, est, req.max_tokens, self.price)
        except CeilingReached:
            if self.log:
                self.log.emit(CeilingEvent(role=self.role, spent=False, est_input_tokens=est))
            raise
        if max_tokens < req.max_tokens and self.log:
            self.log.emit(CeilingEvent(role=self.role, spent=True, clamped_from=req.max_tokens, max_tokens=max_tokens))
        sent = EngineRequest(req.role, req.system, req.messages, req.tools, max_tokens, req.deadline)
        reply, meta = None, None
        try:
            reply = self.inner.complete(sent)
            meta = reply.raw
            return reply
        except EngineFault as exc:
            meta = getattr(exc, "wire", None)
            raise
        finally:
            self.ledger.settle(ticket, self.cell_key, self.role, reply, self.price, max_tokens, req.max_tokens,
                               unseen_billed(meta), cut_usages(meta))


def unseen_billed(meta: dict | None) -> int:
    """Sends of one call that may have been billed but whose usage the harness never read, from a
    live engine's wire record (harness/engines/live.py): each reply the retry layer discarded as
    malformed (it arrived, so the provider billed it), each 2xx reply cut after the provider started
    sending it (a connection reset mid-body, or the whole-reply deadline: fault ``billed``) before
    its usage arrived, and a request the deadline cancelled in flight (the provider may finish and
    bill it). Each is charged its booking, never counted free."""
    if not isinstance(meta, dict):
        return 0
    faults = meta.get("faults") or []
    n = sum(1 for f in faults if isinstance(f, dict) and (f.get("kind") == "malformed" or f.get("billed"))
            and not f.get("usage"))
    return n + ("in-flight" in str(meta.get("deadline", "")) and not meta.get("deadline_usage"))


def cut_usages(meta: dict | None) -> list[Usage]:
    """The provider-reported usage of each reply of one call that was cut in transit after its
    ``usage`` object arrived (fault ``usage``, or ``deadline_usage`` for the in-flight send a
    deadline cut), or that arrived whole but was discarded as malformed while reporting its usage:
    billed as the whole reply, and charged exactly that (``cut_billed`` in spend.json)."""
    if not isinstance(meta, dict):
        return []
    found = [f.get("usage") for f in meta.get("faults") or []
             if isinstance(f, dict) and (f.get("billed") or f.get("kind") == "malformed")]
    found.append(meta.get("deadline_usage") if "in-flight" in str(meta.get("deadline", "")) else None)
    return [Usage(**{k: int(v) for k, v in u.items() if k in Usage.__dataclass_fields__})
            for u in found if isinstance(u, dict)]


def summary(state: dict) -> str:
    """One line for the run's output: spend against the ceiling in force, and every declared overrun."""
    c = (state.get("ceilings") or [{}])[-1]
    usd = f"${state['spent_usd']:.6f}" + (f" of max_usd ${c['max_usd']}" if c.get("max_usd") is not None else "")
    tok = f"{state['spent_tokens']} tokens" + (f" of max_tokens {c['max_tokens']}" if c.get("max_tokens") is not None else "")
    line = (f"spend: {usd}, {tok} over {state['calls']} engine calls (method: provider-reported usage priced by "
            f"[pricing]; spend.json, one row per call in spend.jsonl); refused at the ceiling: {state['refused']}")
    line += (f"; declared overrun: ${state['overrun_usd']:.6f} / {state['overrun_tokens']} tokens above the "
             f"bookings, ${state['orphaned_usd']:.6f} booked by killed processes counted as spent")
    if state.get("cut_billed"):
        line += (f"; {state['cut_billed']} reply(ies) cut in transit after their usage arrived, charged as "
                 f"reported: ${state['cut_billed_usd']:.6f} / {state['cut_billed_tokens']} tokens")
    if state.get("unseen_billed"):
        line += (f"; {state['unseen_billed']} billed send(s) whose usage was never read (a reply cut mid-body or "
                 f"at the reply deadline before its usage arrived, a malformed reply, a request cancelled in flight) charged at their "
                 f"bookings: ${state['unseen_billed_usd']:.6f} / {state['unseen_billed_tokens']} tokens")
    if state.get("open"):
        o = state["open"].values()
        line += (f"; {len(o)} call(s) still open (booked ${sum(b['usd'] for b in o):.6f} / "
                 f"{sum(b['tokens'] for b in o)} tokens by a process that never settled them: counted against the "
                 "ceiling now, and as spent when the run resumes)")
    if state.get("unpriced_calls"):
        line += (f"; USD leaves out {state['unpriced_calls']} call(s) at a model with no [pricing] entry "
                 "(their tokens are counted)")
    if state.get("gate_overrun"):
        g = state["gate_overrun"]
        line += (f"; {g['cells']} cell(s) in flight at the halt finished their gates without another engine call, "
                 f"the last {g['after_halt_s']:.1f}s after the halt (a gate is never cut short)")
    return line
