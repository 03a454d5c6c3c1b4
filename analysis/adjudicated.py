"""Adjudicated divergence of two runs (``harness compare``, issue 37; the paper's section 13, future work 1b).

The paired matrix of ``analysis.compare`` puts one run's terminal status against the other's delivery
decision. The paper could not say how many of the 106 no-review completions the gated run did not
deliver were wrong deliveries it avoided: its stops were not hidden-oracle adjudicated. A run of this
harness judges every cell's final tree with the hidden oracle, shipped or not (Eq. 7: a stop whose tree
would pass the oracle is a false_stop, one whose tree fails it a safe_stop), so a comparison of two
such runs can answer it. For each direction (A completed x B not delivered, and B completed x A not
delivered) the refusals are split by the refusing run's hidden-oracle verdict on its own final tree:

* refused and wrong (hidden oracle fails): a wrong delivery avoided;
* refused and right (hidden oracle passes): a false stop (Eq. 7).

Beside each cell, not in the matrix's off-diagonal sum: the pairs where the other run shipped a wrong tree
(amplified) and the refusing run did not deliver, split the same way (``beside``): wrong deliveries the
other run made, refused here.

Each share carries its Wilson 95% interval (``harness.core.wilson``, checked against statsmodels), and the
paired token readout (Table 28's increment of the refusing run over the other, input+output tokens over the
pairs where both report usage) is divided by the wrong deliveries avoided: tokens per wrong delivery avoided.

What counts as a hidden-oracle verdict: a row that names the final tree the harness judged
(``tree_digest_final``, written by the harness's adjudicator beside ``hidden_pass``). A records file from
another producer (the paper's) carries only Eq. 7's flags; then the section keeps the caveat of the
readout's wording and names the side that lacks verdicts.
"""
from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from analysis.pairs import Col
from harness.core.outcomes import Outcome
from harness.core.wilson import wilson

if TYPE_CHECKING:
    from analysis.pairs import Pairs

COMPLETION = (Outcome.COMPLETED.value, Outcome.RECOVERED.value)  # the pairs' columns hold strings
VERDICT_FIELD = Col.TREE_DIGEST_FINAL
CRITERION = (f"a row carries a hidden-oracle verdict when it names the final tree the harness's hidden oracle "
             f"judged ({VERDICT_FIELD}); every matched row of a side must")


def _lacking(rows: dict[str, list], label: str, source: str) -> dict[str, Any] | None:
    """``rows``: one side's columns over the matched pairs (``analysis.pairs.Pairs``)."""
    digests, hidden = rows[VERDICT_FIELD], rows[Col.HIDDEN_PASS]  # a verdict: a judged tree named, a bool verdict
    if digests.count(None) == len(digests):  # no row names a judged tree: none carries a verdict
        missing = len(digests)
    else:
        missing = sum(not (isinstance(v, str) and bool(v) and isinstance(h, bool)) for v, h in zip(digests, hidden))
    if not missing:
        return None
    return {"label": label, "source": source, "rows_without": missing, "rows": len(digests)}


def _share(k: int, n: int) -> dict[str, Any]:
    p = wilson(k, n)
    return {**p.as_dict(), "method": "Wilson score 95%", "shown": p.fmt()}


def direction(pairs: Pairs, completing: str, refusing: str, swap: bool, increment: int | None) -> dict[str, Any]:
    """One off-diagonal cell: the completing side completed (Eq. 7: shipped, hidden oracle passes), the
    refusing side did not deliver; its refusals split by the refusing side's own hidden verdict.
    ``swap``: the refusing side is A (``pairs.a``). ``increment``: the paired input+output tokens of the
    refusing side minus the completing side's (None when no pair reports usage)."""
    done, refuse = (pairs.b, pairs.a) if swap else (pairs.a, pairs.b)
    cell = [h for o, s, h in zip(done[Col.OUTCOME], refuse[Col.SHIPPED], refuse[Col.HIDDEN_PASS])
            if o in COMPLETION and not s]  # the refusing side's hidden verdict of each refusal
    n = len(cell)
    wrong = sum(1 for h in cell if not h)
    out: dict[str, Any] = {"cell": f"{completing} completed x {refusing} not delivered", "completing": completing,
                           "refusing": refusing, "n": n, "wrong_delivery_avoided": _share(wrong, n),
                           "false_stop": _share(n - wrong, n)}
    out["tokens"] = _per_avoided(increment, wrong, refusing, completing)
    # beside the cell (on the matrix's diagonal, so not in its sum): the completing side shipped a tree its
    # hidden oracle fails (amplified) and the refusing side did not deliver - a wrong delivery observed in
    # the other run, refused here; split the same way by the refusing side's own verdict (review r37)
    seen = [h for o, s, h in zip(done[Col.OUTCOME], refuse[Col.SHIPPED], refuse[Col.HIDDEN_PASS])
            if o == Outcome.AMPLIFIED and not s]
    seen_wrong = sum(1 for h in seen if not h)
    out["beside"] = {"cell": f"{completing} amplified x {refusing} not delivered", "n": len(seen),
                     "wrong_delivery_avoided": _share(seen_wrong, len(seen)),
                     "false_stop": _share(len(seen) - seen_wrong, len(seen))}
    return out


