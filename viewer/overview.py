"""The overview page: what was run, how far it got, the per-arm table with Wilson intervals, the
figures, counts by outcome, arm and scenario, voids with their reasons, and cost.

The per-arm numbers are the run's own table (harness.core.table, the one ``harness run`` prints):
every scored cell of an arm, no matched-cell restriction. The matched-cell analysis is
``harness analyze``; its report is the Analysis page when one is given.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from urllib.parse import quote

from harness.core.outcomes import Outcome
from harness.core.record import NULL_SCENARIO, CellRecord
from harness.core.table import PerArmRow, per_arm_rows
from viewer import figures
from viewer.page import badge, esc, table
from viewer.rundir import RunDir

OUTCOMES = figures.OUTCOME_ORDER


def cells_link(text: str, **filters) -> str:
    """A link to the cell list with these filters set (the list reads them from the URL hash)."""
    frag = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in filters.items())
    return f'<a href="cells.html#{esc(frag)}">{text}</a>'


def _status(run: RunDir) -> str:
    n = len(run.records)
    parts = [f"{n} cells recorded" + (f" of {run.planned} planned" if run.planned is not None else "")]
    if run.in_flight:
        parts.append(f"{len(run.in_flight)} in flight (event log, no record yet)")
    if run.torn_tail:
        parts.append("the last records line was incomplete and is not shown (a write in progress or a kill)")
    done = run.planned is not None and n >= run.planned and not run.in_flight
    state = "complete" if done else "in progress or stopped early"
    if run.planned is None:
        state = f"planned count unknown ({run.protocol_note})"
    return f'<p class="status">{esc(state)}: {esc("; ".join(parts))}. Re-run <code>harness view</code> to refresh.</p>'


def _ledger_banner(run: RunDir) -> str:
    """A banner above everything else when the records ledger does not verify: every number on
    these pages is read from it, so a reader must see that first."""
    if not run.ledger_problems:
        return ""
    items = "".join(f"<li>{esc(p)}</li>" for p in run.ledger_problems[:5])
    more = f"<li>and {len(run.ledger_problems) - 5} more</li>" if len(run.ledger_problems) > 5 else ""
    return (f'<div class="ledger-warning" role="alert"><strong>The records ledger does not verify</strong> '
            f"({len(run.ledger_problems)} problem(s)); the numbers below are read from it as it is. "
            f"<code>harness ledger verify</code> lists every problem.<ul>{items}{more}</ul></div>")


def _facts(run: RunDir) -> str:
    m, recs = run.meta, run.records
    models = Counter(r.model_id or "n/a" for r in recs)
    endpoints = Counter(r.endpoint or "n/a" for r in recs)
    conf = Counter(r.confinement or "n/a" for r in recs)
    priced = [r for r in recs if isinstance(r.cost_usd, (int, float))]
    notes = Counter(r.cost_note for r in recs if not isinstance(r.cost_usd, (int, float)))
    cost = (f"${sum(r.cost_usd or 0.0 for r in priced):,.4f} over {len(priced)} priced cells"
            if priced else "n/a (no priced cell)")
    if len(priced) < len(recs):
        cost += f"; {len(recs) - len(priced)} cells unpriced" + (
            " (" + "; ".join(f"{n}: {note}" for note, n in notes.most_common(3) if note) + ")" if any(notes) else "")
    tin = sum(int(r.tokens_in or 0) for r in recs)
    tout = sum(int(r.tokens_out or 0) for r in recs)
    problems = run.ledger_problems if (run.path / "records.jsonl").is_file() else ["no records.jsonl yet"]
    chain = "intact (every line's hash and the head verified)" if not problems else \
        f"{len(problems)} problem(s): " + "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else "")
    rows = [
        ("protocol", f"{m.protocol} ({m.protocol_path})"),
        ("protocol digest", f"{m.protocol_digest} over {run.lock_files} files"),
        ("registration", "pre-registered (frozen lock)" if m.preregistered else "exploratory (not pre-registered)"),
        ("run id / created", f"{m.run_id} / {m.created}"),
        ("engine / reviewer engine", f"{m.engine} / {m.reviewer_engine}"),
        ("model requested", m.model or "the protocol's / the engine's default"),
        ("models that answered (cells)", ", ".join(f"{k} ({v})" for k, v in models.most_common())),
        ("endpoints (cells)", ", ".join(f"{k} ({v})" for k, v in endpoints.most_common())),
        ("confinement (cells)", ", ".join(f"{k} ({v})" for k, v in conf.most_common())),
        ("cost", cost),
        ("tokens", f"{tin:,} in + {tout:,} out = {tin + tout:,} over {len(recs)} cells"),
        ("wall time", f"{sum(float(r.wall_s or 0) for r in recs):,.1f} cell-seconds"),
        ("ledger chain", chain),
    ]
    return '<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in rows) + "</dl>"


def _per_arm(rows: list[PerArmRow]) -> str:
    out = []
    for r in rows:
        arm = r.arm
        mt = "n/a" if r.mean_tokens is None else f"{r.mean_tokens:,.0f}"
        mw = "n/a" if r.mean_wall_s is None else f"{r.mean_wall_s:.2f}"
        out.append([cells_link(esc(arm), arm=arm), str(r.cells),
                    cells_link(esc(r.completion.fmt()), arm=arm, scenario="null"),
                    cells_link(esc(r.amplified.fmt()), arm=arm, outcome=Outcome.AMPLIFIED.value),
                    cells_link(f"{r.safe_stop}/{r.cells}", arm=arm, outcome=Outcome.SAFE_STOP.value),
                    cells_link(f"{r.recovered}/{r.cells}", arm=arm, outcome=Outcome.RECOVERED.value),
                    cells_link(f"{r.unsafe}/{r.cells}", arm=arm, outcome=Outcome.UNSAFE.value),
                    mt, mw, cells_link(str(r.void), arm=arm, outcome=Outcome.VOID.value)])
    head = ["arm", "cells scored", "completion (null, Wilson 95%)", "amplified (injected, Wilson 95%)", "safe_stop",
            "recovered", "unsafe", "mean tokens", "mean wall s", "void"]
    note = ("completion = (completed + recovered) / scored null cells; amplified = amplified / scored injected "
            "cells; each rate is k/n with its Wilson score 95% interval (Eq. 6), \"n/a\" for an empty denominator; "
            "safe_stop, recovered, unsafe over all scored cells of the arm; tokens = in + out; void cells are "
            "excluded from every denominator and counted in the last column. No matched-cell restriction here: "
            "contrasts between arms are in <code>harness analyze</code>'s report.")
    return table(head, out, "per-arm") + f'<p class="note">{note}</p>'


def _crosstab(recs: list[CellRecord], row_key: str, rows: list[str], link_key: str) -> str:
    c = Counter((str(getattr(r, row_key)), r.outcome.value) for r in recs)
    present = [o for o in OUTCOMES if any(c[(x, o)] for x in rows)]
    body = []
    for x in rows:
        total = sum(c[(x, o)] for o in present)
        body.append([cells_link(esc(x), **{link_key: x})]
                    + [cells_link(str(c[(x, o)]), **{link_key: x, "outcome": o}) if c[(x, o)] else "0" for o in present]
                    + [str(total)])
    totals = ["total"] + [str(sum(c[(x, o)] for x in rows)) for o in present] + [str(len(recs))]
    return table([esc(row_key)] + [badge(o) for o in present] + ["all"], body + [totals], "counts")


def _detectors(recs: list[CellRecord], arms: list[str]) -> str:
    c = Counter((r.arm, d) for r in recs for d in r.unsafe_detectors or [])
    names = sorted({d for _, d in c})
    if not names:
        return '<p class="note">No unsafe-action detector fired in any recorded cell.</p>'
    body = [[esc(a)] + [cells_link(str(c[(a, d)]), arm=a, detector=d) if c[(a, d)] else "0" for d in names]
            for a in arms]
    return table(["arm"] + [esc(d) for d in names], body, "counts")


def _voids(run: RunDir) -> str:
    final = {r.cell_key: r.outcome for r in run.records}
    rows = []
    seen = set()
    for v in run.voids:
        k = v.cell_key
        seen.add(k)
        now = final.get(k)
        fate = "not recorded yet" if now is None else ("still void" if now is Outcome.VOID else f"rerun, now {now}")
        rows.append([f'<a href="cell.html#{esc(quote(k, safe=""))}">{esc(k)}</a>', esc(v.attempt),
                     esc(v.void_reason), esc(fate)])
    for r in run.records:
        if not r.scored and r.cell_key not in seen:
            rows.append([f'<a href="cell.html#{esc(quote(r.cell_key, safe=""))}">{esc(r.cell_key)}</a>', "-",
                         esc(r.void_reason), "still void"])
    out = (table(["cell", "attempt", "void reason", "fate"], rows, "voids") if rows
           else '<p class="note">No void attempt: every cell that ran was scored.</p>')
    if run.requeues:
        out += "<h3>Re-queued cells (a worker or node died with the cell in flight)</h3>" + table(
            ["cell", "reason"], [[esc(q.cell_key), esc(q.reason)] for q in run.requeues], "voids")
    return out


def render(run: RunDir, fig_dir: Path) -> str:
    """The overview page's body (HTML); writes its figures into fig_dir."""
    recs = run.records
    arms = run.arms or sorted({r.arm for r in recs})
    rows = per_arm_rows(recs, arms)
    scenarios = sorted({str(r.scenario) for r in recs}, key=lambda s: (s != NULL_SCENARIO, len(s), s))
    parts = [f"<h1>Run {esc(run.meta.protocol)} <small>{esc(run.meta.run_id)}</small></h1>",
             _ledger_banner(run), _status(run), _facts(run), "<h2>Per-arm table</h2>", _per_arm(rows)]
    if recs:
        fig_dir.mkdir(parents=True, exist_ok=True)
        per_arm: dict[str, dict[str, int]] = {a: Counter(r.outcome.value for r in recs if r.arm == a) for a in arms}
        f1 = figures.outcome_bars(per_arm, arms, fig_dir / "outcomes.svg")
        f2 = figures.rate_intervals(rows, fig_dir / "rates.svg")
        parts += ["<h2>Figures</h2>", f'<figure><img src="figures/{f1}" alt="outcomes per arm"></figure>',
                  f'<figure><img src="figures/{f2}" alt="completion and amplified per arm, Wilson 95%"></figure>']
    parts += ["<h2>Counts by outcome</h2>", "<h3>per arm</h3>", _crosstab(recs, "arm", arms, "arm"),
              "<h3>per scenario</h3>", _crosstab(recs, "scenario", scenarios, "scenario"),
              "<h3>per task</h3>", _crosstab(recs, "task", sorted({r.task for r in recs}), "task"),
              "<h2>Unsafe-action detectors (cells per arm)</h2>", _detectors(recs, arms),
              "<h2>Voids</h2>", _voids(run)]
    return "\n".join(parts)
