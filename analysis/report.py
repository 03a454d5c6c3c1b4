"""report.md: every number with its numerator, denominator and method; empty denominators 'n/a'."""
from __future__ import annotations

from analysis import summary
from analysis.tables import CELLSETS, ENDPOINTS

DEFINITIONS = """
## Endpoint definitions

- **completion** = outcome in {completed, recovered}, over **null** (no-injection) cells.
- **amplified** = outcome `amplified` (shipped, hidden oracle fails), over **injected** (non-null) cells.
  Also shown per 1,000 injected cells.
- **not-amplified** = outcome in {recovered, safe_stop}, over **injected** cells (`completed` is not
  counted; for arms where every injected cell is recovered or amplified it is the complement of amplified).
- **safe_stop, recovered, false_stop, acceptance_fail, unsafe**: counts of that outcome over **all**
  matched cells of the arm.
- **void** (infrastructure fault): excluded from every denominator; counted per arm (cell keys whose
  only records are void). A void later rerun to a scored record is counted as superseded, not void.
- Intervals on single rates: **Wilson score 95%** (z = 1.95996; Eq. 6 of the paper). An empty
  denominator is printed as "n/a", never 0 or 1.
- Matched-cell invariant: a contrast uses only the cell keys (task|scenario|repeat|factors) both arms
  have scored. The per-arm table uses the common cell set: a cell key is kept only when every arm
  applicable to its scenario (an arm with at least one record, scored or void, in that scenario) has
  scored it. Strata where an arm has no records at all are listed under *Coverage* below.
"""


def fmt_prop(p: dict | None, per1000: bool = False) -> str:
    if p is None or not p.get("n"):
        k = 0 if p is None else p.get("k", 0)
        return f"n/a ({k}/0)"
    s = f"{p['k']}/{p['n']} = {100 * p['rate']:.1f}% [{100 * p['lo']:.1f}, {100 * p['hi']:.1f}]"
    if per1000:
        s += f" ({1000 * p['rate']:.1f} per 1,000)"
    return s


def fmt_num(x, digits: int = 1, thousands: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:,.{digits}f}" if thousands else f"{x:.{digits}f}"


def fmt_pp(x) -> str:
    return "n/a" if x is None else f"{100 * x:+.1f}"


def fmt_interval(c: dict) -> str:
    """The headline: estimate as (a-only - b-only)/matched cells and interval in pp (with each endpoint's
    Monte Carlo s.e. for a bootstrap);
    'n/a (...)' with the reason when there is no interval, and every warning beside it."""
    if c["estimate"] is None:
        return "n/a (no matched cells)"
    m = c["method"]
    e = (c.get("estimands") or {}).get("conditional")  # its numerator and denominator: (b - c)/n
    est = fmt_pp(c["estimate"]) + " pp" + ("" if e is None else
                                          f" = ({e['discordant_a_only']} a-only - {e['discordant_b_only']} b-only)/{e['n']}")
    if c["lo"] is None:
        why = m.get("reason") or f"{m['n_clusters']} cluster{'s' if m['n_clusters'] != 1 else ''}"
        s = f"{est}, interval n/a ({why})"
    else:
        s = f"{est} [{fmt_pp(c['lo'])}, {fmt_pp(c['hi'])}]"
        if m.get("method") == "cluster-t":
            s += " (no resampling: no Monte Carlo error)"
        elif m.get("lo_mcse") is not None:
            s += f" (MC s.e. {100 * m['lo_mcse']:.2f}, {100 * m['hi_mcse']:.2f} pp)"
    if m.get("mcnemar_p") is not None or m.get("kind") == "paired_score":
        s += f"; exact McNemar p = {fmt_p(m.get('mcnemar_p'))}"
    for w in m.get("warnings", []):
        s += f"; WARNING: {w}"
    return s


