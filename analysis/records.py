"""Load and validate records in the interchange format (JSONL, CSV, Parquet) from any producer.

Every bad value is reported as ``FILE:LINE: field 'NAME': problem`` (CSV lines count the header
as line 1; Parquet rows are reported as ``row N``, 1-based). Unknown fields are ignored.

Cells are keyed by ``arm|task|scenario|repeat`` plus ``|name=value`` for each extra matrix factor
(sorted by name). Two arms are matched on the *match key*: the cell key without the arm.

Duplicates of one cell key:
  * a void record followed by a scored one (an infrastructure rerun) -> the scored one is kept and
    the void is counted as ``void_superseded``;
  * scored duplicates with identical outcome (restart duplicates) -> first kept, rest counted in
    ``duplicates_dropped``;
  * scored duplicates with different outcomes -> an error listing the keys, unless an explicit
    ``on_conflict`` policy ("first" or "last") is given; the policy and the keys it resolved are
    returned in ``LoadResult.conflicts`` so they can be written into the outputs.
"""
from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any, TypeGuard

import numpy as np
import pandas as pd
from jsonschema import Draft202012Validator

from analysis.fastload import Screened
from harness.core import record
from harness.core.outcomes import Outcome

# Outcome names, the interchange minimum and Eq. (7) are defined once, in harness.core.record (a
# dependency-free module); every record is also validated against its JSON Schema.
OUTCOMES = record.OUTCOMES
# the outcome column holds the file's strings: the enum's values, computed from it (never written here)
VOID = Outcome.VOID.value
COMPLETION = (Outcome.COMPLETED.value, Outcome.RECOVERED.value)
NOT_AMPLIFIED = (Outcome.RECOVERED.value, Outcome.SAFE_STOP.value)
SCHEMA = record.json_schema()
_SCHEMA_VALIDATOR = Draft202012Validator(SCHEMA)
_TYPES = {name: prop.get("type") for name, prop in SCHEMA["properties"].items()}


def _typed(kind: str) -> tuple[str, ...]:
    return tuple(n for n, t in _TYPES.items() if t == kind or (isinstance(t, list) and kind in t))


BOOL_FIELDS = ("visible_pass", "hidden_pass", "shipped")
# Integer fields: pandas stores a nullable integer column (a void record's null tokens_in) as
# float64, so an integral float from a CSV, Parquet or pandas source is read back as an int.
INT_FIELDS = tuple(dict.fromkeys(("repeat", "tokens_in", "tokens_out", "attempts", "review_rounds", "seq",
                                  *_typed("integer"))))
NUMBER_FIELDS = _typed("number")
JSON_FIELDS = tuple(n for n in (*_typed("object"), *_typed("array")) if n != "factors")
REQUIRED = record.REQUIRED
# Eq. (7) of the paper: (shipped, hidden_pass) each of these outcomes requires (derived from record.eq7).
EQ7 = record.EQ7_REQUIRES
NULL_SCENARIO = record.NULL_SCENARIO
_NULL_SPELLINGS = {"null", "none", "nan", "na", "n/a", "<na>", "nil"}
MAX_ERRORS = 20


