"""``harness view``: write the static report of a run directory (and/or an analysis's outputs)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.core import runio
from harness.core.errors import ExitCode, InputError


def register(group: click.Group) -> None:
    group.add_command(view_cmd)


@click.command("view")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="report folder to write (default: RUN/report)")
@click.option("--analysis", "analysis_dir", type=click.Path(exists=True, file_okay=False), default=None,
              help="`harness analyze --out` folder to add as the Analysis page (default: RUN/analysis if it has report.md)")
@click.option("--workers", type=click.IntRange(min=1), default=4, show_default=True, help="threads writing cell pages")
def view_cmd(run, out, analysis_dir, workers):
    """Write a static HTML report of RUN: overview, cell list, one page per cell (works on a run in
    progress; open DIR/index.html from disk or serve DIR with any static server). RUN may also be
    an analysis output folder alone, or a `harness compare --out` folder (its page, from compare.json)."""
    from viewer.rundir import ledger_warning
    from viewer.site import build, build_analysis_only
    run = Path(run)
    if not (run / "run.json").is_file() and (run / "compare.json").is_file():
        if out or analysis_dir:  # the page links compare.md/json beside it: it is written in RUN
            click.echo("error: a compare folder's page is written beside its compare.json; drop --out/--analysis",
                       err=True)
            sys.exit(2)
        _view_compare(run)
        return
    out = Path(out) if out else run / "report"
    if analysis_dir is None and (run / "analysis" / "report.md").is_file():
        analysis_dir = run / "analysis"
    try:
        if not (run / "run.json").is_file() and (run / "report.md").is_file():
            index = build_analysis_only(run, out)
            click.echo(f"analysis report: {index}")
            return
        built = build(run, out, Path(analysis_dir) if analysis_dir else None, workers=workers)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    warning = ledger_warning(run, built.ledger_problems)
    if warning:
        click.echo(warning, err=True)
    extra = f", {built.in_flight} in flight" if built.in_flight else ""
    click.echo(f"wrote the report of {built.cells} cells{extra}{' and the analysis' if built.analysis else ''} "
               f"in {built.seconds:.1f}s")
    click.echo(f"report: {built.index}")


def _view_compare(out: Path) -> None:
    """A `harness compare --out` folder: its page (DIR/compare.html) drawn again from compare.json."""
    from analysis.compare import CompareError
    from viewer.compare_page import rebuild_page

    try:
        page = rebuild_page(out)
    except OSError as exc:  # a full or read-only disk: one line naming the file and the rerun (each file is atomic)
        if runio.is_no_space(exc):
            raise runio.NoSpace(exc.filename or out / "compare.html", exc, f"harness view {out}", ExitCode.BAD_INPUT,
                                kept="each file of the page is written atomically (none is partial)") from None
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except CompareError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"compare report: {page}")