def fmt_conditional(e: dict) -> str:
    """The conditional estimand: (b - c)/n with its headline interval (``e['interval']``: the one stratified
    by task by default, pooled Tango when the tasks are too small or the protocol names it, or Newcombe's),
    the others beside it (the stratified one only with more than one task, where it differs from Tango's),
    why the stratified one does not head when it does not, and the exact McNemar p."""
    lvl = f"{100 * e['level']:.4g}%"
    if e["estimate"] is None:
        return "conditional (these cells): n/a (no matched cells)"
    s = (f"conditional (the {e['n']} matched cells run): {fmt_pp(e['estimate'])} pp = "
         f"({e['discordant_a_only']} a-only - {e['discordant_b_only']} b-only)/{e['n']} "
         f"[{fmt_pp(e['lo'])}, {fmt_pp(e['hi'])}] ")
    head, st = e.get("interval", "tango"), e.get("stratified")
    if head == "stratified" and (st or {}).get("n_strata") == 1:
        s += f"Tango score {lvl} (one task: the stratified interval is Tango's)"
        head = "tango"  # the same interval: not printed twice
    else:
        s += {"stratified": "stratified score", "tango": "Tango score", "newcombe": "Newcombe hybrid score"}[head] + f" {lvl}"
    if head == "stratified":
        s += f" (strata: {(st or {}).get('n_strata')} tasks)"
    if head != "tango" and e.get("tango"):
        s += f"; pooled Tango score [{fmt_pp(e['tango']['lo'])}, {fmt_pp(e['tango']['hi'])}]"
    if head != "stratified" and st is not None and st["n_strata"] > 1:
        s += f"; stratified by task ({st['n_strata']} tasks) [{fmt_pp(st['lo'])}, {fmt_pp(st['hi'])}]"
    s += f"; exact McNemar p = {fmt_p(e['mcnemar_p'])}" + (
        " (no discordant cells)" if e["mcnemar_p"] is None else f" on {e['discordant_a_only'] + e['discordant_b_only']} "
                                                                 "discordant cells")
    return s + (f"; {e['headline_note']}" if e.get("headline_note") else "")


def fmt_population(e: dict) -> str:
    """The population estimand: the Hall-transformed CR2 interval with its df, G* and limit, or n/a with the reason."""
    from analysis.estimands import POP_MIN_CLUSTERS, _plural

    unit, C = e["cluster"], e["n_clusters"]
    head = f"population over {_plural(unit, 2)} ({C} {_plural(unit, C)}): "
    if e["estimate"] is None:
        return head + "n/a (no matched cells)"
    est = f"{fmt_pp(e['estimate'])} pp = {e['numerator']}/{e['denominator']}"
    if e["lo"] is None:
        short = f"{C} {_plural(unit, C)}"
        if C < POP_MIN_CLUSTERS:
            return head + f"{est}, interval n/a ({short}): {e['reason'].removeprefix(short + ': ')}"
        return head + f"{est}, interval n/a: {e['reason']}"
    return head + (f"{est} [{fmt_pp(e['lo'])}, {fmt_pp(e['hi'])}] Hall-transformed CR2 {100 * e['level']:.4g}%, t on "
                   f"{e['df']:.1f} df = min(Bell-McCaffrey {e['bm_df']:.1f}, 2 G* = {2 * e['effective_clusters']:.1f}; "
                   f"G* = {e['effective_clusters']:.1f} effective {_plural(unit, 2)}), skewness {e['skewness']:+.2f}, {e['informative_clusters']} "
                   f"{_plural(unit, 2)} with a discordant cell (largest {unit} {100 * e['top_share']:.0f}% of the "
                   f"variance){_past_turning_point(e)}; limit: {e['limit']}")


def _past_turning_point(e: dict) -> str:
    """A note when Hall's cubic is past its turning point (``analysis.estimands.hall_turning_margin`` < 0):
    the long-tail endpoint then comes from the transformation's runaway branch, outside the small-skewness
    range its Edgeworth justification covers, so that side's width is the method's, not only the data's."""
    margin = e.get("hall_turning_margin")
    if margin is None or margin >= 0:
        return ""
    return (f"; NOTE: Hall's transformation is past its turning point (margin {margin:.2f} < 0): the "
            f"{'upper' if e['skewness'] > 0 else 'lower'} end is set by its runaway branch, not by a small-skewness correction")


def fmt_estimands(c: dict) -> list[str]:
    """Both named estimands of a contrast, and the split when one cluster holds the signal."""
    e = c.get("estimands")
    if not e:
        return []
    lines = [fmt_conditional(e["conditional"]), fmt_population(e["population"])]
    sp = e["population"].get("split")
    if sp:
        d, o = sp["dominant"], sp["others"]
        lines.append(f"  split, {d['cluster']} alone: {fmt_conditional(d['conditional'])}")
        lines.append(f"  split, the other {o['n_clusters']} together: {fmt_conditional(o['conditional'])}")
        lines.append(f"  split, the other {o['n_clusters']} together: {fmt_population(o['population'])}")
    return lines