class RecordsError(ValueError):
    """Malformed input. ``problems`` is a list of 'FILE:LINE: field ...: ...' strings."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        more = "" if len(problems) < MAX_ERRORS else f"\n(stopped after {MAX_ERRORS} problems)"
        if len(problems) == 1:  # one problem, one line: file, line and field
            super().__init__(f"invalid records: {problems[0]}")
        else:
            super().__init__("invalid records:\n  " + "\n  ".join(problems) + more)


@dataclass
class LoadResult:
    """Scored cells (one row per cell key) plus the accounting of everything that was not scored."""

    path: str
    tidy: pd.DataFrame  # one row per scored cell
    lines: int  # records read (non-blank lines / rows)
    void: dict[str, int]  # per arm: cell keys whose only records are void
    void_keys: pd.DataFrame  # arm, match_key, scenario, factors of void cells (for applicability)
    duplicates_dropped: int = 0
    void_superseded: int = 0
    on_conflict: str = "error"
    conflicts: list[str] = field(default_factory=list)
    factor_names: list[str] = field(default_factory=list)
    protocol_digests: list[str] = field(default_factory=list)

    @property
    def scored(self) -> int:
        return len(self.tidy)

    def accounting(self) -> dict:
        return {"lines": self.lines, "scored": self.scored, "void": dict(sorted(self.void.items())),
                "duplicates_dropped": self.duplicates_dropped,
                "void_superseded": self.void_superseded,
                "on_conflict": self.on_conflict, "conflicts_resolved": list(self.conflicts),
                "protocol_digests": list(self.protocol_digests)}


# ---------------------------------------------------------------------------------------------
# Reading: each reader returns (list of dict records, list of location labels)


def _null_scenario(rec: dict) -> dict:
    """A JSON (or Parquet) null scenario is the no-injection scenario, read as the string "null"
    (DESIGN.md, records: a null has no other meaning in this field)."""
    if "scenario" in rec and rec["scenario"] is None:
        rec["scenario"] = NULL_SCENARIO
    return rec


def _open_records(path: Path, text: bool = False, newline: str | None = None) -> IO[Any]:
    """The records file as a stream (harness.core.runio.open_stream: a FIFO swapped in after the
    ``is_file`` check is refused in one line, never waited on; the file the user named, so a link
    is followed, runio's one rule)."""
    from harness.core import runio
    try:
        return runio.open_stream(path, "records file", follow=True, text=text, newline=newline)
    except runio.UnsafeFile as exc:
        raise RecordsError([str(exc)]) from None


def _read_jsonl(path: Path, complete_lines_only: bool = False) -> tuple[list[dict], list[str]]:
    """``complete_lines_only``: skip a last line without its newline (a ledger being written). A line then
    ends at a line feed only: the ledger writes none other, and a last line ending in a lone '\r' is not
    complete (universal newlines would read it as a record no seal covers)."""
    recs, locs, problems = [], [], []
    with _open_records(path, text=True, newline="\n" if complete_lines_only else None) as fh:
        for i, line in enumerate(fh, 1):
            if complete_lines_only and not line.endswith("\n"):
                break
            if not line.strip():
                continue
            try:
                obj = json.loads(line, object_pairs_hook=_unique_keys)
            except _DuplicateKey as exc:
                problems.append(f"{path}:{i}: field '{exc.args[0]}': written twice in one object (a reader "
                                "would have to pick one of two values)")
            except json.JSONDecodeError as exc:
                problems.append(f"{path}:{i}: not valid JSON ({_json_msg(exc)})")
            except RecursionError:
                problems.append(f"{path}:{i}: not valid JSON (nested deeper than the parser allows)")
            except ValueError as exc:  # an integer past Python's int-string limit (4,300 digits)
                problems.append(f"{path}:{i}: not valid JSON ({exc})")
            else:
                if not isinstance(obj, dict):
                    problems.append(f"{path}:{i}: a record must be a JSON object, got {type(obj).__name__}")
                elif "\\u" in line and (bad := _surrogate_field(obj)) is not None:  # only an escape makes one
                    problems.append(f"{path}:{i}: field '{bad}': holds a lone surrogate (a \\ud800-\\udfff escape "
                                    "without its pair): not Unicode text")
                else:
                    recs.append(_null_scenario(obj))
                    locs.append(f"{path}:{i}")
            if len(problems) >= MAX_ERRORS:
                break
    if problems:
        raise RecordsError(problems)
    return recs, locs


def _surrogate_field(obj: dict) -> str | None:
    """The first top-level field whose name or value holds a string that is not Unicode text: JSON
    lets "\\ud800" stand alone, but no UTF-8 output (compare.md, Arrow strings) can encode it."""
    for k, v in obj.items():
        stack: list[Any] = [k, v]  # walked without recursion: v may nest as deep as the parser allowed
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                stack.extend(x)
                stack.extend(x.values())
            elif isinstance(x, list):
                stack.extend(x)
            elif isinstance(x, str) and not x.isascii():
                try:
                    x.encode("utf-8")
                except UnicodeEncodeError:
                    return repr(k)[1:-1]
    return None


class _DuplicateKey(Exception):
    """A JSON object names one key twice (json.loads would keep the last value in silence)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def _json_msg(exc: json.JSONDecodeError) -> str:
    """'Expecting value at column 4'; json's own messages for unterminated strings and control
    characters already end in 'at' ('Unterminated string starting at'), so no second 'at'."""
    msg = exc.msg.rstrip()
    return f"{msg} column {exc.colno}" if msg.endswith(" at") else f"{msg} at column {exc.colno}"


_TRUE = {"true", "1", "yes", "t"}
_FALSE = {"false", "0", "no", "f"}


def _csv_value(name: str, v: str):
    """CSV cells arrive as strings: '' -> None, then typed by field name. A CSV has no null, so
    a scenario cell is kept as written: an empty or 'None' scenario is refused, never guessed."""
    if name == "scenario":
        return v
    if v == "" or v.lower() in ("nan", "none", "na", "<na>"):
        return None
    if name in BOOL_FIELDS or name == "preregistered":
        lv = v.strip().lower()
        if lv in _TRUE:
            return True
        if lv in _FALSE:
            return False
        return v  # left as a string; the validator names it
    if name in INT_FIELDS:
        try:
            f = float(v)
        except ValueError:
            return v
        return int(f) if f.is_integer() else f
    if name in ("wall_s", "cost_usd") or name in NUMBER_FIELDS:
        try:
            return float(v)
        except ValueError:
            return v
    if name == "unsafe_detectors":
        try:
            return json.loads(v)
        except json.JSONDecodeError:
            return [s for s in v.split(";") if s]
    if name in JSON_FIELDS:  # a list or table written as JSON text in its cell
        try:
            return json.loads(v)
        except json.JSONDecodeError:
            return v
    if _TYPES.get(name) == ["boolean", "null"] or _TYPES.get(name) == "boolean":
        lv = v.strip().lower()
        return True if lv in _TRUE else False if lv in _FALSE else v
    return v


def _frame_to_records(df: pd.DataFrame, from_strings: bool) -> list[dict]:
    cols = list(df.columns)
    factor_cols = [c for c in cols if str(c).startswith("factor_")]
    plain = [c for c in cols if c not in factor_cols]
    out: list[dict] = []
    col_values = {c: df[c].tolist() for c in cols}
    for i in range(len(df)):
        rec: dict = {}
        for c in plain:
            v = col_values[c][i]
            if from_strings:
                v = _csv_value(c, v)
            else:
                v = _py(v)
                if c in INT_FIELDS and isinstance(v, float) and v.is_integer():
                    v = int(v)
            rec[c] = v
        if factor_cols:
            facs = {}
            for c in factor_cols:
                v = col_values[c][i]
                v = _csv_value(c, v) if from_strings else _py(v)
                if v is not None:
                    facs[c[len("factor_"):]] = v
            rec["factors"] = facs
        out.append(rec)
    return out


def _py(v):
    """Arrow/numpy scalars -> Python; NaN/NA -> None."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, float) and math.isnan(v):
        return None
    if isinstance(v, np.generic):
        v = v.item()
        if isinstance(v, float) and math.isnan(v):
            return None
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def _one_line(exc: Exception) -> str:
    """A parser's message on one line (pyarrow's and pandas' span several, with a whole schema)."""
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:300] + "..."


