"""``harness monitor RUN``: anytime-valid confidence sequences for a run in progress or finished.

For each monitored hypothesis (``[monitoring] hypotheses``, default: the protocol's first) the
matched units (task|scenario|repeat|factors in the hypothesis's cell set, both arms applicable) are
taken in the protocol's pre-registered run order (``harness.core.matrix.run_order``: seeded, fixed before
any outcome), never in the order they finished: finishing order can depend on outcomes (a failing
cell runs longer), a pre-registered order cannot. The sequence holds the longest prefix of that order
whose units are all decided: both arms scored (the unit enters with D = y_a - y_b), or a cell of it
void after the rerun policy (skipped, as everywhere). Units recorded beyond the first undecided one
wait for it and are counted apart.

Two anytime-valid sequences are computed on the same units. The one the stopping rule, the progress
line and the head line read is the betting confidence sequence of ``analysis.betting`` (Waudby-Smith
and Ramdas 2024) unless the protocol names the other (``[monitoring] sequence = "empirical_bernstein"``,
part of the locked protocol file): at the paper's effect it reaches 80% power in about 1.2x the units
of a fixed-n exact McNemar test, the empirical-Bernstein one in about 3x (``harness power --monitor``).
Excluding 0 on the betting sequence is a test, valid at any stopping time, of no difference on any
unit (heterogeneous units included); as an interval it covers a common mean difference. The
empirical-Bernstein sequence of ``analysis.sequence`` covers the mean over the units in the sequence of
each unit's propensity difference (not a population marginal) also when units differ; it is printed
beside. A pre-registered stopping rule in ``[monitoring]`` (``stop_when = "excludes_zero"`` or
``"half_width_below"`` with ``half_width``, after ``min_units``) is reported as met or not; stopping on
it keeps the sequence's guarantee.
Each sequence is at level 1 - alpha on its own (no multiplicity adjustment across hypotheses).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from analysis.betting import betting_sequence
from analysis.pairs import Col
from analysis.sequence import confidence_sequence, rho_for
from harness.core import runio

if TYPE_CHECKING:
    from harness.core.protocol import MonitoringTable

ESTIMAND = ("the mean, over the matched units in the sequence so far, of each unit's own expected "
            "difference P(a succeeds) - P(b succeeds) on that unit (its task, scenario and repeat); "
            "not a population marginal over tasks the run did not draw")


class MonitorError(ValueError):
    """A run directory that cannot be monitored; the message names the file and what was expected."""


def _run_meta(run_dir: Path) -> dict:
    f = run_dir / "run.json"
    if not run_dir.is_dir():
        raise MonitorError(f"{run_dir}: not a directory (expected a run directory from `harness run --out`)")
    try:
        meta = runio.read_json(f, "run.json")  # a FIFO, a link or a deep nest refused, never waited on
    except FileNotFoundError:
        raise MonitorError(f"{f}: missing (expected a run directory from `harness run --out`)") from None
    except runio.NotRegular as exc:  # a FIFO or a link: what it is, not "not JSON"
        raise MonitorError(str(exc)) from None
    except runio.UnsafeFile as exc:
        raise MonitorError(f"{f}: not readable JSON ({exc.message})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("protocol_path"), str) \
            or not isinstance(meta.get("lock"), dict):
        raise MonitorError(f"{f}: expected an object with 'protocol_path' and 'lock' (written by `harness run`)")
    return meta


def planned_units(order, a: str, b: str, cells: str) -> list[str]:
    """Match keys in run order whose unit runs both arms, restricted to the hypothesis's cell set."""
    arms: dict[str, set[str]] = {}
    for c in order:
        arms.setdefault(c.unit, set()).add(c.arm)
    out = []
    for unit, have in arms.items():  # dicts keep first-appearance (run) order
        scen = unit.split("|")[1]
        if cells == "injected" and scen == "null" or cells == "null" and scen != "null":
            continue
        if {a, b} <= have:
            out.append(unit)
    return out


