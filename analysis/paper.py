"""Reproduce the Proof-or-Stop paper's Tables 11, 13 and 17 (powered column) from a records file.

``reproduce_paper`` runs the standard analysis with the paper's own interval scheme named
explicitly (``PAPER_SCHEME``: H1/H2/H3, percentile bootstrap over task x scenario clusters, B=2000;
the harness's default for a new study is different, see docs/explanation/estimands.md, "Calibration") and sets every number beside the published value from ``published/proof_or_stop_000.toml``,
marked ``match`` (equal at the published precision) or ``differs``.

``synthetic_paper_records`` writes a records file with the paper's published *counts* (Table 11,
Table 13, Table 17). The paper's released records are not in this repository, so the allocation of
events to tasks, scenarios and repeats beyond what the paper states is an assumption (documented
inline). Point estimates and counts follow from the counts; bootstrap intervals depend on the
allocation, so for these records intervals are reported as ``not checkable`` rather than compared.
"""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

from analysis.summary import contrasts, per_scenario
from analysis.tables import PAPER_SCHEME
from harness.core import record, runio
from harness.core.errors import ExitCode
from harness.core.outcomes import Outcome

PUBLISHED = Path(__file__).parent / "published" / "proof_or_stop_000.toml"
SYNTHETIC_ENGINE = "synthetic-paper-counts"
ARMS = ("A1", "A2", "A2p", "A3", "A4")
SCENARIOS = ("null",) + tuple(f"B{i}" for i in range(1, 16))
# Assumption: A1 (single pass) is not applicable to the scenarios that need a second attempt (Appendix A):
# those tasks/scenarios.toml marks needs_second_attempt (B4, B5, B10), read through the record module.
A1_NOT_APPLICABLE = tuple(sorted(record.second_attempt_scenarios(
    tomllib.loads((Path(__file__).resolve().parent.parent / "tasks" / "scenarios.toml").read_text())),
    key=lambda s: int(s[1:])))
TASKS = ("du-duration", "parse-range", "median", "text-stats", "csv-merge", "dep-pin", "slugify",
         "retry-backoff", "json-schema", "cli-flags", "rate-limit", "date-parse", "lru-cache",
         "diff-lines", "ini-config", "word-wrap", "semver-bump", "path-join", "url-query",
         "roman-numerals", "doc-links", "test-repair-sum", "refactor-shapes", "contract-order")
K = 5
# A2p amplified per scenario on du-duration (Table 17: 31 total, Table 13: 29 on du-duration) and
# elsewhere (2, placed on B10/B12 where Table 17 shows 4 each).
A2P_DU = {"B1": 2, "B2": 2, "B3": 2, "B4": 3, "B5": 0, "B6": 1, "B7": 3, "B8": 2, "B9": 2, "B10": 3,
          "B11": 1, "B12": 3, "B13": 1, "B14": 2, "B15": 2}
A2P_OTHER = [("parse-range", "B10"), ("median", "B12")]
A4_DU = {"B1": 1, "B8": 1}  # Table 17: A4 99.2% on B1 and B8; Table 13: both on du-duration
MEANS = {"A1": (168622, 51.7), "A2": (169202, 51.3), "A2p": (170545, 54.8), "A3": (200510, 80.3),
         "A4": (204553, 81.2)}