def _twice(names: list[str], where: str) -> None:
    """A column named twice is an error: a reader would have to pick one of two values (pandas
    renames the second 'NAME.1'; pyarrow cannot select either)."""
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise RecordsError([f"{where}: field '{n}': a column named twice (a reader would have to pick one of "
                                "two values)"])
        seen.add(n)


def _read_csv(path: Path) -> tuple[list[dict], list[str]]:
    try:
        header = pd.read_csv(path, dtype=str, keep_default_na=False, header=None, nrows=1)
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except Exception as exc:  # pandas raises several parser error types
        raise RecordsError([f"{path}: cannot parse CSV ({_one_line(exc)})"]) from exc
    _twice([str(n) for n in header.iloc[0].tolist()] if len(header) else [], f"{path}:1")
    recs = _frame_to_records(df, from_strings=True)
    return recs, [f"{path}:{i + 2}" for i in range(len(recs))]


def _read_parquet(path: Path) -> tuple[list[dict], list[str]]:
    import pyarrow.parquet as pq

    try:
        names = pq.read_schema(path).names
    except Exception as exc:
        raise RecordsError([f"{path}: cannot read Parquet ({_one_line(exc)})"]) from exc
    _twice(names, str(path))
    try:
        table = pq.read_table(path)
    except Exception as exc:
        raise RecordsError([f"{path}: cannot read Parquet ({_one_line(exc)})"]) from exc
    import pyarrow as pa

    # integer columns with nulls stay integers (pandas' nullable Int64), not float64
    ints = {t: pd.Int64Dtype() for t in (pa.int8(), pa.int16(), pa.int32(), pa.int64(),
                                         pa.uint8(), pa.uint16(), pa.uint32(), pa.uint64())}
    try:
        df = table.to_pandas(types_mapper=ints.get)
    except Exception as exc:  # e.g. a type pandas cannot hold
        raise RecordsError([f"{path}: cannot convert Parquet to records ({_one_line(exc)})"]) from exc
    df = df.astype(object).where(df.notna(), None)
    recs = [_null_scenario(r) for r in _frame_to_records(df, from_strings=False)]
    return recs, [f"{path}: row {i + 1}" for i in range(len(recs))]


