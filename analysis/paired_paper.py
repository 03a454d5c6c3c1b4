"""The Proof-or-Stop paper's paired Cell03/Cell06 readout (Appendix B, Tables 24-28) beside ours.

``PUBLISHED`` holds the printed values (Table 24 completeness, Table 25 native outcomes, Table 26
paired matrix with full precision, Table 27 exact subclasses, Table 28 token usage; the no-review
control is side A, the Proof-or-Stop gated run side B). ``synthetic_paired_records`` writes a pair
of records files built to those counts (the released per-cell records are not bundled; the
allocation of subclasses to task, scenario and repeat and the per-row token split are assumed, the
totals are the paper's). ``reproduce_paired`` runs ``analysis.compare`` on any pair of records
files and lists every published value beside ours.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from analysis.compare import Options, compare
from analysis.paper import SCENARIOS, TASKS
from harness.core import runio
from harness.core.errors import ExitCode

REPEATS = 3  # 24 tasks x 16 scenarios x 3 repeats = the paper's 1,152 cells
LABELS = ("No-review control", "Proof-or-Stop gated run")
# Table 27: (control outcome, gated outcome) -> count; the control's "failed terminal outcome" is
# written as acceptance_fail (shipped, visible test red), the gated safe-stop as safe_stop.
SUBCLASSES = {("completed", "recovered"): 971, ("completed", "completed"): 66, ("completed", "safe_stop"): 106,
              ("acceptance_fail", "completed"): 2, ("acceptance_fail", "recovered"): 3,
              ("acceptance_fail", "safe_stop"): 4}
EXTRA_ROWS = (25, 45)  # Table 24: extra audit receipt rows
# Table 28 token totals: control input 57,199,341 of which 46,874,624 cached; output by difference
CONTROL_TOKENS = {"tokens_in": 57_199_341 - 46_874_624, "cache_read_tokens": 46_874_624,
                  "tokens_out": 58_173_502 - 57_199_341}
GATED_TOKENS = {"tokens_in": 218_068_475, "tokens_out": 3_000_000}  # split assumed; the sum is the paper's
FLAGS = {"completed": (True, True, True), "recovered": (True, True, True), "safe_stop": (False, False, False),
         "acceptance_fail": (False, True, True)}  # outcome -> (visible_pass, hidden_pass, shipped)

PUBLISHED: dict[str, Any] = {
    "24": {"Planned cells": ("1,152", "1,152"), "Final / terminal cells": ("1,152", "1,152"),
           "Extra rows that are not cells": ("25", "45"), "Pending cells": ("0", "0"),
           "Contamination rows": ("0", "0"), "Reviewer evidence expected": ("no", "yes"),
           "Reviewer evidence observed": ("no", "yes")},
    "25": {"Completed directly": ("1,143", "68"), "Recovered (a failure seen, then shipped)": ("n/a", "974"),
           "Safe-stopped (not shipped)": ("n/a", "110"),
           "Failed terminal outcome (acceptance fail or unsafe)": ("9", "0"),
           "Completed/recovered total": ("1,143", "1,042"), "Stopped/failed total (not completed)": ("9", "110")},
    "26": [("1,037", "90.017361%"), ("106", "9.201389%"), ("5", "0.434028%"), ("4", "0.347222%")],
    "27": {("recovered", "completed"): "971", ("completed", "completed"): "66", ("safe_stop", "completed"): "106",
           ("completed", "acceptance_fail"): "2", ("recovered", "acceptance_fail"): "3",
           ("safe_stop", "acceptance_fail"): "4"},
    "28": {"Matched rows": ("1,152", "1,152"), "Input + output tokens": ("58,173,502", "221,068,475"),
           "Mean input + output tokens / row": ("50,497.8", "191,899.7"), "Token-usage ratio": ("1.00x", "3.80x"),
           "Incremental input + output tokens": ("n/a", "162,894,973"),
           "Cached input breakdown": ("46,874,624 / 57,199,341 input tokens (81.95%)", "not separately exposed")},
}


def _spread(total: int, n: int) -> list[int]:
    base, extra = divmod(total, n)
    return [base + (1 if i < extra else 0) for i in range(n)]


def _row(arm: str, controller: str, cell: tuple[str, str, int], outcome: str, tokens: dict[str, int | None],
         review_rounds: int, digest: str) -> dict[str, Any]:
    visible, hidden, shipped = FLAGS[outcome]
    task, scenario, repeat = cell
    return {"cell_key": f"{arm}|{task}|{scenario}|{repeat}", "arm": arm, "task": task, "scenario": scenario,
            "repeat": repeat, "outcome": outcome, "visible_pass": visible, "hidden_pass": hidden, "shipped": shipped,
            "wall_s": 0.0, "controller": controller, "review_rounds": review_rounds, "model_id": "gpt-5.5",
            "engine": "synthetic-paper-counts", "protocol_digest": digest, "schema_version": 2,
            "cache_write_tokens": None, "reasoning_tokens": None, **tokens}


def synthetic_paired_records(path_a: str | Path, path_b: str | Path) -> tuple[int, int]:
    """Write the control (A) and gated (B) records files to the paper's Appendix B counts."""
    cells = [(t, s, r) for t in TASKS for s in SCENARIOS for r in range(1, REPEATS + 1)]
    pairs = [p for p, k in SUBCLASSES.items() for _ in range(k)]
    assert len(cells) == len(pairs) == 1152
    n = len(cells)
    ta = {k: _spread(v, n) for k, v in CONTROL_TOKENS.items()}
    tb = {k: _spread(v, n) for k, v in GATED_TOKENS.items()}
    rows_a, rows_b = [], []
    for i, (cell, (oa, ob)) in enumerate(zip(cells, pairs)):
        rows_a.append(_row("cell06", "no-review", cell, oa, {k: v[i] for k, v in ta.items()}, 0, "cell06-protocol"))
        rows_b.append(_row("cell03", "A4", cell, ob, {**{k: v[i] for k, v in tb.items()}, "cache_read_tokens": None},
                           1, "cell03-protocol"))
    rows_a += rows_a[:EXTRA_ROWS[0]]  # audit receipt rows: repeats of cells already recorded
    rows_b += rows_b[:EXTRA_ROWS[1]]
    for path, rows in ((path_a, rows_a), (path_b, rows_b)):  # atomic: never an empty or partial file (exit 2)
        runio.write_atomic(path, "".join(json.dumps(r) + "\n" for r in rows),
                           f"harness reproduce synth-paired --out-a {path_a} --out-b {path_b}", ExitCode.BAD_INPUT)
    return len(rows_a), len(rows_b)