def fmt_method(m: dict) -> str:
    if m.get("kind") == "paired_score":
        name = {"stratified": "stratified score (strata: tasks)", "tango": "Tango score (pooled)",
                "newcombe": "Newcombe hybrid score (method 10)"}[m["method"]]
        if m["method"] == "stratified" and m.get("n_strata") == 1:
            name = "Tango score (one task: the stratified interval is Tango's)"
        notes = "".join(f"; {x}" for x in m.get("notes", []))
        return f"{name} {100 * m['level']:.4g}% interval on the matched pairs; estimand: conditional{notes}"
    if m.get("method") == "cluster-t":
        df = f"{m['df']:.1f}" if m.get("df") is not None else "n/a"
        return (f"{m['interval']} interval (CR2 cluster-robust s.e., t with {df} Bell-McCaffrey df), unit = "
                f"{m['cluster']} ({m['n_clusters']} clusters); estimand: population over {m['cluster']} clusters")
    return (f"{m.get('interval', 'percentile 95%')} cluster bootstrap, unit = {m['cluster']} "
            f"({m['n_clusters']} clusters), B = {m['B']}, seed = {m['seed']}; estimand: population over "
            f"{m['cluster']} clusters")


def fmt_p(x) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3g}" if x >= 1e-4 else f"{x:.2e}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def render_report(s: dict) -> str:
    """report.md from the analysis summary ``s``: its sections in order, each a named phase."""
    sections = (_records_section, _arms_section, _hypotheses_section, _per_scenario_section,
                _concentration_section, _coverage_section, _glmm_section)
    return "".join(part for section in sections for part in section(s))


def _records_section(s: dict) -> list[str]:
    """The title, the input and settings, the records table, mixed-protocol and conflict notes, and the definitions."""
    r = s["records"]
    parts = ["# Analysis report\n\n",
             f"Input: `{s['input']['path']}` (sha256 `{s['input']['sha256'][:16]}...`). "
             f"Settings: {s['settings']['source']}; alpha = {s['settings']['alpha']}; "
             f"bootstrap B = {s['settings']['B']}, seed = {s['settings']['seed']}.\n",
             "\n## Records\n\n",
             _table(["item", "count", "note"], [
                 ["records read", r["lines"], "non-blank lines / rows"],
                 ["scored cells", r["scored"], "one per cell key arm\\|task\\|scenario\\|repeat[\\|factors]"],
                 ["void cells", ", ".join(f"{a}: {n}" for a, n in r["void"].items()) or "0",
                  "excluded from every denominator"],
                 ["restart duplicates dropped", r["duplicates_dropped"], "same cell key, first kept"],
                 ["void records superseded by a rerun", r["void_superseded"], ""],
                 ["conflict policy", r["on_conflict"],
                  f"{len(r['conflicts_resolved'])} conflicting key(s) resolved" if r["conflicts_resolved"] else "no conflicts"],
                 ["common (matched) cell keys", s["common_cells"], "per-arm table cell set"],
             ])]
    if len(r.get("protocol_digests", [])) > 1:
        parts.append(f"**Warning:** the records carry {len(r['protocol_digests'])} different protocol digests "
                     "(runs of different protocols are mixed in one file): "
                     + ", ".join(f"`{d[:16]}`" for d in r["protocol_digests"]) + "\n\n")
    if r["conflicts_resolved"]:
        parts.append("Conflicting duplicates resolved by the explicit policy:\n\n"
                     + "".join(f"- {c}\n" for c in r["conflicts_resolved"][:50]) + "\n")
    parts.append(DEFINITIONS)
    return parts


