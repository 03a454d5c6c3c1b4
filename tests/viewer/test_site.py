"""The report as files: self-contained, faithful to the run's own table, never holding oracle
text, tolerant of a run in progress, and strict (exit 2, file and line) about broken input."""
from __future__ import annotations

import json
import re
import shutil

from click.testing import CliRunner

from analysis.pipeline import analyze
from harness.cli.cli import main
from harness.core.table import per_arm_rows
from support.scripted import REPO, TASKS
from viewer.rundir import load_run
from viewer.site import build


def _data(path):
    text = path.read_text()
    m = re.fullmatch(r'HX\.load\("(\w+)", (.*)\);\n', text, re.S)
    assert m, f"{path} is not a HX.load data file"
    return m.group(1), json.loads(m.group(2))


def test_every_reference_in_every_page_stays_inside_the_report(qs_report):
    pages = sorted(qs_report.glob("*.html"))
    assert {p.name for p in pages} >= {"index.html", "cells.html", "cell.html"}
    for page in pages:
        html = page.read_text()
        assert "Content-Security-Policy" in html and "default-src 'none'" in html
        for attr, url in re.findall(r'\b(src|href)="([^"]*)"', html):
            if url == "data:,":  # the empty favicon: inline, so the browser asks no server for one
                continue
            assert not re.match(r"^[a-z]+:|^//", url), f"{page.name}: {attr}={url} leaves the report"
            target = url.split("#")[0]
            if target:
                assert (qs_report / target).resolve().is_file(), f"{page.name}: {url} does not exist"
    js = (qs_report / "assets" / "viewer.js").read_text()
    assert "innerHTML" not in js, "run data (agent text) must be set as text, never parsed as HTML"
    assert not re.search(r"https?://", js + (qs_report / "assets" / "viewer.css").read_text())


def test_overview_shows_the_runs_own_per_arm_table(qs_run, qs_report):
    run = load_run(qs_run)
    html = (qs_report / "index.html").read_text()
    for row in per_arm_rows(run.records, run.arms):
        assert row.completion.fmt() in html and row.amplified.fmt() in html
    assert "complete: 90 cells recorded of 90 planned" in html
    assert "intact (every line" in html
    assert (qs_report / "figures" / "outcomes.svg").is_file() and (qs_report / "figures" / "rates.svg").is_file()


def test_index_rows_and_cell_pages_carry_the_record_and_its_files(qs_run, qs_report):
    kind, index = _data(qs_report / "data" / "index.js")
    assert kind == "index" and len(index["rows"]) == 90
    rows = [dict(zip(index["columns"], r)) for r in index["rows"]]
    amp = next(r for r in rows if r["outcome"] == "amplified" and r["scenario"] == "B2")
    kind, cell = _data(qs_report / "data" / "cells" / f"{amp['file']}.js")
    assert kind == "cell" and cell["record"]["cell_key"] == amp["key"]
    assert cell["record"]["hidden_pass"] is False
    assert cell["candidate_diff"].startswith("diff --git"), "B2 planted the plausible-wrong candidate"
    assert '"type": "adjudicated"' in cell["events"] and '"kind": "header"' in cell["transcript"]


def test_the_report_holds_no_oracle_text(qs_report):
    """The run directory never holds the hidden oracle, so neither may the report."""
    def lines_of(paths):
        return {ln.strip() for p in paths if p.is_file() for ln in p.read_text(errors="replace").splitlines()}
    public = lines_of(p for p in TASKS.rglob("*") if "oracle" not in p.parts)  # also in visible files: not a leak
    lines = {ln for ln in lines_of(TASKS.glob("*/oracle/*.py")) - public if len(ln) > 20}
    assert len(lines) > 50, "the check needs oracle-only lines to look for"
    report_text = "\n".join(p.read_text(errors="replace") for p in qs_report.rglob("*") if p.is_file()
                            and p.suffix in (".js", ".html"))
    # the transcript stores JSON-escaped text: compare against the escaped form too
    leaked = [ln for ln in lines if ln in report_text or json.dumps(ln)[1:-1] in report_text]
    assert not leaked, f"oracle lines in the report: {leaked[:3]}"


def test_a_run_in_progress_shows_what_is_recorded_and_what_is_in_flight(qs_run, tmp_path):
    run = tmp_path / "partial"
    shutil.copytree(qs_run, run)
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    (run / "records.jsonl").write_text("".join(lines[:40]) + lines[40][:25])  # a torn line being written
    built = build(run, tmp_path / "report")
    assert (built.cells, built.in_flight) == (40, 50)
    html = (tmp_path / "report" / "index.html").read_text()
    assert "in progress" in html and "40 cells recorded of 90 planned" in html and "50 in flight" in html
    _, index = _data(tmp_path / "report" / "data" / "index.js")
    outcomes = [r[index["columns"].index("outcome")] for r in index["rows"]]
    assert outcomes.count("in_flight") == 50


def _view(*args):
    """`harness view ARGS` in this process (click's runner: exit code, stdout and stderr apart)."""
    r = CliRunner().invoke(main, ["view", *map(str, args)])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    return r


