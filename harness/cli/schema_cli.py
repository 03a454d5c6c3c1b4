"""``harness schema records``: the JSON Schema of the cell record (harness.core.record), and with
``--validate FILE`` a check of every record in a file against it (FILE:LINE: field: problem)."""
from __future__ import annotations

import json
import sys

import click

from harness.core import record, runio


def validate_file(path: str) -> tuple[int, list[str]]:
    """(records read, problems as 'FILE:LINE: field NAME: message') of a JSONL records file: the
    JSON Schema, then the closed kinds as the run and the analysis read them
    (``record.kind_problems``), so this check refuses what ``harness analyze`` refuses. A line that
    is not UTF-8 or not JSON (nested past the parser included) is one problem, never a traceback."""
    from jsonschema import Draft202012Validator
    validator = Draft202012Validator(record.json_schema())
    n, problems = 0, []
    # a FIFO, socket or device named as FILE is refused before a byte is read (click's exists=True
    # lets one through, and open() on a FIFO waits for a writer forever); read line by line after
    with runio.open_stream(path, "records file", follow=True) as fh:
        for i, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            n += 1
            try:
                rec = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as exc:
                problems.append(f"{path}:{i}: not UTF-8 text (byte {exc.start}); expected a JSON record")
                continue
            except json.JSONDecodeError as exc:
                problems.append(f"{path}:{i}: not valid JSON ({exc.msg} at column {exc.colno})")
                continue
            except RecursionError:
                problems.append(f"{path}:{i}: not valid JSON (nested deeper than the parser allows)")
                continue
            except ValueError as exc:  # an integer past Python's int-string limit (4,300 digits)
                problems.append(f"{path}:{i}: not valid JSON ({exc})")
                continue
            problems.extend(_problems(validator, rec, f"{path}:{i}"))
    return n, problems


def _problems(validator, rec, loc: str) -> list[str]:
    """One record's problems: the schema's, then the kinds' on fields the schema found no fault in."""
    out, named = [], set()
    for err in sorted(validator.iter_errors(rec), key=lambda e: [str(p) for p in e.path]):
        where = ".".join(str(p) for p in err.path) or "<record>"
        named.add(where)
        out.append(f"{loc}: field {where!r}: {err.message}")
    if isinstance(rec, dict):
        out.extend(f"{loc}: field {name!r}: {why}" for name, why in record.kind_problems(rec) if name not in named)
        out.extend(f"{loc}: field {name!r}: {why}" for name, why in _null_before_v2(rec) if name not in named)
    return out


def _null_before_v2(rec: dict) -> list[tuple[str, str]]:
    """A null token sub-field ("not reported") exists from record schema v2 on
    (``record.NULLABLE_SINCE_V2``); the reader (analysis.records) refuses it on a v1 record."""
    version = rec.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version >= 2:
        return []
    return [(name, f"null (not reported) needs record schema v2; this record is v{version}")
            for name in record.NULLABLE_SINCE_V2 if name in rec and rec[name] is None]


def register(main: click.Group) -> None:
    @main.group("schema")
    def schema() -> None:
        """Schemas of the interchange formats."""

    @schema.command("records")
    @click.option("--validate", "files", multiple=True, type=click.Path(exists=True, dir_okay=False),
                  help="check every record of this JSONL file against the schema (repeatable)")
    def schema_records(files: tuple[str, ...]) -> None:
        """Print the JSON Schema of a cell record (or, with --validate, check records against it)."""
        if not files:
            click.echo(json.dumps(record.json_schema(), indent=1))
            return
        bad = 0
        for f in files:
            n, problems = validate_file(f)
            for p in problems[:50]:
                click.echo(p, err=True)
            bad += len(problems)
            click.echo(f"{f}: {n} record(s), {len(problems)} problem(s) (schema v{record.SCHEMA_VERSION})")
        sys.exit(2 if bad else 0)
