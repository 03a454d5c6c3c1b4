"""The run directory's per-cell file names: a cell's transcript, its stored tree diffs. Read by the
run (which writes them) and by the viewer and interop (which only read them), so they live in the
bottom layer."""
from __future__ import annotations

import gzip
from pathlib import Path

EVENTS_SUFFIX = ".events.jsonl"


def transcript_path(run_dir: Path, cell_key: str) -> Path:
    safe = cell_key.replace("|", "__").replace("=", "-").replace("/", "_")
    return Path(run_dir) / "transcripts" / f"{safe}.jsonl"


def diff_paths(events_file: Path) -> tuple[Path, Path]:
    """(start->final diff, start candidate diff) beside a cell's event log."""
    events_file = Path(events_file)
    stem = events_file.name[: -len(EVENTS_SUFFIX)] if events_file.name.endswith(EVENTS_SUFFIX) else events_file.stem
    return events_file.with_name(f"{stem}.diff.gz"), events_file.with_name(f"{stem}.candidate.diff.gz")


def read_diff(path: Path) -> str | None:
    """A stored diff's text, or None when the file is absent (runs made before diffs were kept)."""
    path = Path(path)
    if not path.is_file():
        return None
    return gzip.decompress(path.read_bytes()).decode(errors="replace")
