"""What the report holds about each cell: a row of the cell list, and the data of its page.

A page's data is the cell's files as stored (event log and transcript as JSON-lines text, the
stored diffs), plus its record; the browser parses and renders them. Files are embedded as text,
not re-parsed here, so writing the report stays I/O-bound (9,240 cells in well under a minute).
"""
from __future__ import annotations

import zlib
from pathlib import Path

from harness.core import runio
from harness.core.layout import diff_paths, read_diff, transcript_path
from harness.core.record import CellRecord

# Columns of the cell list, in the order rows carry them (the browser reads them by name).
COLUMNS = ("key", "unit", "arm", "task", "scenario", "repeat", "factors", "outcome", "detectors", "tokens",
           "wall_s", "cost_usd", "stop_reason", "shipped", "visible_pass", "hidden_pass", "attempts",
           "review_rounds", "model_id", "file")
IN_FLIGHT = "in_flight"  # the list's outcome for a cell whose event log exists but whose record does not


def page_name(events_file: Path) -> str:
    """The page data's file stem: the event log's, which is already unique and file-system safe."""
    return events_file.name[: -len(".events.jsonl")]


def unit_of(key: str) -> str:
    """The matched unit: the cell key without the arm (task|scenario|repeat[|factors])."""
    return key.split("|", 1)[1]


def list_row(rec: CellRecord, file: str) -> list:
    """The cell-list row of a recorded cell."""
    factors = rec.factors or {}
    return [rec.cell_key, unit_of(rec.cell_key), rec.arm, rec.task, str(rec.scenario), rec.repeat,
            ",".join(f"{k}={v}" for k, v in sorted(factors.items())), rec.outcome.value,
            sorted(rec.unsafe_detectors or []),
            int(rec.tokens_in or 0) + int(rec.tokens_out or 0), rec.wall_s, rec.cost_usd,
            rec.stop_reason, rec.shipped, rec.visible_pass, rec.hidden_pass,
            rec.attempts, rec.review_rounds, rec.model_id, file]


def in_flight_row(key: str, file: str) -> list:
    arm, task, scenario, repeat, *factors = key.split("|")
    return [key, unit_of(key), arm, task, scenario, int(repeat), ",".join(factors), IN_FLIGHT, [], None, None, None,
            None, None, None, None, None, None, None, file]


def _text(path: Path) -> str | None:
    """A cell's file (event log, transcript) through the safe reader; None when absent or refused."""
    if not path.is_file():
        return None
    try:
        return runio.read_bytes(path, path.name).decode(errors="replace")
    except runio.UnsafeFile:
        return None


def voided_transcripts(run_dir: Path) -> dict[str, list[str]]:
    """{transcript file name: [its voided earlier attempts' file names]}, from one listing of the folder."""
    out: dict[str, list[str]] = {}
    folder = Path(run_dir) / "transcripts"
    if folder.is_dir():
        for p in folder.glob("*.void-*.jsonl"):
            out.setdefault(p.name.rsplit(".void-", 1)[0] + ".jsonl", []).append(p.name)
    return {k: sorted(v) for k, v in out.items()}


def transcript_file(run_dir: Path, key: str, record: CellRecord | None) -> Path:
    """The cell's transcript: the record's ``transcript`` path, but never outside the run directory."""
    run_dir = Path(run_dir).resolve()
    tr = transcript_path(run_dir, key)
    if record and isinstance(record.transcript, str):
        named = (run_dir / record.transcript).resolve()
        tr = named if named.is_relative_to(run_dir) else tr
    return tr


def _diff(path: Path) -> tuple[str | None, str | None]:
    """(the stored diff's text or None, why it could not be read): a file cut short by a kill or
    still being written is said, never read as a crash or as an empty (unchanged-tree) diff."""
    try:
        if path.is_file() and path.stat().st_size == 0:
            return None, f"{path.name} is empty (a write in progress, or a kill mid-write)"
        return read_diff(path), None
    except (EOFError, OSError, zlib.error) as exc:
        return None, f"{path.name} is unreadable ({type(exc).__name__}: {exc}): a write in progress, or a kill mid-write"


def page_data(run_dir: Path, key: str, events_file: Path, record: CellRecord | None,
              voided: dict[str, list[str]] | None = None) -> dict:
    """Everything the cell's page shows, from the run directory only. ``voided``: voided_transcripts()."""
    diff_file, candidate_file = diff_paths(events_file)
    run_dir = Path(run_dir).resolve()
    tr = transcript_file(run_dir, key, record)
    (diff, diff_error), (candidate, candidate_error) = _diff(diff_file), _diff(candidate_file)
    return {"key": key, "record": record.to_json() if record else None, "events": _text(events_file), "transcript": _text(tr),
            "transcript_file": tr.relative_to(run_dir).as_posix(),
            "voided_transcripts": (voided or {}).get(tr.name, []), "diff": diff, "candidate_diff": candidate,
            "diff_error": diff_error, "candidate_diff_error": candidate_error}
