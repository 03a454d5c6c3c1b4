"""Cost per cell from usage and the protocol's price table. No prices live in code.

The protocol declares, per model, USD per million tokens of each kind and the date the prices
were read::

    [pricing."claude-sonnet-4-5"]
    date = "2025-10-01"          # when these prices were taken (required)
    input = 3.00                 # uncached input tokens
    output = 15.00               # output tokens (OpenAI reasoning tokens are part of these)
    cache_read = 0.30            # optional, default: the input price
    cache_write = 3.75           # optional, default: the input price

A model id from the provider matches a pricing key exactly, or as the key plus a dated-snapshot
suffix (``claude-sonnet-4-5-20250929`` matches ``claude-sonnet-4-5``; ``gpt-4o-2024-08-06``
matches ``gpt-4o``, but ``gpt-4o-mini-...`` never matches ``gpt-4o``). A cell that used a model
with no price gets ``cost_usd = null`` and a ``cost_note`` naming the model (never a guessed 0).
"""
from __future__ import annotations

import re

from harness.core.engine import Usage

KINDS = {"input": "input_tokens", "output": "output_tokens", "cache_read": "cache_read_tokens",
         "cache_write": "cache_write_tokens"}
FREE = {"input": 0.0, "output": 0.0, "date": "n/a"}  # the entry of an engine that calls no provider (not live)
SNAPSHOT = re.compile(r"^[-@](\d{8}|\d{4}-\d{2}-\d{2}|v\d+(:\d+)?|latest)$")


def validate(pricing: dict) -> list[str]:
    """Problems with a [pricing] table, as 'pricing.<model>.<key>: what' strings."""
    problems = []
    if not isinstance(pricing, dict):
        return ["pricing: expected a table of [pricing.\"<model>\"] tables"]
    for model, entry in pricing.items():
        where = f"pricing.{model}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: expected a table")
            continue
        if not isinstance(entry.get("date"), str) or not entry.get("date"):
            problems.append(f"{where}.date: required, a quoted string (the date the prices were taken, "
                            "e.g. date = \"2025-10-01\")")
        for key in ("input", "output"):
            if key not in entry:
                problems.append(f"{where}.{key}: required (USD per million tokens)")
        for key, val in entry.items():
            if key in ("date", "note"):
                continue
            if key not in KINDS:
                problems.append(f"{where}.{key}: unknown token kind (expected {sorted(KINDS)}, date, note)")
            elif not isinstance(val, (int, float)) or isinstance(val, bool) or val < 0:
                problems.append(f"{where}.{key}: expected a non-negative number (USD per million tokens)")
    return problems


def price_for(pricing: dict, model_id: str) -> tuple[str, dict] | None:
    if model_id in pricing:
        return model_id, pricing[model_id]
    best = None
    for key in pricing:
        if model_id.startswith(key) and SNAPSHOT.match(model_id[len(key):]):
            if best is None or len(key) > len(best):
                best = key
    return (best, pricing[best]) if best else None


def rate(price: dict, kind: str) -> float:
    """USD per million tokens of ``kind`` (a key of KINDS) at the [pricing] entry ``price``: a cache
    kind the entry leaves out is priced as input (the module docstring)."""
    return float(price.get(kind, price["input"] if kind in ("cache_read", "cache_write") else 0.0))


def input_rate(price: dict) -> float:
    """USD per million input tokens at the dearest way an input token can be billed (a provider may
    bill any input token as a cache write): what an input token is worth before the call says how."""
    return max(rate(price, k) for k in ("input", "cache_read", "cache_write"))


def price_tokens(entry: dict, *, input_tokens: int = 0, output_tokens: int = 0, cache_read_tokens: int = 0,
          cache_write_tokens: int = 0, unknown_input_tokens: int = 0) -> float:
    """USD of a call's tokens at the [pricing] entry ``entry``: each kind at its rate, and
    ``unknown_input_tokens`` (input whose billing kind is not known yet: a booking before the call, a
    worst case before the run) at ``input_rate``. The one pricing function: a cell's cost
    (``cell_cost``), the spend ceiling's bookings and settlements (harness.ledger.spend) and the
    worst case (harness.ledger.worst_case) all price through it."""
    total = 0.0
    counts = {"input": input_tokens, "output": output_tokens, "cache_read": cache_read_tokens,
              "cache_write": cache_write_tokens}
    for kind in KINDS:
        total += counts[kind] * rate(entry, kind) / 1e6
    return total + unknown_input_tokens * input_rate(entry) / 1e6


def usage_cost(usage: Usage, entry: dict) -> float:
    """USD of a reply's provider-reported usage (``price_tokens`` of its token counts)."""
    return price_tokens(entry, **{attr: getattr(usage, attr) for attr in KINDS.values()})


def cell_cost(pricing: dict, usage_by_model: dict[str, Usage]) -> dict:
    """{"cost_usd": float | None, "price_keys": {...}, "price_dates": [...], "cost_note": str | None}."""
    if not usage_by_model:
        return {"cost_usd": 0.0 if pricing else None, "cost_note": None if pricing else "no [pricing] table"}
    total = 0.0
    missing, keys, dates = [], {}, set()
    for model_id, usage in sorted(usage_by_model.items()):
        hit = price_for(pricing or {}, model_id)
        if hit is None:
            missing.append(model_id)
            continue
        key, price = hit
        keys[model_id] = key
        dates.add(str(price.get("date")))
        total += usage_cost(usage, price)
    if missing:
        return {"cost_usd": None, "price_keys": keys, "price_dates": sorted(dates),
                "cost_note": "no price in the protocol for " + ", ".join(missing)}
    return {"cost_usd": round(total, 6), "price_keys": keys, "price_dates": sorted(dates), "cost_note": None}