EB_METHOD = "empirical-Bernstein, gamma-exponential mixture (Howard et al. 2021, Thm 4)"
BET_METHOD = ("betting confidence sequence, aGRAPA stakes (Waudby-Smith and Ramdas 2024); excluding 0 is an "
              "anytime-valid test of no difference on any unit; as an interval it covers a common mean difference")
ORDER = "pre-registered run order (harness.core.matrix.run_order)"


def _decided(h, units: list[str], tidy, void_cells: set[tuple[str, str]]) -> tuple[list[int], int, str | None, int]:
    """(D of each unit of the decided prefix, void units skipped, the unit waited on, units recorded)."""
    sub = tidy[tidy[Col.ARM].isin([h.a, h.b])]
    y = {(arm, k): int(v) for arm, k, v in zip(sub[Col.ARM], sub["match_key"], sub[h.endpoint])}
    d, skipped, waiting_on = [], 0, None
    for u in units:
        if (h.a, u) in y and (h.b, u) in y:
            d.append(y[(h.a, u)] - y[(h.b, u)])
        elif (h.a, u) in void_cells or (h.b, u) in void_cells:
            skipped += 1
        else:
            waiting_on = u
            break
    recorded = sum((h.a, u) in y and (h.b, u) in y for u in units)
    return d, skipped, waiting_on, recorded


def sequence_for(h, units: list[str], tidy, void_cells: set[tuple[str, str]], alpha: float,
                 v_opt: float | None, sequence: str = "betting") -> dict:
    """Both sequences over the decided prefix of ``units``; ``void_cells`` holds (arm, match key) of the
    cells void after the rerun policy. Only a void cell of h.a or h.b decides a unit (it is skipped):
    another arm's void leaves the unit waiting for its own two cells. ``lower``/``upper`` and ``method``
    are those of ``sequence`` ([monitoring] sequence: the betting one unless the protocol names the
    empirical-Bernstein one); the other sits beside it under its own name."""
    d, skipped, waiting_on, recorded = _decided(h, units, tidy, void_cells)
    v_opt = v_opt if v_opt is not None else max(10.0, len(units) / 20)
    rho = rho_for(v_opt, alpha / 2)
    end = confidence_sequence(d, alpha=alpha, rho=rho).at_end()
    bet = betting_sequence(d, alpha=alpha)
    eb = {"lower": end["lower"], "upper": end["upper"], "level": 1 - alpha, "excludes_zero": _excludes(end),
          "method": {"kind": "confidence_sequence", "name": EB_METHOD, "alpha": alpha, "rho": rho,
                     "tuned_for_v": v_opt, "V": end["V"], "order": ORDER}}
    betting = {"lower": bet.lower, "upper": bet.upper, "level": 1 - alpha,
               "excludes_zero": bet.excludes_zero, "method": BET_METHOD}  # read at 0 (analysis.betting)
    chosen = betting if sequence == "betting" else eb
    method = {"kind": "confidence_sequence", "name": BET_METHOD, "alpha": alpha, "V": end["V"], "order": ORDER} \
        if sequence == "betting" else eb["method"]
    return {"id": h.id, "a": h.a, "b": h.b, "endpoint": h.endpoint, "cells": h.cells, "estimand": ESTIMAND,
            "planned_units": len(units), "units_in_sequence": len(d), "void_units_skipped": skipped,
            "matched_units_recorded": recorded, "waiting_beyond_prefix": recorded - len(d),
            "waiting_on": waiting_on, "mean": end["mean"], "sequence": sequence,
            "lower": chosen["lower"], "upper": chosen["upper"], "level": 1 - alpha,
            "excludes_zero": chosen["excludes_zero"],
            "discordant": int(sum(x != 0 for x in d)),
            "a_only": int(sum(x > 0 for x in d)), "b_only": int(sum(x < 0 for x in d)),
            "method": method, "betting": betting, "empirical_bernstein": eb}


def _excludes(s: dict) -> bool | None:
    if s["lower"] is None or s["upper"] is None:
        return None
    return bool(s["lower"] > 0 or s["upper"] < 0)


