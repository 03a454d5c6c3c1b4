"""Reading a run directory for the report: run.json, the records so far, the cells in flight,
void attempts and re-queues. Tolerant of a run in progress (a torn last line is skipped and
said), strict about anything else (a bad line is an error naming the file and line)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.core import runio
from harness.core.errors import InputError
from harness.core.events import CellStartEvent, parse_event
from harness.core.matrix import Cell
from harness.core.record import IDENTITY, CellRecord, kind_problems
from harness.core.runmeta import RunMeta
from harness.run.cellrun import events_path
from harness.run.journals import RequeueLine, VoidLine
from harness.run.records import ledger_problems


@dataclass
class RunDir:
    path: Path
    meta: RunMeta  # run.json
    records: list[CellRecord]  # the ledger's lines, in order
    lock_files: int = 0  # the files run.json's lock holds a digest of
    torn_tail: bool = False  # the last line was incomplete (a run in progress, or a kill mid-write)
    in_flight: dict[str, Path] = field(default_factory=dict)  # cell key -> event log, no record yet
    voids: list[VoidLine] = field(default_factory=list)  # voids.jsonl: every void attempt
    requeues: list[RequeueLine] = field(default_factory=list)  # requeues.jsonl
    arms: list[str] = field(default_factory=list)  # the protocol's order when it can be read
    planned: int | None = None  # cells in the design (after applicability), None if the protocol is unreadable
    protocol_note: str | None = None  # why the protocol could not be read
    ledger_problems: list[str] = field(default_factory=list)  # why records.jsonl does not verify (empty: it does)
    record_lines: list[int] = field(default_factory=list)  # records.jsonl's line number of each of records

    def events_file(self, key: str) -> Path:
        return events_path(self.path, Cell.from_key(key))


def _jsonl(path: Path, *, tolerate_torn_tail: bool) -> tuple[list[tuple[int, dict]], bool]:
    """(line number, object) for each line, and whether the last line was torn. Read through the
    safe reader (harness.core.runio): a FIFO or a link is refused, a line nested past the bound is
    one error naming the file and line, never a RecursionError."""
    if not (path.exists() or path.is_symlink()):
        return [], False
    data = runio.read_bytes(path, path.name)
    lines = data.decode("utf-8", errors="replace").split("\n")
    torn = bool(lines) and lines[-1] != ""
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = runio.parse_json(line, str(path), i)
        except runio.UnsafeFile as exc:
            if torn and i == len(lines) and tolerate_torn_tail:
                continue
            raise InputError(str(path), "line", f"{exc.message}; expected one JSON object per line", line=i) from None
        if not isinstance(obj, dict):
            raise InputError(str(path), "line", f"expected a JSON object, got {type(obj).__name__}", line=i)
        out.append((i, obj))
    return out, torn


def load_run(path: Path) -> RunDir:
    """The run in ``path``. InputError (file, key, what was expected) when it is not a run directory."""
    path = Path(path)
    meta_path = path / "run.json"
    if not (meta_path.exists() or meta_path.is_symlink()):
        raise InputError(str(path), "run.json", "not a run directory (expected run.json, as `harness run --out` writes)")
    obj = runio.read_json(meta_path, "run.json")
    if not isinstance(obj, dict):
        raise InputError(str(meta_path), "run.json", "expected a JSON object")
    meta = RunMeta.from_json(obj)
    lock = meta.lock or {}
    numbered, torn = _jsonl(path / "records.jsonl", tolerate_torn_tail=True)
    records = [_parse(path / "records.jsonl", i, r) for i, r in numbered]
    run = RunDir(path=path, meta=meta, records=records, torn_tail=torn, record_lines=[i for i, _ in numbered],
                 lock_files=len(lock.get("files", {})))
    voids, requeues = path / "voids.jsonl", path / "requeues.jsonl"
    run.voids = [VoidLine.from_json(v, str(voids), i) for i, v in _jsonl(voids, tolerate_torn_tail=True)[0]]
    run.requeues = [RequeueLine.from_json(q, str(requeues), i) for i, q in _jsonl(requeues, tolerate_torn_tail=True)[0]]
    run.in_flight = _in_flight(path, {r.cell_key for r in records})
    run.arms, run.planned, run.protocol_note = _design(meta, records)
    run.ledger_problems = ledger_problems(path)
    return run


def one_line(text: str) -> str:
    """``text`` safe for one terminal line: a problem names a cell key read from the records file,
    which is hostile bytes; every control character (ANSI escapes, CR, LF, the Unicode line and
    paragraph separators) and every undecodable byte is shown escaped (``\\x1b``)."""
    from harness.core.safe_text import printable
    return "".join(c if c.isprintable() or c == " " else c.encode("unicode_escape").decode("ascii")
                   for c in printable(text))


def ledger_warning(run_path: Path, problems: list[str]) -> str | None:
    """One line for stderr when the run's records ledger does not verify (``harness view`` and
    ``harness export inspect`` read its numbers all the same), else None."""
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (f"warning: {Path(run_path) / 'records.jsonl'} does not verify: {one_line(problems[0])}{more}; the numbers "
            "shown are read from it as it is (harness ledger verify lists every problem)")


def _in_flight(path: Path, recorded: set[str]) -> dict[str, Path]:
    """Cells whose event log exists but whose record does not (yet): the key is in the log's first line."""
    cells = path / "cells"
    if not cells.is_dir():
        return {}
    names = {events_path(path, Cell.from_key(k)).name for k in recorded}
    out = {}
    for ev in sorted(cells.glob("*.events.jsonl")):
        if ev.name in names:
            continue
        try:  # the log's first line is its cell_start event, typed at the event log's edge (parse_event)
            first = runio.read_prefix(ev, 1 << 16, "event log").split(b"\n", 1)[0]
            start = parse_event(runio.parse_json(first, str(ev), 1), str(ev), 1)
        except InputError:  # UnsafeFile too: a torn or foreign first line, no cell in flight
            continue
        if isinstance(start, CellStartEvent) and start.cell_key not in recorded:
            out[start.cell_key] = ev
    return out