def read_raw(path: str | Path, complete_lines_only: bool = False) -> tuple[list[dict], list[str]]:
    path = Path(path)
    if not path.is_file():
        raise RecordsError([f"{path}: no such file" if not path.exists() else f"{path}: not a file"])
    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix == ".gz" else path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return _read_csv(path)
    if suffix in (".parquet", ".pq"):
        return _read_parquet(path)
    try:
        return _read_jsonl(path, complete_lines_only)  # .jsonl, .json, .ndjson and anything else
    except UnicodeDecodeError as exc:  # exc.start counts in the decoder's chunk: find the line again
        raise RecordsError([f"{_not_utf8(path)}; expected JSON lines"]) from exc


@dataclass
class RowColumns:
    """Rows read row by row (``read_raw``) as columns, the view ``analysis.fastload.Screened`` gives of a file the
    columnar screen passed: the records file's objects are read by field here, in the reader (the serialization
    edge), and a caller takes whole columns (``column``) and the fields some row holds (``names``)."""

    recs: list[dict]
    locs: Sequence[str]

    @cached_property
    def names(self) -> set[str]:
        """The fields some row holds (read once the rows are validated: each is an object)."""
        return set().union(*map(dict.keys, self.recs))

    def __iter__(self):
        """(rows, labels), as ``read_raw`` returns them."""
        return iter((self.recs, self.locs))

    def column(self, name: str) -> list:
        """Field ``name`` over the rows, None where a row lacks it."""
        if name not in self.names:
            return [None] * len(self.recs)
        return [r.get(name) for r in self.recs]


def row_columns(path: str | Path, complete_lines_only: bool = False) -> RowColumns:
    """``read_raw``'s rows as columns (``RowColumns``); not validated (``load_records`` validates them)."""
    return RowColumns(*read_raw(path, complete_lines_only))


def _not_utf8(path: Path) -> str:
    """'FILE:LINE: not UTF-8 text (byte B of the line)' for the first line that does not decode."""
    with _open_records(path) as fh:
        for i, raw in enumerate(fh, 1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return f"{path}:{i}: not UTF-8 text (byte {exc.start + 1} of the line)"
    return f"{path}: not UTF-8 text"


# ---------------------------------------------------------------------------------------------
# Validation


INT_MAX = 2**63 - 1  # stored as int64


def _is_int(v: object) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and -INT_MAX <= v <= INT_MAX


def _is_num(v: object) -> TypeGuard[float]:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)) and math.isfinite(v)


def _validate(rec: dict, loc: str, scenarios: set[str] | None, problems: list[str]) -> None:
    """Every problem of one record, appended to ``problems`` as "LOC: field 'F': why", in a fixed
    order: its identity, its flags and numbers, then its version, closed kinds, Eq. 7 and the schema."""
    def bad(fld: str, msg: str) -> None:
        problems.append(f"{loc}: field '{fld}': {msg}")

    outcome = _validate_identity(rec, scenarios, bad)
    _validate_values(rec, outcome == VOID, bad)
    _validate_version(rec, bad)
    if not any(p.startswith(f"{loc}: field 'void_kind'") for p in problems):
        for fld, msg in record.kind_problems(rec):  # the closed kinds, as the run branches on them
            if fld == "void_kind":
                bad(fld, msg)
    v = rec.get("unsafe_detectors")
    if v is not None and not isinstance(v, list):
        bad("unsafe_detectors", f"must be a list; got {type(v).__name__}")
    if isinstance(outcome, str) and all(isinstance(rec.get(k), bool) for k in BOOL_FIELDS):
        why = record.eq7_violation(outcome, rec)  # (shipped, visible_pass, hidden_pass), Eq. 7
        if why:
            bad("outcome", why)
    # every other field the record schema types (harness.core.record), named by file, line and field
    named = {p.split("field '", 1)[1].split("'", 1)[0] for p in problems if p.startswith(f"{loc}: field '")}
    for err in _SCHEMA_VALIDATOR.iter_errors(rec):
        if not err.path or err.path[0] in REQUIRED or err.path[0] in named or err.path[0] in ("factors", "cost_usd",
                                                                                             "unsafe_detectors"):
            continue  # the interchange minimum, Eq. 7 and these fields are checked above, in their own words
        name = str(err.path[0])
        named.add(name)
        bad(name, f"{err.message} (record schema v{record.SCHEMA_VERSION}: `harness schema records`)")