def _arms_section(s: dict) -> list[str]:
    """Table 11 layout: the per-arm rates, the outcome counts and the cost co-metrics."""
    parts: list[str] = []
    parts.append("\n## Per-arm results (Table 11 layout)\n\n")
    parts.append("Each cell: k/n = rate [Wilson 95%], over the common matched cell set. "
                 "Means are per scored matched cell.\n\n")
    rows = []
    for arm, a in s["arms"].items():
        rows.append([arm, f"{a['cells_matched']} of {a['cells_scored']}",
                     fmt_prop(a["completion"]), fmt_prop(a["amplified"], per1000=True),
                     fmt_prop(a["not_amplified"])])
    parts.append(_table(["arm", "cells (matched of scored)", "completion (null)",
                         "amplified (injected)", "not-amplified (injected)"], rows))
    all_void = [arm for arm, a in s["arms"].items() if a.get("all_void")]
    if all_void:
        parts.append(f"\n**Every cell of {', '.join(all_void)} is void**: no scored cell, so its rates are n/a "
                     "and it is left out of the common cell set (it would empty it for every other arm).\n")
    rows = []
    for arm, a in s["arms"].items():
        rows.append([arm, fmt_prop(a["recovered"]), fmt_prop(a["safe_stop"]), fmt_prop(a["false_stop"]),
                     fmt_prop(a["acceptance_fail"]), fmt_prop(a["unsafe"]), a["void"]])
    parts.append("\nOutcome counts over all matched cells (k/n = rate [Wilson 95%]); void = count, not in any denominator.\n\n")
    parts.append(_table(["arm", "recovered", "safe_stop", "false_stop", "acceptance_fail", "unsafe", "void"], rows))
    rows = []
    for arm, a in s["arms"].items():
        n = a["cells_matched"]
        cost = "n/a (no cost recorded)" if a["mean_cost_usd"] is None else \
            f"${a['mean_cost_usd']:.4f} (mean over {a['cost_known']}/{n} cells with cost)"
        k = a.get("tokens_known", n)  # null tokens: usage unknown, left out of the token means
        tok_n = f"n={n}" if k == n else f"mean over {k}/{n} cells with usage"
        rows.append([arm, f"{fmt_num(a['mean_tokens'], 0, True)} ({tok_n})",
                     f"{fmt_num(a['mean_tokens_in'], 0, True)} / {fmt_num(a['mean_tokens_out'], 0, True)}",
                     f"{fmt_num(a['mean_wall_s'], 1)} s (n={n})", cost])
    parts.append("\nCost co-metrics (arithmetic means over the arm's matched cells).\n\n")
    parts.append(_table(["arm", "mean tokens (in+out)", "mean tokens in / out", "mean wall", "mean cost"], rows))
    return parts


def _hypotheses_section(s: dict) -> list[str]:
    """The hypotheses' matched-pair contrasts, each with its two estimands."""
    parts: list[str] = []
    parts.append("\n## Hypotheses (matched pairs; two named estimands)\n\n")
    parts.append("Estimate = difference in pooled rates (a - b) in percentage points over the matched cells. "
                 "Two estimands, each with its own method: *conditional* = the mean difference over the "
                 "tasks, scenarios and repeats run (the paired score interval stratified by task, the default "
                 "headline; Tango's pooled one beside it; exact McNemar p on the discordant cells); "
                 "*population* = the difference for tasks drawn like these (CR2 cluster-robust interval with Bell-McCaffrey df; n/a with the reason "
                 "when there are fewer than 8 clusters, when one cluster holds more than 90% of its variance "
                 "(then the split is shown) or when it would leave [-100, +100] pp). A named cluster method "
                 "(`--interval percentile|studentized|studentized-symmetric|cluster-t`) replaces the headline: "
                 "a seeded paired cluster bootstrap, each endpoint with its Monte Carlo s.e. (Maritz-Jarrett).\n\n")
    rows = []
    for c in summary.contrasts(s):
        rows.append([c.id, f"{c.a} - {c.b}", f"{c.endpoint} ({ENDPOINTS[c.endpoint]}) over matched {CELLSETS[c.cells]}",
                     str(c.n_matched), f"{c.a}: {fmt_prop(c.rate_a)}", f"{c.b}: {fmt_prop(c.rate_b)}",
                     fmt_interval(c.raw), fmt_method(c.method)])
    parts.append(_table(["id", "contrast", "endpoint", "matched cells", "rate a", "rate b",
                         "difference", "method"], rows))
    for c in summary.contrasts(s):
        if c.description:
            parts.append(f"- {c.id}: {c.description}\n")
        for line in fmt_estimands(c.raw):
            parts.append(f"  - {c.id} {line.strip()}\n")
    return parts


