"""Write the report: a folder of HTML, CSS, JS and SVG that opens from the file system (file://)
or from any static server, with no network access.

Layout of the output folder:
  index.html        the overview (static HTML: readable without JavaScript)
  cells.html        the cell list and the matched-units view (filters and sorting in the browser)
  cell.html#KEY     one cell's page: timeline, diff, transcript, adjudication, cost
  analysis.html     the analysis report, when analysis outputs are given (viewer/analysis_page.py)
  assets/           the stylesheet and the script (package data, no CDN)
  data/index.js     the cell list's rows; data/cells/<cell>.js each cell page's data
  figures/          the overview's SVG figures

Data are JavaScript files that call ``HX.load(kind, data)`` and are loaded by <script> tags,
because a page opened from file:// cannot fetch() JSON in Chromium. Each cell's data loads only
when its page is opened, so a 9,240-cell run's list loads one file of rows.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from harness.core import runio
from harness.core.errors import ExitCode, InputError
from harness.core.record import CellRecord
from viewer import celldata, overview
from viewer.page import shell
from viewer.rundir import RunDir, load_run

NOSCRIPT = "<noscript>This page needs JavaScript (it loads nothing from the network: every file is in this folder).</noscript>"
OWNED = ("assets", "data", "figures", "analysis", "index.html", "cells.html", "cell.html", "analysis.html")
MARKER = ".harness-view"  # written into every report folder: only a folder holding it is ever cleared


@dataclass
class Built:
    index: Path
    cells: int
    in_flight: int
    seconds: float
    analysis: bool
    ledger_problems: list[str] = field(default_factory=list)  # why the run's records ledger does not verify


def _js(kind: str, data) -> str:
    # ensure_ascii: no raw U+2028/U+2029 or other surprises inside the script; the data stay inert JSON
    return f"HX.load({json.dumps(kind)}, {json.dumps(data, ensure_ascii=True, default=str)});\n"


def _copy_assets(out: Path) -> None:
    dest = out / "assets"
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("viewer.css", "viewer.js"):
        runio.write_staged(dest / name, resources.files("viewer").joinpath("static", name).read_bytes())


def _is_report(out: Path) -> bool:
    """Whether out holds a report harness view wrote (its marker, or the files every report has)."""
    return (out / MARKER).is_file() or all((out / n).is_file() for n in ("cells.html", "assets/viewer.js", "data/index.js"))


def _check_out(out: Path) -> None:
    """A non-empty folder that is not a report (the run directory, a project folder with analysis/
    or figures/) is refused: its files are someone's results, never the report's to replace. A
    report is rebuilt aside and its own paths (``OWNED``) replaced only when the new one is whole
    (``runio.staged_dir``): a full disk leaves the old report, never a half-written one."""
    if out.is_dir() and any(out.iterdir()) and not _is_report(out):
        raise InputError(str(out), "--out", "not empty and not a report written by harness view; "
                         "give a new or empty folder (the default is RUN/report)")


def _stage(out: Path, rerun: str):
    _check_out(out)
    return runio.staged_dir(out, rerun, ExitCode.BAD_INPUT, owned=(*OWNED, MARKER))


def _start(stage: Path) -> None:
    runio.write_staged(stage / MARKER, "a report written by `harness view`; rebuilding it replaces its own files only\n")
    _copy_assets(stage)


def run_label(run: RunDir) -> str:
    return f"{run.meta.protocol} · {run.meta.run_id} · {len(run.records)} cells"


def build(run_dir: Path, out: Path, analysis_dir: Path | None = None, workers: int = 4) -> Built:
    """Write the report of the run in run_dir into out (built aside, then put in place). Returns what was written."""
    t0 = time.perf_counter()
    run = load_run(Path(run_dir))
    out = Path(out)
    with _stage(out, f"harness view {run_dir} --out {out}") as stage:
        has_analysis = _write_pages(run, stage, analysis_dir, workers)
    latest = {r.cell_key for r in run.records}
    return Built(out / "index.html", len(latest), len(run.in_flight), time.perf_counter() - t0, has_analysis,
                 run.ledger_problems)


def _write_pages(run: RunDir, out: Path, analysis_dir: Path | None, workers: int) -> bool:
    _start(out)
    label = run_label(run)
    has_analysis = False
    if analysis_dir is not None:
        from viewer.analysis_page import write_analysis
        write_analysis(Path(analysis_dir), out, label)
        has_analysis = True

    runio.write_staged(out / "index.html", shell(f"Run {run.meta.protocol}", overview.render(run, out / "figures"),
                                                 page="overview", run_label=label, analysis=has_analysis))

    latest = {r.cell_key: r for r in run.records}  # one record per key; a duplicate's last line wins
    cells_dir = out / "data" / "cells"
    cells_dir.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[str, Path, CellRecord | None]] = [(k, run.events_file(k), r) for k, r in latest.items()]
    jobs += [(k, ev, None) for k, ev in run.in_flight.items() if k not in latest]
    rows = [celldata.list_row(r, celldata.page_name(ev)) if r else celldata.in_flight_row(k, celldata.page_name(ev))
            for k, ev, r in jobs]

    voided = celldata.voided_transcripts(run.path)

    def write_cell(job) -> None:
        k, ev, r = job
        data = celldata.page_data(run.path, k, ev, r, voided)
        runio.write_staged(cells_dir / f"{celldata.page_name(ev)}.js", _js("cell", data))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:  # file I/O and zlib release the GIL
        list(pool.map(write_cell, jobs))

    index = {"columns": celldata.COLUMNS, "rows": rows, "arms": run.arms, "label": label,
             "protocol": run.meta.protocol, "run_id": run.meta.run_id,
             "planned": run.planned, "in_flight": len(run.in_flight),
             "generated": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
    runio.write_staged(out / "data" / "index.js", _js("index", index))
    scripts = ("assets/viewer.js", "data/index.js")
    runio.write_staged(out / "cells.html", shell("Cells", NOSCRIPT + '<div id="app" class="loading">Loading the cell '
                                                 'list...</div>', page="cells", run_label=label,
                                                 analysis=has_analysis, scripts=scripts))
    runio.write_staged(out / "cell.html", shell("Cell", NOSCRIPT + '<div id="app" class="loading">Loading the cell...</div>',
                                                page="cell", run_label=label, analysis=has_analysis, scripts=scripts))
    return has_analysis


def build_analysis_only(analysis_dir: Path, out: Path) -> Path:
    """A report of an analysis alone (records from elsewhere, no run directory): its index is the analysis page."""
    from viewer.analysis_page import write_analysis
    out = Path(out)
    with _stage(out, f"harness view {analysis_dir} --out {out}") as stage:
        _start(stage)
        page = write_analysis(Path(analysis_dir), stage, f"analysis of {Path(analysis_dir).name}")
        runio.write_staged(stage / "index.html", runio.read_text(page, "analysis page"))
    return out / "index.html"