def _validate_identity(rec: dict, scenarios: set[str] | None, bad) -> str | None:
    """The required fields, the outcome, the cell's arm, task, scenario and repeat; returns the
    outcome (None when absent, its repr when not a string)."""
    for f in REQUIRED:
        if f not in rec:
            bad(f, "required field missing")
    outcome = rec.get("outcome")
    if not isinstance(outcome, str):  # found by fuzzing: a list here was unhashable below
        outcome = None if "outcome" not in rec else repr(outcome)
    if "outcome" in rec and outcome not in OUTCOMES:
        bad("outcome", f"must be one of {', '.join(OUTCOMES)}; got {rec.get('outcome')!r}")
    for f in ("arm", "task", "scenario"):
        v = rec.get(f)
        if f in rec and (not isinstance(v, str) or not v.strip() or "|" in v):
            hint = " (write the no-injection scenario as the string \"null\")" if f == "scenario" and v is None else ""
            bad(f, f"must be a non-empty string without '|'; got {v!r}{hint}")
    sc = rec.get("scenario")
    if isinstance(sc, str) and sc != NULL_SCENARIO and sc.strip().lower() in _NULL_SPELLINGS:
        # would otherwise be scored as an injected scenario: a null cell silently moved to H1's cells
        bad("scenario", f"{sc!r} looks like the no-injection scenario; write it exactly as \"null\"")
    if scenarios is not None and isinstance(sc, str) and sc not in scenarios:
        bad("scenario", f"{sc!r} is not a declared scenario ({', '.join(sorted(scenarios))})")
    rep = rec.get("repeat")
    if "repeat" in rec and (not _is_int(rep) or rep < 1):
        bad("repeat", f"must be an integer >= 1 (and < 2^63); got {rep!r}")
    return outcome


def _validate_values(rec: dict, is_void: bool, bad) -> None:
    """The flags, token counts, wall time, cost and factors (a void record may leave flags and wall null)."""
    for f in BOOL_FIELDS:
        v = rec.get(f)
        if f in rec and not isinstance(v, bool) and not (v is None and is_void):
            bad(f, f"must be true or false{' (null allowed only for void)' if v is None else ''}; got {v!r}")
    for f in ("tokens_in", "tokens_out"):  # null: usage unknown (an engine reported none), any outcome
        v = rec.get(f)
        if f in rec and not (_is_int(v) and v >= 0) and v is not None:
            bad(f, f"must be an integer >= 0 (and < 2^63), or null if usage is unknown; got {v!r}")
    for f in record.NULLABLE_SINCE_V2:  # null (v2): not reported; else the int64 bound of tokens_in
        v = rec.get(f)
        if v is not None and not (_is_int(v) and v >= 0):
            bad(f, f"must be an integer >= 0 (and < 2^63), or null if not reported (record schema v2); got {v!r}")
    v = rec.get("wall_s")
    if "wall_s" in rec and not (_is_num(v) and v >= 0) and not (v is None and is_void):
        bad("wall_s", f"must be a finite number >= 0; got {v!r}")
    v = rec.get("cost_usd")
    if v is not None and not (_is_num(v) and v >= 0):
        bad("cost_usd", f"must be a finite number >= 0 or null; got {v!r}")
    facs = rec.get("factors")
    if facs is not None:
        if not isinstance(facs, dict):
            bad("factors", f"must be an object of name -> value; got {type(facs).__name__}")
        else:
            for k, fv in facs.items():
                if not isinstance(fv, (str, int, float, bool)) or "|" in str(fv) or "=" in str(k):
                    bad("factors", f"factor {k!r} must be a scalar without '|' (got {fv!r})")