def _per_avoided(increment: int | None, wrong: int, refusing: str, completing: str) -> dict[str, Any]:
    """Tokens per wrong delivery avoided: the paired increment over the avoided count (exact, 1 decimal)."""
    base = {"increment": increment, "avoided": wrong}
    if increment is None:
        return {**base, "per_avoided": None, "shown": "n/a (no pair where both runs report usage)"}
    if wrong == 0:
        return {**base, "per_avoided": None, "shown": "n/a (no wrong delivery avoided)"}
    per = Fraction(increment, wrong)
    sign = "-" if per < 0 else ""
    shown = (f"{sign}{_fixed1(abs(per))} = {increment:,} / {wrong:,} ({refusing} - {completing} input+output "
             "tokens over the pairs where both report usage, per wrong delivery avoided)")
    if increment <= 0:
        shown += f"; {refusing} used no more tokens than {completing}"
    return {**base, "per_avoided": float(per), "shown": shown}


def _fixed1(x: Fraction) -> str:
    """A non-negative exact value with one decimal, rounded half up, thousands grouped (as compare.fixed)."""
    whole, frac = divmod((x * 10 + Fraction(1, 2)).__floor__(), 10)
    return f"{whole:,}.{frac}"


def adjudicated(pairs: Pairs, sides: tuple[tuple[str, str], tuple[str, str]],
                increment: int | None) -> dict[str, Any]:
    """Both directions when both sides carry hidden-oracle verdicts on every matched row, else n/a naming
    the side(s) without them. ``sides``: ((label A, source A), (label B, source B)); ``increment``: Table
    28's paired increment B - A."""
    (la, sa), (lb, sb) = sides
    lacking = [x for x in (_lacking(pairs.a, la, sa), _lacking(pairs.b, lb, sb)) if x is not None]
    res: dict[str, Any] = {"criterion": CRITERION, "lacking": lacking, "pairs": len(pairs)}
    if not len(pairs):
        return {**res, "status": "n/a (no matched pairs)", "directions": []}
    if lacking:
        return {**res, "status": "n/a: " + "; ".join(
            f"{x['label']} ({x['source']}) carries no hidden-oracle verdict on {x['rows_without']:,} of its "
            f"{x['rows']:,} matched rows" for x in lacking), "directions": []}
    neg = None if increment is None else -increment
    return {**res, "status": "ok", "directions": [direction(pairs, la, lb, False, increment),
                                                 direction(pairs, lb, la, True, neg)]}


def token_convention(rows_by_side: list[tuple[str, list[str], dict[str, list]]]) -> list[dict[str, Any]]:
    """The double-counting footprint, per side: every row with a cached count (cache_read_tokens > 0) has
    cache_read_tokens <= tokens_in, as when tokens_in is the engine's whole prompt including the cached part
    (OpenAI's prompt_tokens convention). This harness writes uncached input in tokens_in and adds the cached
    part once (``analysis.compare.io_tokens``), so such rows may count the cached part twice. A warning names
    the rows (their join keys, the first five) and the engines; it cannot prove the convention, only show its
    footprint. ``rows_by_side``: (label, the pairs' join keys, that side's columns over the pairs)."""
    out = []
    for label, keys, rows in rows_by_side:
        reads, inputs, engine = rows[Col.CACHE_READ_TOKENS], rows[Col.TOKENS_IN], rows[Col.ENGINE]
        cached = [(keys[i], reads[i], inputs[i], engine[i]) for i, c in enumerate(reads)
                  if (c or 0) > 0 and inputs[i] is not None] if reads.count(None) < len(reads) else []
        if not cached or any(c > t for _, c, t, _ in cached):
            continue
        engines = sorted({str(e) for _, _, _, e in cached if e})
        named = [k for k, _, _, _ in cached]
        out.append({"label": label, "rows": len(cached), "keys": named[:5], "engines": engines,
                    "text": (f"WARNING ({label}): all {len(cached):,} rows with a cached count have cache_read_tokens "
                             f"<= tokens_in (rows {', '.join(named[:5])}{', ...' if len(named) > 5 else ''}; engine "
                             f"{', '.join(engines) or 'not recorded'}): the footprint of tokens_in that already "
                             "includes the cached input (OpenAI's prompt_tokens convention). Input+output tokens add "
                             "cache_read_tokens to tokens_in, so these rows may count the cached part twice; check "
                             "the producer's convention before reading the token readout.")})
    return out