def _per_scenario_section(s: dict) -> list[str]:
    """Per-scenario not-amplified of the FDR pair, Fisher p and Benjamini-Hochberg q (Table 17)."""
    parts: list[str] = []
    f = s["fdr"]
    a, b = f["pair"]
    parts.append(f"\n## Per-scenario not-amplified, {a} vs {b} (Table 17 last column; exploratory)\n\n")
    parts.append(f"not-amplified ({ENDPOINTS['not_amplified']}) over matched injected cells of each scenario; "
                 "two-sided Fisher exact test (scipy) on the 2x2 counts; Benjamini-Hochberg q across the "
                 f"{f['tested']} tested scenarios; rejected when q <= alpha = {f['alpha']}. "
                 f"Rejected: {f['rejected']}/{f['tested']}.\n\n")
    rows = []
    for p in summary.per_scenario(s):
        rows.append([p.scenario, fmt_prop(p.prop("a")), fmt_prop(p.prop("b")), fmt_p(p.p), fmt_p(p.q),
                     "yes" if p.rejected else "no"])
    parts.append(_table(["scenario", f"{a} not-amplified", f"{b} not-amplified", "Fisher p", "BH q",
                         "rejected"], rows) if rows else "n/a (no matched injected cells)\n")
    return parts


def _concentration_section(s: dict) -> list[str]:
    """Table 13 layout: the task concentration of a hypothesis, when computed."""
    parts: list[str] = []
    if s["task_concentration"]:
        tc = summary.Concentration.from_json(s["task_concentration"])
        parts.append(f"\n## Task concentration (Table 13 layout; {tc.hypothesis} pair, "
                     f"{tc.endpoint} over matched {CELLSETS[tc.cells]})\n\n")
        rows = []
        for label, key in (("all tasks", "all"), (f"{tc.top_task} only", "top"),
                           (f"excluding {tc.top_task}", "excluding")):
            v = tc.scopes[key]
            if v is None:
                continue
            rows.append([label, _kn(v["a"]), _kn(v["b"])])
        parts.append(_table(["scope", f"{tc.a} {tc.endpoint}", f"{tc.b} {tc.endpoint}"], rows))
        parts.append(f"\nMethod: {tc.method}.\n")
    return parts


def _coverage_section(s: dict) -> list[str]:
    """The strata where an arm has no record at all."""
    parts: list[str] = []
    parts.append("\n## Coverage\n\n")
    if s["coverage_gaps"]:
        parts.append("Strata where an arm has no record at all (not applicable by design, or missing "
                     "from the file: check which). These cells are not padded for that arm.\n\n")
        for g in s["coverage_gaps"]:
            st = ", ".join(f"{k}={v}" for k, v in g["stratum"].items())
            parts.append(f"- {st}: no records for {', '.join(g['arms_without_records'])}\n")
    else:
        parts.append("Every arm has records in every stratum (scenario x factors).\n")
    return parts


def _glmm_section(s: dict) -> list[str]:
    """The GLMM sensitivity analysis, the emitted R script's note and the figures."""
    parts: list[str] = []
    if "glmm" in s:
        parts.append("\n## GLMM sensitivity analysis (not the primary inference)\n\n")
        for g in s["glmm"]:
            if g.get("error"):
                parts.append(f"- {g['id']}: not fitted ({g['error']})\n")
            else:
                pl = g.get("plain_logistic", {})
                ref = (f"; plain logistic regression (no random effects): {pl['arm_coef']:+.3f} (s.e. {pl['arm_se']:.3f})"
                       if "arm_coef" in pl else f"; plain logistic regression: not fitted ({pl.get('error')})")
                parts.append(f"- {g['id']}: {g['formula']} over {g['n']} rows ({g['cells']} cells); "
                             f"arm log-odds {g['arm_coef']:+.3f} (s.e. {g['arm_se']:.3f}) by {g['fit']}; "
                             f"method {g['method']}{ref}" + (f"; note: {g['note']}" if g.get("note") else "")
                             + ("" if g.get("converged", True) else
                                "; **no optimiser converged: do not read this coefficient**") + "\n")
    parts.append("\nThe emitted `analysis.glmm.R` fits two disjoint lme4::glmer models (H1 over injected "
                 "cells only, H2 over null cells only) from `analysis.tidy.csv`; it is a sensitivity "
                 "script, not the primary inference.\n")
    if s.get("figures"):
        parts.append("\n## Figures\n\n" + "".join(f"- `{p}`\n" for p in s["figures"]))
    return parts


def _kn(v) -> str:
    k, n = v
    return f"{k}/{n}" if n else f"n/a ({k}/0)"