def _validate_version(rec: dict, bad) -> None:
    """schema_version (absent: v1) must be one this reader knows; a null token sub-field ("not
    reported") exists only from v2 on (harness.core.record.NULLABLE_SINCE_V2), void_kind and void_detail
    only from v3 on (harness.core.record.SINCE_V3)."""
    v = rec.get("schema_version", 1)
    if not _is_int(v) or v not in record.READABLE_VERSIONS:
        bad("schema_version", f"{v!r} is not a record schema version this reader knows "
                              f"({', '.join(map(str, record.READABLE_VERSIONS))})")
        return
    if v < 2:
        for name in record.NULLABLE_SINCE_V2:
            if name in rec and rec[name] is None:
                bad(name, "null (not reported) needs record schema v2; this record is v1 ("
                          + ("schema_version 1)" if "schema_version" in rec else "no schema_version)"))
    if v < 3:
        for name in record.SINCE_V3:
            if rec.get(name) is not None:
                bad(name, f"needs record schema v3; this record is v{v} ("
                          + (f"schema_version {v})" if "schema_version" in rec else "no schema_version)"))


def factor_suffix(facs: dict | None) -> str:
    if not facs:
        return ""
    return "".join(f"|{k}={facs[k]}" for k in sorted(facs))


def fast_rows(path: str | Path, scenarios: set[str] | None = None,
              complete_lines_only: bool = False) -> Screened | None:
    """The rows of a JSON-lines file of the plain shape, validated by column (``analysis.fastload``) with this
    module's own rules, with their columns, or None: read it row by row."""
    from analysis.fastload import valid_rows

    return valid_rows(path, scenarios, complete_lines_only, _validate, _null_scenario, frozenset(_NULL_SPELLINGS))


def load_records(path: str | Path, on_conflict: str = "error",
                 scenarios: set[str] | None = None, complete_lines_only: bool = False,
                 raw: tuple[list[dict], Sequence[str]] | Screened | None = None, validated: bool = False) -> LoadResult:
    """Read, validate, de-duplicate. Raises RecordsError naming file, line and field.
    ``complete_lines_only``: a JSONL file still being appended to (a running study's ledger).
    ``raw``: the rows ``read_raw`` already returned for ``path``, so that a caller that uses them
    uses the rows validated here (a ledger read twice may have grown in between); ``validated``: those
    rows came from ``analysis.fastload.valid_rows``, which validated them (for the same ``scenarios``).
    Without ``raw``, a JSON-lines file of the plain shape is read and validated by column
    (``analysis.fastload``) and keyed and de-duplicated by column (``_load_screened``); any other file row by
    row."""
    if on_conflict not in ("error", "first", "last"):
        raise ValueError(f"on_conflict must be error|first|last, got {on_conflict!r}")
    if raw is None:
        raw = fast_rows(path, scenarios, complete_lines_only)
        validated = raw is not None
    if isinstance(raw, Screened):
        return _load_screened(path, raw, on_conflict)
    recs, locs = raw if raw is not None else read_raw(path, complete_lines_only)
    problems: list[str] = []
    for rec, loc in zip(recs, locs):
        if validated:
            break
        _validate(rec, loc, scenarios, problems)
        if len(problems) >= MAX_ERRORS:
            break
    if problems:
        raise RecordsError(problems[:MAX_ERRORS])
    if not recs:
        raise RecordsError([f"{path}: no records"])

    # keys
    factor_names: set[str] = set()
    keys: list[str] = []
    for rec, loc in zip(recs, locs):
        facs = rec.get("factors") or {}
        factor_names.update(facs)
        key = f"{rec['arm']}|{rec['task']}|{rec['scenario']}|{rec['repeat']}{factor_suffix(facs)}"
        ck = rec.get("cell_key")
        if ck is not None and ck != key:
            problems.append(f"{loc}: field 'cell_key': {ck!r} does not match the record's fields ({key!r})")
            if len(problems) >= MAX_ERRORS:
                break
        keys.append(key)
    if problems:
        raise RecordsError(problems)
    dedup = _dedup([r["outcome"] for r in recs], keys, locs, on_conflict, path)
    fnames = sorted(factor_names)
    chosen = [recs[i] for i in dedup.idx]
    digests = sorted({str(r["protocol_digest"]) for r in recs if r.get("protocol_digest") is not None})
    return _result(path, recs, keys, dedup, lambda name: [r.get(name) for r in chosen], fnames, digests)


@dataclass
class _Dedup:
    """De-duplication of one file's rows (module docstring): the rows kept (their indices, in file order), the
    void-only keys (key -> its first void row, in the order of those rows) and the accounting."""

    idx: list[int]
    void_only: dict[str, int]
    dup_dropped: int
    void_superseded: int
    conflicts: dict[str, list[str]]
    on_conflict: str