def _spread(n: int, tasks: list[str], scenarios: list[str], offset: int) -> list[tuple[str, str, int]]:
    """n distinct (task, scenario, repeat) positions spread deterministically."""
    out: list[tuple[str, str, int]] = []
    i = offset
    while len(out) < n:
        cell = (tasks[i % len(tasks)], scenarios[(i * 7) % len(scenarios)], 1 + (i // len(tasks)) % K)
        if cell not in out:
            out.append(cell)
        i += 1
    return out


def synthetic_outcomes() -> dict[tuple[str, str, str, int], str]:
    inj = [s for s in SCENARIOS if s != "null"]
    others = [t for t in TASKS if t != "du-duration"]
    out: dict[tuple[str, str, str, int], str] = {}
    for arm in ARMS:
        for sc in SCENARIOS:
            if arm == "A1" and sc in A1_NOT_APPLICABLE:
                continue
            for t in TASKS:
                for r in range(1, K + 1):
                    out[(arm, t, sc, r)] = "completed" if sc == "null" else "recovered"
    for sc, n in A2P_DU.items():
        for r in range(1, n + 1):
            out[("A2p", "du-duration", sc, r)] = "amplified"
    for t, sc in A2P_OTHER:
        out[("A2p", t, sc, 1)] = "amplified"
    for sc, n in A4_DU.items():
        for r in range(1, n + 1):
            out[("A4", "du-duration", sc, r)] = "amplified"
    # A2p: 4 null-cell non-completions, all on one task (budget truncation -> false_stop). Assumed.
    for r in range(1, 5):
        out[("A2p", "dep-pin", "null", r)] = "false_stop"
    # A3: 14 amplified, 5 on du-duration (Table 13 text: 9/1725 excluding du-duration). Assumed spread.
    for i, sc in enumerate(inj[:5]):
        out[("A3", "du-duration", sc, 2)] = "amplified"
    for t, sc, r in _spread(9, others, inj, 3):
        out[("A3", t, sc, r)] = "amplified"
    # A2: 18 amplified, spread (allocation not published).
    for i, sc in enumerate(inj[:8]):
        out[("A2", "du-duration", sc, 3)] = "amplified"
    for t, sc, r in _spread(10, others, inj, 11):
        out[("A2", t, sc, r)] = "amplified"
    # A1: 13 amplified over its 12 injected scenarios, 16 injected + 8 null acceptance_fail.
    a1_inj = [s for s in inj if s not in A1_NOT_APPLICABLE]
    cells = _spread(13 + 16, list(TASKS), a1_inj, 5)
    for t, sc, r in cells[:13]:
        out[("A1", t, sc, r)] = "amplified"
    for t, sc, r in cells[13:]:
        out[("A1", t, sc, r)] = "acceptance_fail"
    for t, sc, r in _spread(8, list(TASKS), ["null"], 2):
        out[("A1", t, sc, r)] = "acceptance_fail"
    return out


FLAGS = {  # outcome -> (visible_pass, hidden_pass, shipped)
    "completed": (True, True, True), "recovered": (True, True, True),
    "amplified": (True, False, True), "false_stop": (False, True, False),
    "acceptance_fail": (False, False, True), "safe_stop": (False, False, False),
}


def synthetic_paper_records(path: str | Path, restart_duplicates: int = 77) -> int:
    """Write the synthetic 9,240-cell file (+ restart duplicates). Returns the number of lines."""
    outs = synthetic_outcomes()
    lines = []
    counters = {a: 0 for a in ARMS}
    for (arm, t, sc, r), o in sorted(outs.items(), key=lambda kv: (ARMS.index(kv[0][0]), kv[0][1:])):
        vis, hid, ship = FLAGS[o]
        tok, wall = MEANS[arm]
        j = counters[arm]
        counters[arm] += 1
        d = 1 if j % 2 == 0 else -1  # +-: the per-arm means stay exact (even cell counts)
        tokens_in = int(tok * 0.9) + 1000 * d
        lines.append({"arm": arm, "task": t, "scenario": sc, "repeat": r, "outcome": o,
                      "visible_pass": vis, "hidden_pass": hid, "shipped": ship,
                      "tokens_in": tokens_in, "tokens_out": tok - int(tok * 0.9) ,
                      "wall_s": round(wall + 5.0 * d, 1), "cost_usd": None,
                      "model_id": "synthetic", "engine": SYNTHETIC_ENGINE,
                      "cell_key": f"{arm}|{t}|{sc}|{r}"})
    dups = [dict(lines[(i * 97) % len(lines)]) for i in range(restart_duplicates)]
    # atomic: a full disk leaves no empty or partial records file under its name (one line, exit 2)
    runio.write_atomic(path, "".join(json.dumps(rec, sort_keys=True) + "\n" for rec in lines + dups),
                       f"harness reproduce synth-paper --out {path}", ExitCode.BAD_INPUT)
    return len(lines) + len(dups)


# ---------------------------------------------------------------------------------------------


def load_published(path: Path = PUBLISHED) -> dict:
    return tomllib.loads(path.read_text())


def _parse_ci(s: str) -> tuple[float, float, float]:
    m = re.fullmatch(r"\s*([\d.]+)%\s*\[([\d.]+),\s*([\d.]+)\]\s*", s)
    if not m:
        raise ValueError(f"cannot parse published interval {s!r}")
    return float(m.group(1)), float(m.group(2)), float(m.group(3))


def _r(x, d=1):
    return None if x is None else round(x, d)


ROUNDING_PP = 0.05  # the paper prints intervals to 0.1 pp


def interval_status(c: dict, published: list[float]) -> str:
    """'match' when both endpoints round to the published values; 'match within Monte Carlo error'
    when each differs from its published value by at most 2 Monte Carlo s.e. of that endpoint plus
    the rounding of the published value (0.05 pp): a bootstrap endpoint moves with the seed
    (issue 13: over 200 seeds the paper's H1 upper end rounds to 2.4, 2.5 or 2.6); else 'differs'."""
    m = c["method"]
    if c["lo"] is None:
        return "differs"
    ours = [100 * c["lo"], 100 * c["hi"]]
    if [_r(x) for x in ours] == [float(x) for x in published]:
        return "match"
    if m.get("lo_mcse") is None:
        return "differs"
    tol = [2 * 100 * m["lo_mcse"] + ROUNDING_PP, 2 * 100 * m["hi_mcse"] + ROUNDING_PP]
    if all(abs(o - p) <= t for o, p, t in zip(ours, published, tol)):
        return (f"match within Monte Carlo error (|ours - published| <= 2 MC s.e. + {ROUNDING_PP} pp "
                f"rounding: {tol[0]:.3f}, {tol[1]:.3f} pp)")
    return "differs"


class _Rows:
    """The comparison's rows {table, item, ours, published, status}; ``add`` appends one (status:
    "match" when ours equals published, or ``ok`` says so; else "differs"; or the status given)."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def __call__(self, table, item, ours, published, ok=None, status=None) -> None:
        if status is None:
            status = "match" if (ours == published if ok is None else ok) else "differs"
        self.rows.append({"table": table, "item": item, "ours": ours, "published": published, "status": status})


def compare(summary: dict, pub: dict, synthetic: bool) -> list[dict]:
    """Rows {table, item, ours, published, status}: Table 11, the hypotheses of Section 5.2, Tables
    13 and 17, and the scored cells."""
    add = _Rows()
    _compare_table11(add, summary, pub)
    _compare_hypotheses(add, summary, pub, synthetic)
    _compare_table13(add, summary, pub)
    _compare_table17(add, summary, pub)
    add("Section 5.2", "scored cells", summary["records"]["scored"], pub["cells"])
    return add.rows


def _compare_table11(add: _Rows, summary: dict, pub: dict) -> None:
    """Table 11: each arm's completion, amplified, mean tokens and wall, acceptance_fail."""
    for arm, p in pub["table11"].items():
        a = summary["arms"].get(arm)
        if a is None:
            add("Table 11", f"{arm}", "arm absent", "present", status="differs")
            continue
        c = a["completion"]
        ours_ci = None if c["rate"] is None else (_r(100 * c["rate"]), _r(100 * c["lo"]), _r(100 * c["hi"]))
        add("Table 11", f"{arm} completion k/n (null)", f"{c['k']}/{c['n']}",
            f"{p['completion_k']}/{p['completion_n']}")
        add("Table 11", f"{arm} completion % [Wilson 95%]",
            "n/a" if ours_ci is None else f"{ours_ci[0]}% [{ours_ci[1]}, {ours_ci[2]}]", p["completion"],
            ok=ours_ci == _parse_ci(p["completion"]))
        am = a["amplified"]
        add("Table 11", f"{arm} amplified k/n (injected)", f"{am['k']}/{am['n']}",
            f"{p['amplified_k']}/{p['amplified_n']}")
        add("Table 11", f"{arm} mean tokens", None if a["mean_tokens"] is None else round(a["mean_tokens"]),
            p["mean_tokens"])
        add("Table 11", f"{arm} mean wall s", _r(a["mean_wall_s"]), p["mean_wall_s"])
        if Outcome.ACCEPTANCE_FAIL in p:
            add("Table 11", f"{arm} acceptance_fail (all cells)", a["acceptance_fail"]["k"], p["acceptance_fail"])


def _compare_hypotheses(add: _Rows, summary: dict, pub: dict, synthetic: bool) -> None:
    """Section 5.2: each hypothesis's estimate, interval (not checkable on a synthetic allocation) and rates."""
    byid = {c.id: c for c in contrasts(summary)}
    for hid, p in pub["hypotheses"].items():
        c = byid.get(hid)
        if c is None:
            add("Section 5.2", hid, "absent", "present", status="differs")
            continue
        if "estimate_pp" in p:
            add("Section 5.2", f"{hid} estimate pp ({c.a}-{c.b} {c.endpoint})",
                _r(100 * c.estimate) if c.estimate is not None else None, p["estimate_pp"])
            m = c.method
            ours = None if c.lo is None or c.hi is None else [_r(100 * c.lo), _r(100 * c.hi)]
            level = 100 * m.get("level", 0.95)
            status = "not checkable (synthetic allocation)" if synthetic else \
                interval_status(c.raw, [p["lo_pp"], p["hi_pp"]])
            add("Section 5.2", f"{hid} {level:.4g}% CI pp ({m['cluster']} {m['method']} bootstrap, B={m['B']})",
                ours, [p["lo_pp"], p["hi_pp"]], status=status)
            add.rows[-1]["mcse_pp"] = None if m.get("lo_mcse") is None else \
                [round(100 * m["lo_mcse"], 3), round(100 * m["hi_mcse"], 3)]
        if "rate_a_pct" in p:
            add("Section 5.2", f"{hid} {c.a} {c.endpoint} %", _r(100 * c.rate_a["rate"]) if c.rate_a["rate"] is not None else None, p["rate_a_pct"])
            add("Section 5.2", f"{hid} {c.b} {c.endpoint} %", _r(100 * c.rate_b["rate"]) if c.rate_b["rate"] is not None else None, p["rate_b_pct"])


def _compare_table13(add: _Rows, summary: dict, pub: dict) -> None:
    """Table 13: the top task and the amplified counts with it, without it and over all tasks."""
    tc = summary.get("task_concentration") or {}
    t13 = pub["table13"]
    add("Table 13", "top task", tc.get("top_task"), t13["top_task"])
    for scope in ("all", "top", "excluding"):
        v = tc.get(scope) or {}
        for side in ("a", "b"):
            arm = tc.get(side, side)
            add("Table 13", f"{scope} {arm} amplified k/n", v.get(side), t13[scope][side])


def _compare_table17(add: _Rows, summary: dict, pub: dict) -> None:
    """Table 17: each scenario's not-amplified rates of A4 and A2p, and the BH-FDR rejections."""
    t17 = pub["table17"]
    ps = {r.scenario: r for r in per_scenario(summary)}
    for sc in (f"B{i}" for i in range(1, 16)):
        r = ps.get(sc)
        ours = None if r is None else [_r(100 * r.rate_a) if r.rate_a is not None else None,
                                       _r(100 * r.rate_b) if r.rate_b is not None else None]
        add("Table 17", f"{sc} A4 / A2p not-amplified %", ours, [float(x) for x in t17[sc]],
            ok=ours is not None and ours == [float(x) for x in t17[sc]])
    add("Table 17", "BH-FDR rejected / tested", f"{summary['fdr']['rejected']}/{summary['fdr']['tested']}",
        f"{t17['fdr_rejected']}/{t17['fdr_tested']}")


def render_reproduce(rows: list[dict], synthetic: bool) -> str:
    n_match = sum(r["status"].startswith("match") for r in rows)
    n_mc = sum(r["status"].startswith("match within") for r in rows)
    n_diff = sum(r["status"] == "differs" for r in rows)
    n_other = len(rows) - n_match - n_diff
    lines = ["# Reproduction of the Proof-or-Stop powered ablation (Tables 11, 13, 17)\n",
             f"{n_match} match ({n_mc} of them within Monte Carlo error), {n_diff} differ, {n_other} not "
             f"checkable. Published values: `analysis/published/{PUBLISHED.name}`. Methods as in report.md "
             "(Wilson 95% for single rates; H1/H2 with the paper's own scheme, a paired percentile cluster "
             f"bootstrap over task x scenario clusters, B = {PAPER_SCHEME['B']} unless --B; Fisher + BH per "
             "scenario). A bootstrap endpoint counts as a match when it is within 2 Monte Carlo s.e. (shown "
             f"as mcse_pp in reproduce.json) plus {ROUNDING_PP} pp rounding of the published value.\n"]
    if synthetic:
        lines.append("\n**These records are synthetic**: they carry the paper's published counts, with the "
                     "placement of events across tasks, scenarios and repeats partly assumed. Counts, "
                     "rates and point estimates are determined by the counts; bootstrap intervals depend on "
                     "the unknown placement and are shown but not compared.\n")
    lines.append("\n| table | item | ours | published | status |\n|---|---|---|---|---|\n")
    for r in rows:
        ours = r["ours"]
        if r.get("mcse_pp") is not None:
            ours = f"{ours} (MC s.e. of endpoints {r['mcse_pp'][0]:.3f}, {r['mcse_pp'][1]:.3f} pp)"
        lines.append(f"| {r['table']} | {r['item']} | {ours} | {r['published']} | {r['status']} |\n")
    return "".join(lines)


def reproduce_paper(records: str | Path, out: str | Path, seed: int | None = None, B: int | None = None,
                    on_conflict: str = "error", figures: bool = True) -> tuple[list[dict], str]:
    from analysis.pipeline import analyze

    summary = analyze(records, out, seed=seed, B=B if B is not None else PAPER_SCHEME["B"],
                      on_conflict=on_conflict, figures=figures, cluster=PAPER_SCHEME["cluster"],
                      interval=PAPER_SCHEME["interval"])
    synthetic = summary["input"]["engines"] == [SYNTHETIC_ENGINE]
    rows = compare(summary, load_published(), synthetic)
    text = render_reproduce(rows, synthetic)
    out = Path(out)
    (out / "reproduce.md").write_text(text)
    (out / "reproduce.json").write_text(json.dumps({"synthetic": synthetic, "rows": rows}, indent=2) + "\n")
    return rows, text
