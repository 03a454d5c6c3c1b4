"""Rendering of a comparison (analysis.compare): Markdown (printed and DIR/compare.md), the JSON
(DIR/compare.json) and a figure of the paired matrices (DIR/compare.png, matplotlib Agg). The static
page beside them (DIR/compare.html) is the viewer's (``viewer.compare_page``)."""
from __future__ import annotations

import io
import json
import math
import unicodedata
from pathlib import Path
from typing import Any

from harness.core.statefile import write_atomic

_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;"}


def _md_text(text: str) -> str:
    """``text`` as one line of Markdown that shows as written: a line break or other control
    character (a run label, an arm or a model name from a producer's records) is a space, so it
    cannot start a heading, list item or table row; '&', '<', '>', '[' and ']' are entities, so a
    label cannot put HTML, a link or an image into compare.md (``viewer.compare_page._md_to_html`` reads them back
    before escaping)."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else _ENTITIES.get(ch, ch) for ch in text)


def _md_safe(x: Any) -> Any:
    """Every string of a comparison (keys too) through ``_md_text``; numbers and the rest unchanged."""
    if isinstance(x, str):
        return _md_text(x)
    if isinstance(x, dict):
        return {_md_safe(k): _md_safe(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_md_safe(v) for v in x]
    return x


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    def line(cells: list[str]) -> str:  # a '|' inside a label (a run's name) would split its cell
        return "| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |"
    return [line(header), "|" + "---|" * len(header)] + [line(r) for r in rows]


def _p(x: float | None, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x:.{digits}g}"


def _p_value(mc: dict[str, Any]) -> str:
    """'p = 0.25'; a p below double precision (0.0 as a float) from its log10, never 'p = 0'."""
    if mc["p"] or mc.get("p_log10") is None:
        return f"p = {_p(mc['p'])}"
    e = math.floor(mc["p_log10"])
    return f"p = {10 ** (mc['p_log10'] - e):.2g}e{e} (below double precision; log10 p = {mc['p_log10']:.2f})"


def _pp(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.2f} pp"


def completeness_rows(c: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    a, b = c["a"], c["b"]
    rows = [["Planned cells", f"{a['planned']:,}", f"{b['planned']:,}"],
            ["Final / terminal cells", f"{a['terminal']:,}", f"{b['terminal']:,}"],
            ["Pending cells", f"{a['pending']:,}", f"{b['pending']:,}"],
            ["Extra rows that are not cells", f"{a['extra_rows']:,}", f"{b['extra_rows']:,}"],
            ["Contamination rows", f"{a['contamination_rows']:,}", f"{b['contamination_rows']:,}"]]
    rows += [[f"  of which {k}", f"{a['contamination'][k]:,}", f"{b['contamination'][k]:,}"] for k in a["contamination"]]
    rows.append(["Torn last line (being written; not read)", f"{a['torn_last_line']:,}", f"{b['torn_last_line']:,}"])
    rows += [["Reviewer evidence expected", a["reviewer_expected"], b["reviewer_expected"]],
             ["Reviewer evidence observed", a["reviewer_observed"], b["reviewer_observed"]],
             ["Planned from", a["planned_from"], b["planned_from"]],
             ["Record schema versions", ", ".join(map(str, a["schema_versions"])),
              ", ".join(map(str, b["schema_versions"]))]]
    return ["Metric", a["label"], b["label"]], rows


def render_md(r: dict[str, Any]) -> str:
    """Every table, with counts, full-precision rates beside display rounding, and the wording;
    every string from the inputs is one line of text (``_md_safe``)."""
    r = _md_safe(r)
    la, lb = r["labels"]["a"], r["labels"]["b"]
    c = r["completeness"]
    out = [f"# Paired comparison: {la} (rows) vs {lb} (columns)", "",
           f"Joined on {', '.join(r['key'])}. {c['matched']:,} matched pairs; excluded: "
           + ", ".join(f"{v:,} {k}" for k, v in c["excluded"].items()) + ".", "",
           *([c["no_match_hint"], ""] if c.get("no_match_hint") else []),
           *([f"{la} and {lb} are the same input ({c['a']['source']}): every pair agrees by construction.", ""]
             if c.get("same_input") else []), r["wording"], "",
           "## Execution completeness (Table 24)", ""]
    out += _md_table(*completeness_rows(c))
    out += ["", "## Native outcomes before pairing (Table 25)", "",
            "Over each side's terminal planned cells (not only the matched pairs).", ""]
    out += _md_table(["Outcome", la, lb], [[x["row"], x["shown"], y["shown"]]
                                           for x, y in zip(r["native"]["a"], r["native"]["b"])])
    out += ["", f"## Paired matrix: {la} terminal status x {lb} delivery decision (Tables 12 and 26)", "",
            "Full-precision rates of each matrix and of the subclasses are apportioned by largest remainder in "
            "millionths of a percent, so that they sum to exactly 100% before display rounding.", ""]
    out += _matrix_md(r["completion_vs_delivery"], la, lb)
    out += _adjudicated_md(r)
    out += ["", "## Paired matrix over delivery (shipped x shipped)", ""]
    out += _matrix_md(r["delivery"], la, lb)
    out += ["", f"## Paired matrix over outcomes (rows {la}, columns {lb})", ""]
    outs = r["outcomes"]
    cols = list(next(iter(outs.values()), {}))
    out += _md_table([f"{la} \\ {lb}", *cols], [[oa, *(f"{outs[oa][ob]:,}" for ob in cols)] for oa in outs])
    out += ["", "## Exact paired subclasses (Table 27)", ""]
    out += _md_table(["Exact pair", "Count", "Rate (full precision)", "Rate (display)"],
                     [[s["pair"], f"{s['count']:,}", s["full"], s["display"]] for s in r["subclasses"]])
    out += ["", "## Tests on the paired data", ""] + _tests_md(r["tests"], la, lb)
    out += ["", "## Token usage (Table 28)", ""] + _tokens_md(r["tokens"], la, lb)
    return "\n".join(out) + "\n"


def _adjudicated_md(r: dict[str, Any]) -> list[str]:
    """The adjudicated divergence (analysis.adjudicated) and the token-convention warnings; nothing for a
    compare.json written before them."""
    adj = r.get("adjudicated")
    out: list[str] = []
    if adj is not None:
        out += ["", "## Adjudicated divergence (hidden oracle)", ""]
        if adj["status"] != "ok":
            out.append(f"Not adjudicated: {adj['status']} ({adj['criterion']}). The caveat above stands: a stop in "
                       "the matrix is not a verdict that the stopped artifact was wrong.")
        else:
            out.append("Both runs carry a hidden-oracle verdict on every matched row, so each off-diagonal cell's "
                       "refusals split by the refusing run's verdict on its own final tree: refused and wrong = a wrong "
                       "delivery avoided; refused and right = a false stop (Eq. 7). Shares over the cell, Wilson 95%.")
            out.append("")
            rows = [[d["cell"], f"{d['n']:,}", d["wrong_delivery_avoided"]["shown"], d["false_stop"]["shown"],
                     d["tokens"]["shown"]] for d in adj["directions"]]
            out += _md_table(["Off-diagonal cell", "Cells", "Wrong delivery avoided", "False stop",
                              "Tokens per wrong delivery avoided"], rows)
            beside = [d["beside"] for d in adj["directions"] if "beside" in d]
            if beside:
                out += ["", "Beside the matrix (its diagonal): the other run shipped a tree its hidden oracle fails "
                        "(amplified) and this run did not deliver; split the same way.", ""]
                out += _md_table(["Diagonal cell", "Cells", "Wrong delivery avoided", "False stop"],
                                 [[b["cell"], f"{b['n']:,}", b["wrong_delivery_avoided"]["shown"],
                                   b["false_stop"]["shown"]] for b in beside])
    for w in r.get("token_convention") or []:
        out += ["", w["text"]]
    return out


def _matrix_md(cells: list[dict[str, Any]], la: str, lb: str) -> list[str]:
    rows = [[x["row"], x["col"], f"{x['count']:,}", x["full"], x["display"]] for x in cells]
    n = sum(x["count"] for x in cells)
    total = _full_sum(cells) if n else "n/a (no matched cells)"
    rows.append(["Total", "", f"{n:,}", total, "100.0%" if n else "n/a"])
    return _md_table([la, lb, "Count", "Rate (full precision)", "Rate (display)"], rows)


def _full_sum(cells: list[dict[str, Any]]) -> str:
    """The sum of the printed full-precision rates, added in exact decimals (never hard-coded)."""
    from decimal import Decimal

    return f"{sum(Decimal(x['full'].rstrip('%')) for x in cells):.6f}%"


def _tests_md(tests: list[dict[str, Any]], la: str, lb: str) -> list[str]:
    from analysis.summary import PairedTest

    out = []
    for t in map(PairedTest.from_json, tests):
        nc, cl, mc = t.newcombe, t.cluster, t.mcnemar
        out.append(f"- **{t.endpoint}**: estimand {t.estimand}. Discordant pairs: "
                   f"{t.b_yes_a_no:,} ({lb} yes, {la} no) and {t.a_yes_b_no:,} ({la} yes, {lb} no) of {t.n:,}.")
        out.append(f"  - {mc['method']}: " + (_p_value(mc) if mc["status"] == "ok" else f"p = {mc['status']}"))
        out.append(f"  - {nc['method']}: {_pp(nc['estimate'])} [{_pp(nc['lo'])}, {_pp(nc['hi'])}]"
                   + ("" if nc["status"] == "ok" else f" ({nc['status']})"))
        out.append(f"  - {cl['method']['interval']} paired cluster interval ({cl['estimand']}): "
                   f"{_pp(cl['estimate'])} [{_pp(cl['lo'])}, {_pp(cl['hi'])}] ({cl['status']})"
                   + "".join(f"; warning: {w}" for w in cl["warnings"]))
    return out


def _tokens_md(t: dict[str, Any], la: str, lb: str) -> list[str]:
    from analysis.compare import NO_ROWS, USAGE_FIELDS
    from analysis.summary import TokenSide

    a, b = TokenSide.from_json(t["a"], USAGE_FIELDS), TokenSide.from_json(t["b"], USAGE_FIELDS)

    def io(s: TokenSide) -> str:
        return f"{s.io:,}" if s.io is not None else "not exposed" if s.rows else NO_ROWS

    def mean(s: TokenSide) -> str:  # exact, half up (compare.fixed); a compare.json of before it: the float
        return s.io_mean_shown or ("n/a" if s.io_mean is None else f"{s.io_mean:,.1f}")

    rows = [["Provider/model label", a.model, b.model],
            ["Matched rows", f"{a.rows:,}", f"{b.rows:,}"],
            ["Rows with usage", f"{a.io_rows:,}", f"{b.io_rows:,}"],
            ["Input + output tokens", io(a), io(b)],
            ["Mean input + output tokens / row", mean(a), mean(b)],
            ["Token-usage ratio", "1.00x" if t["ratio"] is not None else "n/a", t["ratio_shown"]],
            ["Incremental input + output tokens", "n/a", "n/a" if t["increment"] is None else f"{t['increment']:,}"],
            ["Cached input breakdown", a.cached_share["shown"], b.cached_share["shown"]]]
    rows += [[f"{col.value} (summed over rows reporting it)", a.usage[col]["shown"], b.usage[col]["shown"]]
             for col in USAGE_FIELDS]
    cost = t["cost"]
    rows.append(["Cost (USD)", *((f"{cost['a']:.4f}", f"{cost['b']:.4f}") if "a" in cost else (cost["status"], ""))])
    full = "" if t["ratio"] is None else f" Ratio at full precision: {t['ratio']:.6f}."
    full += f" Note: {t['model_note']}." if t.get("model_note") else ""
    return _md_table(["Metric", la, lb], rows) + [
        "", f"Semantics: {t['semantics']} (tokens_in is uncached input; the cached parts are added once; reasoning "
            f"tokens are part of the output). Ratio and increment over the {t['pairs_with_usage']:,} of {t['pairs']:,} "
            f"pairs where both sides report usage.{full} Descriptive: not a dollar-cost estimate, not cost-benefit "
            "evidence, not an isolated estimate of review overhead."]


def write_figure(r: dict[str, Any], path: Path) -> None:
    """The completion-vs-delivery and outcome x outcome matrices as annotated heatmaps."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    la, lb = r["labels"]["a"], r["labels"]["b"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    cells = r["completion_vs_delivery"]
    grid = [[cells[0]["count"], cells[1]["count"]], [cells[2]["count"], cells[3]["count"]]]
    _heat(axes[0], grid, [cells[0]["row"], cells[2]["row"]], [cells[0]["col"], cells[1]["col"]],
          [[cells[0]["full"], cells[1]["full"]], [cells[2]["full"], cells[3]["full"]]])
    axes[0].set_title("Terminal status x delivery decision")
    outs = r["outcomes"]
    cols = list(next(iter(outs.values()), {}))
    _heat(axes[1], [[outs[a][b] for b in cols] for a in outs] or [[0]], list(outs) or ["-"], cols or ["-"], None)
    axes[1].set_title(_plain(f"Outcomes: {la} (rows) x {lb} (columns)"))
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    write_atomic(path, buf.getvalue())  # a kill mid-write leaves no torn figure