def _parse(path: Path, line: int, obj: dict) -> CellRecord:
    """One records line as a ``CellRecord`` (``from_json``, any version); InputError naming the
    file, the line and what is wrong (every record names its cell and outcome)."""
    for k in ("cell_key", *IDENTITY):
        if k not in obj:
            raise InputError(str(path), k, "missing; every record names its cell and outcome", line=line)
    for k, typ, what in (("cell_key", str, "a string (ARM|TASK|SCENARIO|REPEAT)"), ("arm", str, "a string"),
                         ("task", str, "a string"), ("repeat", int, "an integer")):
        v = obj[k]
        if not isinstance(v, typ) or isinstance(v, bool):  # a null or wrong type: named, never a traceback later
            raise InputError(str(path), k, f"expected {what}, got {'null' if v is None else type(v).__name__}",
                             line=line)
    try:
        return CellRecord.from_json(obj, source=f"{path}:{line}")
    except ValueError as exc:
        named = [name for name, _ in kind_problems(obj)]  # an outcome or void_kind outside its enum: name it
        raise InputError(str(path), named[0] if named else "record", str(exc).removeprefix(f"{path}:{line}: "),
                         line=line) from None


def _design(meta: RunMeta, records: list[CellRecord]) -> tuple[list[str], int | None, str | None]:
    """Arm order and planned cell count from the protocol run.json names (the only file outside the
    run directory the report reads); falls back to the arms seen in the records."""
    seen = list(dict.fromkeys(r.arm for r in records))
    proto_path = meta.protocol_path
    if not proto_path:
        return sorted(seen), None, "run.json names no protocol"
    try:
        from harness.core.matrix import enumerate_cells
        from harness.core.protocol import load_protocol
        proto = load_protocol(proto_path)
    except (InputError, OSError) as exc:
        return sorted(seen), None, f"protocol {proto_path} unreadable: {exc}"
    arms = [a.name for a in proto.arms]
    return arms + sorted(set(seen) - set(arms)), len(enumerate_cells(proto)), None
