"""The page of a comparison (``harness compare --out DIR``): DIR/compare.html, the Markdown
tables of ``analysis.compare_render`` as a static page in the viewer's style and
Content-Security-Policy, drawn when the comparison is written and again by ``harness view DIR``.

It lives in the viewer, above ``analysis``: the comparison and its text outputs are the analysis's,
the page and its stylesheet the viewer's (``analysis`` imports nothing of the viewer)."""
from __future__ import annotations

import html
import os
from importlib import resources
from pathlib import Path
from typing import Any

from analysis.compare import CompareError
from analysis.compare_render import render_md, write_figure
from analysis.compare_render import write_all as write_files
from harness.core import runio
from harness.core.statefile import write_atomic
from viewer.page import CSP, esc, table


def write_page(r: dict[str, Any], md: str, out: Path, runs: list[Path]) -> Path:
    """DIR/compare.html: the Markdown tables as a static page under the viewer's CSP and style
    (the stylesheet copied beside it), linking the figure and each run's `harness view` report."""
    (out / "assets").mkdir(exist_ok=True)
    # the package's own stylesheet, atomically: `harness view DIR` redraws the page in DIR itself (not staged)
    write_atomic(out / "assets" / "viewer.css", resources.files("viewer").joinpath("static", "viewer.css").read_bytes())
    body = [f"<h1>{esc(r['labels']['a'])} vs {esc(r['labels']['b'])}</h1>",
            '<p><img src="compare.png" alt="paired matrices"></p>']
    for run in runs:
        # a run's report lives in RUN/report (harness view's default)
        body.append(f'<p>Run report: <a href="{esc(_relpath(run / "report" / "index.html", out))}">{esc(run)}</a></p>')
    body.append(_md_to_html(md))
    page = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
            f'<title>compare</title><link rel="icon" href="data:,"><link rel="stylesheet" href="assets/viewer.css">'
            f'</head><body data-page="compare"><header><span class="brand">proof-harness</span>'
            f'<span class="run">compare</span><nav><a href="compare.md">compare.md</a>'
            f'<a href="compare.json">compare.json</a></nav></header><main>{"".join(body)}</main></body></html>\n')
    path = out / "compare.html"
    write_atomic(path, page)
    return path


def _relpath(target: Path, start: Path) -> str:
    return os.path.relpath(target.resolve(), start.resolve())


def _md_to_html(md: str) -> str:
    """The compare.md subset (headings, pipe tables, paragraphs, list items) as escaped HTML: the
    entities ``_md_text`` wrote are read back, then everything is escaped once."""
    def text(md_text: str) -> str:
        return esc(html.unescape(md_text))

    out: list[str] = []
    rows: list[list[str]] = []
    for line in md.split("\n") + [""]:
        if line.startswith("|"):
            if not line.startswith("|---"):
                rows.append([c.strip() for c in line.strip("|").split(" | ")])
            continue
        if rows:
            out.append(table([text(h) for h in rows[0]], [[text(c) for c in row] for row in rows[1:]]))
            rows = []
        if line.startswith("#"):
            level = min(len(line) - len(line.lstrip("#")), 3)
            out.append(f"<h{level}>{text(line.lstrip('# '))}</h{level}>")
        elif line.strip():
            out.append(f"<p>{text(line.strip().lstrip('- ').replace('**', ''))}</p>")
    return "".join(out)


def write_all(r: dict[str, Any], out: Path, runs: list[Path], figure: bool = True) -> str:
    """compare.md, compare.json, compare.png and (for run directories) compare.html; returns the Markdown."""
    md = write_files(r, out, figure)
    if figure:
        write_page(r, md, out, runs)
    return md


def rebuild_page(out: Path) -> Path:
    """`harness view DIR` on a `harness compare --out DIR`: the page (and a missing figure) drawn
    again from DIR/compare.json; the run reports linked are those of the inputs that are still run
    directories. A compare.json not written by `harness compare` is a one-line error."""
    path = out / "compare.json"
    try:  # a FIFO or a link refused; malformed, nested past MAX_DEPTH, or an integer past 4,300 digits
        r = runio.read_json(path, "compare.json")
    except (OSError, runio.UnsafeFile) as exc:
        raise CompareError(f"{path}: not valid JSON ({exc})") from exc
    try:  # the tables and the figure read every field they draw: damage anywhere is named here
        md = render_md(r)
        sources = [r["completeness"][side]["source"] for side in ("a", "b")]
        runs = [Path(src) for src in sources if isinstance(src, str) and (Path(src) / "run.json").is_file()]
        if not (out / "compare.png").is_file():
            write_figure(r, out / "compare.png")
    except (KeyError, TypeError, AttributeError, IndexError, StopIteration, ValueError, ArithmeticError) as exc:
        raise CompareError(f"{path}: not a comparison written by `harness compare` "
                           f"({type(exc).__name__}: {exc})") from exc
    return write_page(r, md, out, runs)