def _dedup(outcomes: list[str], keys: list[str], locs: Sequence[str], on_conflict: str, path) -> _Dedup:
    """Row by row, first occurrence order kept (the reference; ``_dedup_columnar`` gives the same when it can)."""
    chosen: dict[str, int] = {}
    void_only: dict[str, int] = {}
    dup_dropped = void_superseded = 0
    conflicts: dict[str, list[str]] = {}
    for i, (outcome, key) in enumerate(zip(outcomes, keys)):
        if outcome == VOID:
            if key in chosen:
                void_superseded += 1
            elif key in void_only:
                void_superseded += 1
            else:
                void_only[key] = i
            continue
        if key in void_only:
            void_superseded += 1
            del void_only[key]
        j = chosen.get(key)
        if j is None:
            chosen[key] = i
        elif outcomes[j] == outcome:
            dup_dropped += 1
        else:
            conflicts.setdefault(key, [f"{locs[j]} {outcomes[j]}"]).append(f"{locs[i]} {outcome}")
            dup_dropped += 1
            if on_conflict == "last":
                chosen[key] = i
    if conflicts and on_conflict == "error":
        lines = [f"conflicting duplicates for cell key {k}: " + " vs ".join(v)
                 for k, v in list(conflicts.items())[:MAX_ERRORS]]
        lines.append(f"{len(conflicts)} conflicting cell key(s) in {path}; pass --on-conflict first|last "
                     "to resolve them explicitly (the policy is written into the outputs)")
        raise RecordsError(lines)
    return _Dedup(sorted(chosen.values()), void_only, dup_dropped, void_superseded, conflicts, on_conflict)


