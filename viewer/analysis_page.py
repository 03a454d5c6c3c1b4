"""The analysis report as a page of the site: ``harness analyze``'s report.md (hypotheses, per-arm
table, per-scenario tests, task concentration, coverage) rendered to HTML, with its figures
placed beside the sections they belong to. The numbers are the analysis's own: this page renders
its outputs and computes nothing.

Raw outputs (summary.json, report.md, per-scenario.csv) are copied beside the page so the report
folder stays self-contained.
"""
from __future__ import annotations

import re
from pathlib import Path

from markdown_it import MarkdownIt

from harness.core import runio
from harness.core.errors import InputError
from viewer.page import esc, shell

RAW = ("summary.json", "report.md", "per-scenario.csv", "analysis.tidy.csv")
# which section a figure belongs beside (first heading containing the word); otherwise the Figures section
PLACES = (("forest", "per-scenario"), ("per_scenario", "per-scenario"), ("ladder", "per-arm"),
          ("completion", "per-arm"), ("concentration", "task concentration"))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def _sections(md: str) -> list[tuple[str, str]]:
    """[(heading, markdown body)] split at level-2 headings; the part before the first is ('', ...)."""
    out: list[tuple[str, str]] = []
    head, buf = "", []  # type: str, list[str]
    for line in md.splitlines():
        if line.startswith("## "):
            out.append((head, "\n".join(buf)))
            head, buf = line[3:].strip(), []
        else:
            buf.append(line)
    out.append((head, "\n".join(buf)))
    return out


def write_analysis(analysis_dir: Path, out: Path, run_label: str) -> Path:
    """Write out/analysis.html from an analysis output directory (report.md, figures/)."""
    analysis_dir = Path(analysis_dir)
    report = analysis_dir / "report.md"
    if not runio.regular_or_absent(report, "report.md"):  # a FIFO or a link there: named as what it is
        raise InputError(str(analysis_dir), "report.md", "not an analysis output directory "
                         "(expected report.md and summary.json, as `harness analyze --out` writes)")
    dest = out / "analysis"
    dest.mkdir(parents=True, exist_ok=True)
    for name in RAW:
        if (analysis_dir / name).is_file():
            runio.write_staged(dest / name, runio.read_bytes(analysis_dir / name, name))
    figs = []
    if (analysis_dir / "figures").is_dir():
        (dest / "figures").mkdir(exist_ok=True)
        for svg in sorted((analysis_dir / "figures").glob("*.svg")):
            runio.write_staged(dest / "figures" / svg.name, runio.read_bytes(svg, "figure"))
            figs.append(svg.name)
    md = MarkdownIt("commonmark", {"html": False}).enable("table")  # raw HTML in the markdown is escaped
    sections = _sections(runio.read_text(report, "report.md"))
    placed: dict[int, list[str]] = {}
    for name in figs:
        target = next((i for i, (h, _) in enumerate(sections) for key, where in PLACES
                       if key in name.lower() and where in h.lower()), None)
        if target is None:
            target = next((i for i, (h, _) in enumerate(sections) if h.lower().startswith("figures")), len(sections) - 1)
        placed.setdefault(target, []).append(name)
    toc, body = [], []
    for i, (head, text) in enumerate(sections):
        if head.lower().startswith("figures"):
            text = ""  # the list of file names is replaced by the figures themselves
        if head:
            sid = _slug(head)
            toc.append(f'<a href="#{esc(sid)}">{esc(head)}</a>')
            body.append(f'<h2 id="{esc(sid)}">{esc(head)}</h2>')
        body.append(md.render(text))
        for name in placed.get(i, []):
            body.append(f'<figure><img src="analysis/figures/{esc(name)}" alt="{esc(name)}">'
                        f"<figcaption>{esc(name)}</figcaption></figure>")
    raw = " · ".join(f'<a href="analysis/{esc(n)}">{esc(n)}</a>' for n in RAW if (dest / n).is_file())
    page = (f'<div class="analysis"><p class="note">Rendered from <code>{esc(report)}</code> '
            f"(the output of <code>harness analyze</code>; its numbers are not recomputed here). Raw outputs: {raw}</p>"
            f'<p class="toc">{"".join(toc)}</p>{"".join(body)}</div>')
    path = out / "analysis.html"
    runio.write_staged(path, shell("Analysis", page, page="analysis", run_label=run_label, analysis=True,
                          scripts=("assets/viewer.js",)))
    return path