def _rule(cfg: MonitoringTable, seqs: list[dict]) -> dict | None:
    rule = cfg.stop_when
    if rule is None:
        return None
    min_units = cfg.min_units
    per = []
    for s in seqs:
        if s["lower"] is None or s["units_in_sequence"] < min_units:
            ok = False
        elif rule == "excludes_zero":
            ok = bool(s["excludes_zero"])  # the chosen sequence's own reading (betting: at 0, analysis.betting)
        else:
            ok = (s["upper"] - s["lower"]) / 2 < cfg.half_width
        per.append({"id": s["id"], "met": ok})
    text = {"excludes_zero": f"the {SEQUENCE_NAMES[cfg.sequence]} excludes 0",
            "half_width_below": f"the {SEQUENCE_NAMES[cfg.sequence]}'s half-width is below {cfg.half_width}"}[rule]
    return {"stop_when": rule, "sequence": cfg.sequence, "half_width": cfg.half_width, "min_units": min_units,
            "text": f"{text} for every monitored hypothesis, after at least {min_units} units",
            "per_hypothesis": per, "met": all(p["met"] for p in per) and bool(per)}


SEQUENCE_NAMES = {"betting": "betting sequence", "empirical_bernstein": "empirical-Bernstein sequence"}


def monitor(run_dir: str | Path) -> dict:
    """The monitoring report of a run directory (in progress or finished), as a dict."""
    from analysis.pipeline import load_protocol as load_analysis_settings
    from analysis.records import load_records
    from harness.core.matrix import run_order
    from harness.core.protocol import load_protocol

    run_dir = Path(run_dir)
    meta = _run_meta(run_dir)
    proto = load_protocol(meta["protocol_path"])
    if proto.canonical_digest() != meta["lock"].get("protocol_sha256"):
        raise MonitorError(f"{proto.path}: changed since run {run_dir} started (its digest differs from the "
                           "one in run.json), so the pre-registered run order cannot be recomputed")
    settings = load_analysis_settings(proto.path)
    cfg = proto.monitoring
    wanted = cfg.hypotheses or [settings.hypotheses[0].id]
    hyps = [h for h in settings.hypotheses if h.id in wanted]
    alpha = cfg.alpha
    order = run_order(proto)
    ledger = run_dir / "records.jsonl"
    try:
        text = runio.read_text(ledger, "records file") if (ledger.exists() or ledger.is_symlink()) else ""
    except runio.UnsafeFile as exc:
        raise MonitorError(str(exc)) from None
    has_records = bool(text[: text.rfind("\n") + 1].strip())  # a complete line holds a record
    if has_records:
        loaded = load_records(ledger, complete_lines_only=True)
        tidy = loaded.tidy
        void_cells = set(zip(loaded.void_keys[Col.ARM], loaded.void_keys["match_key"]))
        n_lines = loaded.lines
    else:
        import pandas as pd

        tidy = pd.DataFrame({"arm": [], "match_key": [], "completion": [], "amplified": [], "not_amplified": []})
        void_cells, n_lines = set(), 0
    seqs = [sequence_for(h, planned_units(order, h.a, h.b, h.cells), tidy, void_cells, alpha,
                         cfg.tuned_for_v, cfg.sequence) for h in hyps]
    total = len(order)
    return {"run": str(run_dir), "protocol": proto.name, "records": n_lines, "cells_planned": total,
            "finished": n_lines >= total, "sequences": seqs, "stopping_rule": _rule(cfg, seqs),
            "estimand": ESTIMAND}