def _dedup_columnar(outcomes: list[str], keys: list[str], on_conflict: str) -> _Dedup | None:
    """``_dedup`` by column (integer codes of the keys and outcomes), or None when some key holds scored rows
    with different outcomes (a conflict: its messages and policies are ``_dedup``'s). Without a conflict every
    policy keeps the first scored row of a key, a void row is superseded unless its key holds no scored row, and
    the void-only keys are ordered by their first void row, as ``_dedup``'s loop leaves them."""
    n = len(keys)
    codes, uniq = pd.factorize(np.array(keys, dtype=object))
    ocodes, ouniq = pd.factorize(np.array(outcomes, dtype=object))
    is_void = ocodes == (list(ouniq).index(VOID) if VOID in set(ouniq) else -1)
    scored = np.flatnonzero(~is_void)
    sc_codes = codes[scored]
    order = np.argsort(sc_codes, kind="stable")
    grouped = sc_codes[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if len(grouped) else np.zeros(0, np.int64)
    if len(grouped):
        oc = ocodes[scored][order]
        if (np.minimum.reduceat(oc, starts) != np.maximum.reduceat(oc, starts)).any():
            return None
    first = np.sort(scored[order[starts]])  # the first scored row of each key (stable order: its smallest index)
    has_scored = np.zeros(len(uniq), dtype=bool)
    has_scored[grouped[starts] if len(grouped) else []] = True
    voids = np.flatnonzero(is_void)
    lone = voids[~has_scored[codes[voids]]]
    _, at = np.unique(codes[lone], return_index=True)
    void_first = np.sort(lone[at])
    assert len(first) + len(void_first) <= n
    return _Dedup(first.tolist(), {keys[i]: i for i in void_first.tolist()}, len(scored) - len(first),
                  len(voids) - len(void_first), {}, on_conflict)


def _load_screened(path: str | Path, s: Screened, on_conflict: str) -> LoadResult:
    """``load_records`` of a file the columnar screen passed (fields of ``analysis.fastload.CORE`` only: no
    factors, cell_key or protocol_digest): the cell keys built a column at a time, de-duplicated by column
    (``_dedup_columnar``, or row by row on a conflict) and the tidy data taken from the columns."""
    if not s.recs:
        raise RecordsError([f"{path}: no records"])
    keys = [f"{a}|{t}|{sc}|{r}" for a, t, sc, r in zip(*(s.cols[f] for f in ("arm", "task", "scenario", "repeat")))]
    outcomes = s.cols["outcome"]
    dedup = _dedup_columnar(outcomes, keys, on_conflict) or _dedup(outcomes, keys, s.locs, on_conflict, path)
    whole = len(dedup.idx) == len(keys)  # every row kept (no duplicate, no void): the columns as they are

    def column(name: str) -> list:
        col = s.column(name)
        return col if whole else np.array(col, dtype=object)[dedup.idx].tolist()

    return _result(path, s.recs, keys, dedup, column, [], [])


def _result(path: str | Path, recs: list[dict], keys: list[str], d: _Dedup, column, fnames: list[str],
            digests: list[str]) -> LoadResult:
    """The LoadResult of de-duplicated rows; ``column(name)``: field ``name`` over the kept rows."""
    tidy = _build_tidy(column, [keys[i] for i in d.idx] if len(d.idx) < len(keys) else keys, fnames)
    void: dict[str, int] = {}
    vrows = []
    for key, i in d.void_only.items():
        r = recs[i]
        void[r["arm"]] = void.get(r["arm"], 0) + 1
        vrows.append({"arm": r["arm"], "scenario": r["scenario"],
                      **{f"factor_{n}": _fstr((r.get("factors") or {}).get(n)) for n in fnames},
                      "match_key": key.split("|", 1)[1]})
    void_keys = pd.DataFrame(vrows, columns=["arm", "scenario", *[f"factor_{n}" for n in fnames], "match_key"])
    resolved = [f"{k} (kept {d.on_conflict}): " + " vs ".join(v) for k, v in d.conflicts.items()]
    return LoadResult(str(path), tidy, len(recs), void, void_keys, d.dup_dropped, d.void_superseded,
                      d.on_conflict, resolved, fnames, digests)


def _fstr(v) -> str:
    return "" if v is None else str(v)


TIDY_COLUMNS = ["cell_key", "match_key", "arm", "task", "scenario", "repeat", "injected", "outcome",
                "visible_pass", "hidden_pass", "shipped", "completion", "amplified", "not_amplified",
                "tokens_in", "tokens_out", "wall_s", "cost_usd", "model_id", "engine"]


def _build_tidy(col, keys: list[str], fnames: list[str]) -> pd.DataFrame:
    """The tidy frame of the kept rows; ``col(name)``: field ``name`` over them (None where a row lacks it)."""

    outcome = np.array(col("outcome"), dtype=object)
    scenario = np.array(col("scenario"), dtype=object)
    df = pd.DataFrame({
        "cell_key": keys,
        "arm": col("arm"), "task": col("task"), "scenario": scenario,
        "repeat": np.array(col("repeat"), dtype=np.int64),
        "injected": scenario != NULL_SCENARIO,
        "outcome": outcome,
        "visible_pass": np.array(col("visible_pass"), dtype=bool),
        "hidden_pass": np.array(col("hidden_pass"), dtype=bool),
        "shipped": np.array(col("shipped"), dtype=bool),
        "completion": np.isin(outcome, list(COMPLETION)).astype(np.int8),
        "amplified": (outcome == Outcome.AMPLIFIED.value).astype(np.int8),
        "not_amplified": np.isin(outcome, list(NOT_AMPLIFIED)).astype(np.int8),
        "tokens_in": pd.array(col("tokens_in"), dtype="Int64"),  # nullable: <NA> is unknown usage
        "tokens_out": pd.array(col("tokens_out"), dtype="Int64"),
        "wall_s": np.array(col("wall_s"), dtype=np.float64),
        "cost_usd": np.array([np.nan if v is None else float(v) for v in col("cost_usd")], dtype=np.float64),
        "model_id": [None if v is None else str(v) for v in col("model_id")],
        "engine": [None if v is None else str(v) for v in col("engine")],
    })
    for n in fnames:
        df[f"factor_{n}"] = [_fstr((f or {}).get(n)) for f in col("factors")]
    # match key: the cell key without the arm (task|scenario|repeat|factors)
    df["match_key"] = [k.split("|", 1)[1] for k in keys]
    df = df[TIDY_COLUMNS + [f"factor_{n}" for n in fnames]]
    return df.reset_index(drop=True)


def write_tidy(tidy: pd.DataFrame, out_dir: Path) -> None:
    """analysis.tidy.csv and analysis.parquet: one row per scored cell, sorted by cell key."""
    df = tidy.sort_values("cell_key", kind="mergesort").reset_index(drop=True)
    df.to_csv(out_dir / "analysis.tidy.csv", index=False, lineterminator="\n")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), out_dir / "analysis.parquet")