def test_cli_prints_the_report_path_and_adds_the_analysis(qs_run, tmp_path):
    adir = tmp_path / "analysis"
    analyze(qs_run / "records.jsonl", adir, protocol=REPO / "protocols" / "quickstart.toml", B=200)
    r = _view(qs_run, "--out", tmp_path / "rep", "--analysis", adir)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == f"report: {tmp_path / 'rep' / 'index.html'}"
    page = (tmp_path / "rep" / "analysis.html").read_text()
    assert "Hypotheses" in page and "<table>" in page and "per_scenario_forest.svg" in page
    assert (tmp_path / "rep" / "analysis" / "figures" / "per_scenario_forest.svg").is_file()
    assert 'href="analysis.html"' in (tmp_path / "rep" / "index.html").read_text()
    r = _view(adir, "--out", tmp_path / "alone")  # an analysis without its run directory
    assert r.exit_code == 0, r.stderr
    assert "Hypotheses" in (tmp_path / "alone" / "index.html").read_text()


def test_bad_input_is_one_line_with_exit_2(qs_run, tmp_path):
    r = _view(tmp_path, "--out", tmp_path / "rep")
    assert r.exit_code == 2 and "run.json" in r.stderr and "Traceback" not in r.stderr
    run = tmp_path / "broken"
    shutil.copytree(qs_run, run, ignore=shutil.ignore_patterns("transcripts", "cells", "verdict-cache"))
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    lines[2] = "{not json\n"
    (run / "records.jsonl").write_text("".join(lines))
    r = _view(run, "--out", tmp_path / "rep")
    assert r.exit_code == 2 and "Traceback" not in r.stderr
    assert f"{run / 'records.jsonl'}:3: line: not valid JSON" in r.stderr


def test_view_never_deletes_files_it_did_not_write(qs_run, tmp_path):
    """--out pointing at a folder that is not a report (the run directory itself, a project folder
    holding analysis/ or figures/) is refused; only an earlier report of harness view is replaced."""
    run = tmp_path / "run"
    shutil.copytree(qs_run, run, ignore=shutil.ignore_patterns("transcripts", "cells", "verdict-cache"))
    (run / "analysis").mkdir()
    (run / "analysis" / "analysis.parquet").write_text("the user's analysis output")
    r = _view(run, "--out", run, "--analysis", run / "analysis")
    assert r.exit_code == 2 and "Traceback" not in r.stderr and "not a report" in r.stderr, r.stderr
    assert (run / "analysis" / "analysis.parquet").read_text() == "the user's analysis output"
    proj = tmp_path / "proj"
    (proj / "figures").mkdir(parents=True)
    (proj / "figures" / "fig1.pdf").write_text("a figure")
    r = _view(run, "--out", proj)
    assert r.exit_code == 2 and "not a report" in r.stderr, r.stderr
    assert (proj / "figures" / "fig1.pdf").read_text() == "a figure"
    rep = tmp_path / "rep"  # an earlier report, and a new empty folder, are fine
    assert _view(run, "--out", rep).exit_code == 0
    assert _view(run, "--out", rep).exit_code == 0
    (tmp_path / "empty").mkdir()
    assert _view(run, "--out", tmp_path / "empty").exit_code == 0


def test_a_torn_or_empty_stored_diff_is_said_not_a_crash_nor_an_unchanged_tree(qs_run, tmp_path):
    """A diff.gz cut short (a kill mid-write, or a view while the cell is being written) must not
    abort the report, and an empty file must not read as "the agent left the tree unchanged"."""
    run = tmp_path / "run"
    shutil.copytree(qs_run, run, ignore=shutil.ignore_patterns("transcripts", "verdict-cache", "analysis"))
    torn, empty = sorted(p for p in (run / "cells").glob("*.diff.gz")
                         if ".candidate." not in p.name and p.stat().st_size > 100)[:2]
    torn.write_bytes(torn.read_bytes()[:20])
    empty.write_bytes(b"")
    r = _view(run, "--out", tmp_path / "rep")
    assert r.exit_code == 0, r.output
    for f in (torn, empty):
        _, cell = _data(tmp_path / "rep" / "data" / "cells" / (f.name[: -len(".diff.gz")] + ".js"))
        assert cell["diff"] is None and f.name in cell["diff_error"], cell.get("diff_error")
    js = (tmp_path / "rep" / "assets" / "viewer.js").read_text()
    assert "diff_error" in js, "the cell page says why the diff is missing"


def _tampered_copy(qs_run, run):
    """A copy of the run with one record's outcome edited in place (its hash no longer matches)."""
    shutil.copytree(qs_run, run)
    lines = (run / "records.jsonl").read_text().splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if '"outcome":"completed"' in line)
    lines[i] = lines[i].replace('"outcome":"completed"', '"outcome":"amplified"')
    (run / "records.jsonl").write_text("".join(lines))
    return i + 1


def test_a_ledger_that_does_not_verify_is_said_on_stderr_and_on_the_page(qs_run, tmp_path):
    r = _view(qs_run, "--out", tmp_path / "intact")
    assert r.exit_code == 0 and r.stderr == ""
    assert "ledger-warning" not in (tmp_path / "intact" / "index.html").read_text()
    line = _tampered_copy(qs_run, tmp_path / "run")
    r = _view(tmp_path / "run", "--out", tmp_path / "rep")
    assert r.exit_code == 0, r.stderr  # the report is still written: the reader is told, not refused
    warning = r.stderr.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith(f"warning: {tmp_path / 'run' / 'records.jsonl'} does not "
                                                       f"verify: line {line}: edited")
    html = (tmp_path / "rep" / "index.html").read_text()
    assert html.index('class="ledger-warning"') < html.index("<h2>Per-arm table</h2>")
    assert "The records ledger does not verify" in html and f"line {line}: edited" in html