def ours(r: dict[str, Any]) -> dict[str, Any]:
    """Our values keyed like ``PUBLISHED``, formatted as the paper prints them."""
    from analysis.compare_render import _tokens_md, completeness_rows

    c24 = {row[0]: (row[1], row[2]) for row in completeness_rows(r["completeness"])[1]}
    c25 = {x["row"]: (x["shown"], y["shown"]) for x, y in zip(r["native"]["a"], r["native"]["b"])}
    c26 = [(f"{x['count']:,}", x["full"]) for x in r["completion_vs_delivery"]]
    c27 = {(s["b"], s["a"]): f"{s['count']:,}" for s in r["subclasses"]}
    t28 = {}
    for line in _tokens_md(r["tokens"], "a", "b")[2:]:
        if line.startswith("| "):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            t28[cells[0]] = (cells[1], cells[2])
    return {"24": c24, "25": c25, "26": c26, "27": c27, "28": t28}


def reproduce_paired(path_a: str | Path, path_b: str | Path, out: str | Path) -> tuple[list[dict], str]:
    """Tables 24-28 from two records files beside the published values; writes DIR/paired.md/.json
    and the comparison's own outputs (analysis.compare_render) under DIR/compare."""
    from analysis.compare_render import write_all

    r = compare(path_a, path_b, Options(label_a=LABELS[0], label_b=LABELS[1]))
    write_all(r, Path(out) / "compare", figure=False)
    mine = ours(r)
    rows = []
    for table in ("24", "25", "28"):
        for item, (pa, pb) in PUBLISHED[table].items():
            got = mine[table].get(item, ("missing", "missing"))
            rows += [_cmp(table, f"{item} ({LABELS[0]})", got[0], pa), _cmp(table, f"{item} ({LABELS[1]})", got[1], pb)]
    for i, (count, full) in enumerate(PUBLISHED["26"]):
        got = mine["26"][i]
        cell = r["completion_vs_delivery"][i]
        rows += [_cmp("26", f"{cell['row']} x {cell['col']} count", got[0], count),
                 _cmp("26", f"{cell['row']} x {cell['col']} rate", got[1], full)]
    for (ob, oa), count in PUBLISHED["27"].items():
        rows.append(_cmp("27", f"gated {ob} + control {oa}", mine["27"].get((ob, oa), "0"), count))
    text = _render(rows)
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "paired.md").write_text(text, encoding="utf-8")
    (Path(out) / "paired.json").write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return rows, text


def _cmp(table: str, item: str, ours_: str, published: str) -> dict[str, str]:
    return {"table": table, "item": item, "ours": ours_, "published": published,
            "status": "matches" if ours_ == published else "differs"}


def _render(rows: list[dict]) -> str:
    n_diff = sum(r["status"] == "differs" for r in rows)
    lines = ["# Proof-or-Stop Appendix B, Tables 24-28 (paired Cell03/Cell06 readout)", "",
             "| Table | Item | Ours | Published | Status |", "|---|---|---|---|---|"]
    lines += [f"| {r['table']} | {r['item']} | {r['ours']} | {r['published']} | {r['status']} |" for r in rows]
    lines += ["", f"{len(rows) - n_diff} of {len(rows)} published values match; {n_diff} differ."]
    return "\n".join(lines) + "\n"
