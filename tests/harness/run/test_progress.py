"""The progress line: counts, spend, and the optional monitor text (issue 13: "the run's progress
line can show the primary sequence")."""
from __future__ import annotations

import io
from pathlib import Path

from harness.run.driver import execute, prepare
from harness.run.progress import Progress
from support import records

ROOT = Path(__file__).resolve().parents[3]


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_extra_text_is_refreshed_at_most_every_interval_and_at_close():
    clock, calls = Clock(), []

    def extra():
        calls.append(clock.t)
        return f"seq@{clock.t:g}"

    out = io.StringIO()
    p = Progress(4, 1, stream=out, every_s=0.0, clock=clock, extra=extra, extra_every_s=10.0)
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=0.0))
    clock.t = 5
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=0.0))
    clock.t = 12
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=0.0))
    p.close()
    assert calls == [0, 12, 12]  # first line, after the interval, and once more for the final line
    lines = out.getvalue().splitlines()
    assert lines[0].endswith("| seq@0") and lines[1].endswith("| seq@0") and lines[-1].endswith("| seq@12")


def test_a_failing_monitor_shows_its_error_and_never_stops_the_run():
    def extra():
        raise ValueError("ledger busy")

    out = io.StringIO()
    p = Progress(1, 1, stream=out, every_s=0.0, clock=Clock(), extra=extra)
    p.update(records.of_key("A1|t|null|1", "void", cost_usd=None))
    p.close()
    assert "monitor unavailable (ValueError: ledger busy)" in out.getvalue()


def test_run_with_monitor_shows_the_primary_sequence_on_the_progress_line(tmp_path):
    run_dir = tmp_path / "run"
    prepare(ROOT / "protocols" / "quickstart.toml", run_dir, engine=None, reviewer_engine=None, model=None,
            exploratory=False)
    out = io.StringIO()
    from analysis.monitor import primary_line
    execute(run_dir, limit_cells=10, progress_stream=out, log=lambda m: None, monitor=primary_line)
    last = out.getvalue().splitlines()[-1]
    assert "H1 " in last and ("% betting CS [" in last or "no units yet" in last), last  # the betting sequence by default
    assert last.endswith(primary_line(run_dir))  # the same text `harness monitor` computes


def test_the_spend_shown_is_the_runs_spend_not_the_records_sum():
    """Issue 34: the line summed the records' ``cost_usd`` ($0.2529) while spend.json, which also
    counts retries, void cells and cut replies charged at their bookings, held $0.664849. With a
    spend ledger the line shows its figure, the same one the final spend line shows."""
    out = io.StringIO()
    p = Progress(2, 1, stream=out, every_s=0.0, clock=Clock(), spent=lambda: 0.664849)
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=0.2529))
    p.close()
    assert "spend $0.6648 (spend.json)" in out.getvalue() and "0.2529" not in out.getvalue()


def test_without_a_spend_ledger_the_records_costs_are_summed():
    out = io.StringIO()
    p = Progress(2, 1, stream=out, every_s=0.0, clock=Clock())
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=0.25))
    p.update(records.of_key("A1|t|null|1", "completed", cost_usd=None))
    p.close()
    assert "spend $0.2500 (+1 unpriced)" in out.getvalue()