def _seq_lines(s: dict) -> list[str]:
    """The head line (the sequence the stopping rule reads) and the other sequence beside it."""
    eb = s["empirical_bernstein"]
    chosen, other = ("betting", "empirical_bernstein") if s.get("sequence", "betting") == "betting" \
        else ("empirical_bernstein", "betting")
    cite = {"betting": "Waudby-Smith and Ramdas 2024", "empirical_bernstein": "Howard et al. 2021, Thm 4"}
    extra = {"betting": "", "empirical_bernstein": f", V = {eb['method']['V']:.1f}"}
    first = (f", mean {100 * s['mean']:+.2f} pp = ({s['a_only']} - {s['b_only']})/{s['units_in_sequence']} "
             f"(units only {s['a']} / only {s['b']} succeeded), {100 * s['level']:.4g}% "
             f"{SEQUENCE_NAMES[chosen]} ({cite[chosen]}; the stopping rule's) "
             f"[{100 * s['lower']:+.2f}, {100 * s['upper']:+.2f}] pp ({s['discordant']} discordant units"
             f"{extra[chosen]})" + ("; excludes 0" if s[chosen]["excludes_zero"] else ""))
    o = s[other]
    second = (f"  {SEQUENCE_NAMES[other]} ({cite[other]}), same units: "
              f"[{100 * o['lower']:+.2f}, {100 * o['upper']:+.2f}] pp{extra[other]}"
              + ("; excludes 0" if o["excludes_zero"] else ""))
    return [first, second]


GUARANTEES = ("Valid at every look and any stopping time (units in the pre-registered run order; each hypothesis "
              "at its own level). Betting sequence (Waudby-Smith and Ramdas 2024): excluding 0 is an anytime-valid "
              "test of no difference on any unit; as an interval it covers a common mean difference. "
              "Empirical-Bernstein sequence (Howard et al. 2021, Thm 4): covers the running mean of the units' "
              "own differences, also when units differ.")


def render(obj: dict) -> str:
    from analysis.summary import MonitorReport

    rep = MonitorReport.from_json(obj)
    lines = [f"{rep.run}: protocol {rep.protocol}, {rep.records} of {rep.cells_planned} cells recorded"
             + (" (finished)" if rep.finished else " (in progress)")]
    for s in rep.sequences:
        head = (f"{s.id} {s.a}-{s.b} {s.endpoint} ({s.cells} cells): "
                f"{s.units_in_sequence} of {s.planned_units} matched units in the sequence")
        if s.planned_units == 0:
            lines.append(head + ": no matched units are planned (the protocol never runs both arms on one unit "
                         "of these cells), sequence n/a")
        elif s.units_in_sequence == 0:
            lines.append(head + ": no units yet, sequence n/a")
        else:
            first, second = _seq_lines(s.raw)
            lines += [head + first, second]
        extra = []
        if s.void_units_skipped:
            extra.append(f"{s.void_units_skipped} void unit(s) skipped")
        if s.waiting_beyond_prefix:
            extra.append(f"{s.waiting_beyond_prefix} more matched unit(s) recorded wait for {s.waiting_on} "
                         "(units enter in the pre-registered run order)")
        if extra:
            lines.append("  " + "; ".join(extra))
    lines.append(f"estimand: {rep.estimand}. {GUARANTEES}")
    r = rep.stopping_rule
    if r is None:
        lines.append("stopping rule: none pre-registered ([monitoring] stop_when)")
    else:
        lines.append(f"stopping rule ({r['text']}): {'MET' if r['met'] else 'not met'}"
                     + "".join(f"; {p['id']} {'met' if p['met'] else 'not met'}" for p in r["per_hypothesis"]))
    return "\n".join(lines)


def primary_line(run_dir: str | Path) -> str:
    """One short line for a run's progress display: the first monitored hypothesis's confidence
    sequence, the one its stopping rule reads (``harness run --monitor``), e.g.
    'H1 A4-A2p +2.00 pp, 95% betting CS [-9.1, +13.1] (12/40 units)'."""
    rep = monitor(run_dir)
    if not rep["sequences"]:
        return "no hypothesis to monitor"
    s = rep["sequences"][0]
    head = f"{s['id']} {s['a']}-{s['b']}"
    if s["units_in_sequence"] == 0:
        return f"{head}: no units yet (0/{s['planned_units']}), sequence n/a"
    kind = "betting" if s.get("sequence", "betting") == "betting" else "empirical-Bernstein"
    return (f"{head} {100 * s['mean']:+.2f} pp, {100 * s['level']:.4g}% {kind} CS "
            f"[{100 * s['lower']:+.1f}, {100 * s['upper']:+.1f}] ({s['units_in_sequence']}/{s['planned_units']} units)")