FIGURE_TEXT = 120  # characters of one text in the figure (compare.md and compare.json keep labels whole)


def _plain(text: str) -> str:
    """Text drawn as written: a '$' in a run label or arm name would start matplotlib mathtext
    (and '$\\frac$' is a parse error that aborts the figure). At most FIGURE_TEXT characters: laying
    out an arm name of 200,000 characters took matplotlib about two minutes."""
    text = str(text)
    text = text if len(text) <= FIGURE_TEXT else text[:FIGURE_TEXT - 1] + "\u2026"
    return text.replace("$", r"\$")


def _heat(ax, grid, rows, cols, notes) -> None:
    ax.imshow(grid, cmap="Blues")
    ax.set_xticks(range(len(cols)), [_plain(c) for c in cols], rotation=20, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [_plain(r) for r in rows], fontsize=8)
    hi = max(max(row) for row in grid) or 1
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            text = f"{v:,}" + (f"\n{notes[i][j]}" if notes else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if v > hi / 2 else "black")


def write_all(r: dict[str, Any], out: Path, figure: bool = True) -> str:
    """compare.md, compare.json and compare.png; returns the Markdown. The page beside them
    (compare.html, in the viewer's style) is the viewer's: ``viewer.compare_page.write_all`` writes
    these files and the page."""
    out.mkdir(parents=True, exist_ok=True)
    md = render_md(r)
    for stale in ("compare.png", "compare.html"):  # a previous comparison's: never left beside this one's
        (out / stale).unlink(missing_ok=True)
    link = "\n[The page](compare.html) and [the figure](compare.png) show the same tables.\n" if figure else ""
    # replaced by rename (harness.core.statefile.write_atomic): a kill or a full disk mid-write
    # leaves the previous file whole, never a torn compare.json that `harness view` cannot read
    write_atomic(out / "compare.md", md + link)
    write_atomic(out / "compare.json", json.dumps(r, indent=2, default=str) + "\n")
    if figure:
        write_figure(r, out / "compare.png")
    return md
