"""Two runs joined cell by cell: the Proof-or-Stop paper's paired completion-vs-delivery readout
(Section 5 "Supplemental paired execution-status comparison", Table 12; Appendix B, Tables 24-28).

Each side (a run directory or a records file) is one arm. Rows are joined on a key made of
``task``, ``scenario``, ``repeat`` and (optionally) the matrix ``factors``; nothing is dropped in
silence:

* per side (Table 24): planned cells (the run's protocol when a run directory names one, else the
  union of both sides' cells), terminal cells (a scored record), pending cells (planned, no scored
  record: void-only or absent), extra rows that are not cells (restart duplicates, superseded or
  repeated voids, rows of unplanned keys) and contamination rows (rows of another protocol digest,
  task digest or model than the side's reference, ``Contamination``), reviewer evidence expected
  (the arm's controller has a reviewer) and observed (a record with ``review_rounds`` > 0);
* across the sides: cells terminal on one side only, or whose task digests differ
  (``Exclusion``), counted by reason beside the matched pairs.

Tables over the matched pairs: native outcomes before pairing (Table 25), the paired matrix of the
first side's terminal status against the second side's delivery decision (Tables 12 and 26), the
delivery x delivery and outcome x outcome matrices, the exact subclasses (Table 27), exact paired
tests (``analysis.paired``) and a cluster-aware interval by task, and the token readout (Table 28).
Rates are exact fractions printed at full precision (6 decimals of a percent) beside display
rounding (1 decimal); the full-precision rates of a partition (a paired matrix, the subclasses)
are apportioned by largest remainder so that the printed values sum to exactly 100%
(``partition_rates``).
"""
from __future__ import annotations

import itertools
import math
import operator
import os
import signal
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np

from analysis.pairs import Col, Pairs
from analysis.records import factor_suffix, fast_rows, load_records, row_columns
from analysis.summary import TokenSide
from harness.core import record
from harness.core.outcomes import Outcome
from harness.core.runmeta import RunMeta

KEY_FIELDS = ("arm", "task", "scenario", "repeat", "factors")
DEFAULT_KEY = ("task", "scenario", "repeat", "factors")  # one arm per side; add arm to join two multi-arm runs
# controllers whose arm asks a reviewer (harness.control.arms: A3 advisory review, A4 the evidence gate)
REVIEWED_CONTROLLERS = frozenset({"A3", "A4"})
# the harness's built-in arms (harness.core.builtin_parts): each can stop or recover
HARNESS_CONTROLLERS = frozenset({"A1", "A2", "A2p", "A3", "A4"})
COMPLETION = (Outcome.COMPLETED.value, Outcome.RECOVERED.value)  # values: the columns hold the file's strings
SCORED = tuple(o.value for o in Outcome if o is not Outcome.VOID)


class CompareError(ValueError):
    """Bad input to a comparison: one line naming the file and field."""


class Contamination(Enum):
    """Why a row is not a cell of its side's run (the paper's 'contamination rows', Table 24)."""

    PROTOCOL = "another protocol digest"
    TASK_DIGEST = "another task digest"
    MODEL = "another model"


class Exclusion(Enum):
    """Why a planned cell is not a matched pair."""

    ONLY_A = "terminal in A only"
    ONLY_B = "terminal in B only"
    NEITHER = "terminal in neither"
    TASK_DIGEST = "task digests differ between the runs"


@dataclass(frozen=True)
class Options:
    """What a comparison joins on, its labels, and the level of its intervals (1 - alpha)."""

    key: tuple[str, ...] = DEFAULT_KEY
    label_a: str = "A"
    label_b: str = "B"
    alpha: float = 0.05


@dataclass
class Side:
    """One run, read and split into terminal cells, pending cells, extra and contamination rows. Its rows are
    held as columns (``cols``: field -> value of each row, None where a row lacks it), so that the tables count
    over lists instead of walking a million records."""

    label: str
    source: str
    run_dir: bool
    arm: str
    rows: int
    plan: set[str] | None  # join keys of the run's plan, None when no plan was given
    plan_note: str
    terminal: dict[str, int] = field(default_factory=dict)  # join key -> the row of the scored record kept
    void_keys: set[str] = field(default_factory=set)  # join keys whose only rows are void
    contamination: Counter = field(default_factory=Counter)  # Contamination -> rows
    reference: dict[str, str | None] = field(default_factory=dict)
    schema_versions: list[int] = field(default_factory=list)
    controllers: list[str] = field(default_factory=list)
    arms: list[str] = field(default_factory=list)  # the arms its rows hold, sorted
    torn_last_line: int = 0  # a run's ledger line still being written (no newline): not read, counted
    cols: dict[str, list] = field(default_factory=dict)  # SIDE_FIELDS, each over every row
    names: set[str] = field(default_factory=set)  # the fields some row holds

    def __getstate__(self) -> dict:
        """Pickled (from the process that read it, ``_load_sides``) with the columns the tables read after the split
        (HANDED) only, and not those of fields no row holds; each string column's equal values made one object, so
        that the pickle writes each once (a million rows: 2.6 s -> 0.5 s to write, 1.0 s -> 0.85 s to read)."""
        state = dict(self.__dict__)
        state["cols"] = {f: _shared(c) if f in INTERNED else c
                         for f, c in self.cols.items() if f in self.names and f in HANDED}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for f in HANDED:
            self.cols.setdefault(f, [None] * self.rows)


def _shared(col: list) -> list:
    """``col`` with equal values as one object each (a pickle writes an object once, then refers to it)."""
    first: dict = {}
    return [first.setdefault(v, v) for v in col]


# the fields the tables read from a matched row, and those read over every row of a side
PAIR_FIELDS = (Col.TASK, Col.OUTCOME, Col.SHIPPED, Col.HIDDEN_PASS, Col.TOKENS_IN, Col.TOKENS_OUT, Col.CACHE_READ_TOKENS,
               Col.CACHE_WRITE_TOKENS, Col.REASONING_TOKENS, Col.COST_USD, Col.MODEL_ID, Col.ENGINE, Col.TREE_DIGEST_FINAL)
SIDE_FIELDS = (*PAIR_FIELDS, Col.ARM, Col.SCENARIO, Col.REPEAT, Col.FACTORS, Col.REVIEW_ROUNDS, Col.TASK_DIGEST)
HANDED = (*PAIR_FIELDS, Col.FACTORS, Col.REVIEW_ROUNDS, Col.TASK_DIGEST)  # read after the split (arm, scenario,
# repeat: not)
INTERNED = ("task", "outcome", "engine", "model_id", "tree_digest_final", "task_digest")  # strings, few distinct


class Row(NamedTuple):
    """One row of a side as ``_split`` reads it: its cell, its outcome and what screens it for contamination. A
    typed view over the side's columns (``Side.cols``, each field's value as the row holds it, None where it
    lacks it), never the records file's object: JSON stays in the reader (analysis.records, analysis.fastload)."""

    arm: Any
    task: Any
    scenario: Any
    repeat: Any
    factors: dict | None
    outcome: str
    protocol_digest: str | None
    task_digest: str | None
    model_id: str | None


IDENTITY = ("arm", "task", "scenario", "repeat")


def join_key(key: tuple[str, ...], arm: Any, task: Any, scenario: Any, repeat: Any, factors: dict | None) -> str:
    """The join key of a cell: the chosen fields in KEY_FIELDS order, '|'-separated."""
    parts = [str(v) for f, v in zip(IDENTITY, (arm, task, scenario, repeat)) if f in key]
    return "|".join(parts) + (factor_suffix(factors) if "factors" in key else "")


def parse_key(text: str) -> tuple[str, ...]:
    """--key [arm,]task,scenario,repeat[,factors]: task, scenario and repeat are required."""
    names = tuple(s.strip() for s in text.split(",") if s.strip())
    bad = [n for n in names if n not in KEY_FIELDS]
    missing = [n for n in ("task", "scenario", "repeat") if n not in names]
    if bad or missing:
        why = (f"field {', '.join(repr(n) for n in bad)} is not a join field ({', '.join(KEY_FIELDS)})" if bad
               else f"field {', '.join(repr(n) for n in missing)} is required")
        raise CompareError(f"--key {text}: {why}; expected task,scenario,repeat optionally with arm and factors")
    return tuple(f for f in KEY_FIELDS if f in names)


def _modal(values: list[Any]) -> Any:
    """The most frequent non-null value (first seen on a tie), or None."""
    seen = [v for v in values if v is not None]
    return Counter(seen).most_common(1)[0][0] if seen else None


def _run_meta(path: Path) -> RunMeta:
    meta_path = path / "run.json"
    if not meta_path.is_file():
        raise CompareError(f"{path}: not a run directory (no run.json) and not a records file")
    from harness.core import runio
    try:  # a FIFO or a link refused; malformed, nested past MAX_DEPTH, or an integer past 4,300 digits
        meta = runio.read_json(meta_path, "run.json")
    except (OSError, runio.UnsafeFile) as exc:
        raise CompareError(f"{meta_path}: not valid JSON ({exc})") from exc
    if not isinstance(meta, dict):
        raise CompareError(f"{meta_path}: expected a JSON object")
    run = RunMeta.from_json(meta)
    # the two fields compare reads (harness.core.runmeta.REQUIRED)
    for name, value in (("protocol_path", run.protocol_path), ("protocol_digest", run.protocol_digest)):
        if value is not None and not isinstance(value, str):
            raise CompareError(f"{meta_path}: field '{name}': must be a string; got {type(value).__name__}")
    return run


def _plan(meta: RunMeta, arms: list[str], key: tuple[str, ...]) -> tuple[set[str] | None, str]:
    """Join keys of the protocol's cells (run.json names the protocol), or why none: of every arm
    when ``arm`` is in the key (an arm not yet started is pending), else of ``arms``, the side's one.
    The protocol file is read as it is now: its lock digest must still be run.json's
    ``protocol_digest`` (as ``harness run --resume`` requires), else the plan is not the run's."""
    proto_path = meta.protocol_path
    if not proto_path:
        return None, "run.json names no protocol"
    from harness.core.errors import InputError
    from harness.core.matrix import enumerate_cells
    from harness.core.protocol import compute_lock, load_protocol
    try:
        proto = load_protocol(proto_path)
        now = compute_lock(proto)["digest"]
        cells = enumerate_cells(proto)
    except (InputError, OSError) as exc:
        return None, f"protocol {proto_path} unreadable ({exc})"
    if meta.protocol_digest and now != meta.protocol_digest:
        return None, (f"protocol {proto_path} changed since the run (run.json digest {meta.protocol_digest[:12]}..., "
                      f"now {now[:12]}...): its plan is not the run's")
    keys = {join_key(key, c.arm, c.task, c.scenario, c.repeat, dict(c.factors)) for c in cells
            if "arm" in key or c.arm in arms}
    return keys, f"the protocol's plan ({proto_path})"


def _contamination(row: Row, ref_digest: str | None, ref_model: str | None,
                   task_ref: dict[str, Any]) -> Contamination | None:
    """Why a row is not a cell of its side's run (its protocol digest, task digest or model is not the side's
    reference ``ref_digest``, ``task_ref`` of its task, ``ref_model``), or None."""
    if row.protocol_digest is not None and row.protocol_digest != ref_digest:
        return Contamination.PROTOCOL
    td = row.task_digest
    if td is not None and td != task_ref.get(row.task):
        return Contamination.TASK_DIGEST
    if row.model_id is not None and ref_model is not None and "model" not in (row.factors or {}) \
            and not _models(row.model_id) & _models(ref_model):
        return Contamination.MODEL
    return None


def _models(label: str) -> set[str]:
    """The models of a record's model_id (a cell with a reviewer lists worker and reviewer, comma-
    separated; one that stopped before review lists the worker only: sharing one is the same run)."""
    return {m.strip() for m in str(label).split(",") if m.strip()}


def _check_versions(column: list, locs: Sequence[str]) -> list[int]:
    """Schema versions present (``column``: each row's schema_version, None where it has none: v1); a version
    newer than this reader is an error."""
    given = [1 if v is None else v for v in column]  # the reader refused a null one (analysis.records)
    versions = sorted(set(given))
    for v, loc in zip(given, locs):
        if v not in record.READABLE_VERSIONS:
            raise CompareError(f"{loc}: field 'schema_version': {v!r} is not a record schema this reader knows "
                               f"({', '.join(map(str, record.READABLE_VERSIONS))})")
    return versions


def load_side(source: str | Path, label: str, key: tuple[str, ...]) -> Side:
    """Read one side: validate every row (analysis.records), then split it (module docstring). A file the
    columnar screen passes (``analysis.fastload``) is read, checked and split by column; any other row by row."""
    path = Path(source)
    is_dir = path.is_dir()
    meta = _run_meta(path) if is_dir else None
    records_path = path / "records.jsonl" if is_dir else path
    fast = fast_rows(records_path, complete_lines_only=is_dir)  # validated by column, or None: row by row
    # read once: the rows validated are the rows used; either way the reader (the serialization edge) hands
    # them over as columns, never as the file's objects
    rows = fast if fast is not None else row_columns(records_path, complete_lines_only=is_dir)
    if fast is None:  # validated row by row here; fast rows passed every check load_records makes with "first"
        load_records(records_path, on_conflict="first", raw=(rows.recs, rows.locs))  # raises RecordsError
    names, locs = rows.names, rows.locs  # a field no row holds needs no per-row check below
    n = len(locs)

    def column(name: str) -> list:
        return rows.column(name) if name in names else [None] * n

    versions = _check_versions(column("schema_version"), locs) if "schema_version" in names else [1]
    cols = {f: column(f) for f in (*SIDE_FIELDS, Col.PROTOCOL_DIGEST, Col.CONTROLLER)}
    for digest, loc in zip(cols[Col.TASK_DIGEST], locs) if "task_digest" in names else ():  # a producer's own
        if digest is not None and not isinstance(digest, str):  # field, outside the schema
            raise CompareError(f"{loc}: field 'task_digest': must be a string or null; got {type(digest).__name__}")
    arms = sorted(set(cols[Col.ARM]))
    if len(arms) != 1 and "arm" not in key:
        raise CompareError(f"{records_path}: field 'arm': holds arms {', '.join(arms)}; compare joins one arm "
                           "per side (write each arm's records to its own file), or pass --key arm,task,scenario,"
                           "repeat,factors to join two runs arm by arm")
    plan, note = _plan(meta, arms, key) if meta else (None, "no plan given (a records file)")
    ref = {"protocol_digest": (meta.protocol_digest if meta else None) or _modal(cols[Col.PROTOCOL_DIGEST]),
           "model_id": _modal(cols[Col.MODEL_ID])}
    digests_of: dict[str, list] = {}  # task -> its rows' task digests, in row order: one pass, however many tasks
    for t, d in zip(cols[Col.TASK], cols[Col.TASK_DIGEST]) if "task_digest" in names else ():
        digests_of.setdefault(t, []).append(d)
    task_ref = {t: _modal(v) for t, v in digests_of.items()}
    side = Side(label, str(source), is_dir, ", ".join(arms), n, plan, note, reference=ref,
                schema_versions=versions, arms=arms,
                controllers=sorted({str(c) for c in cols[Col.CONTROLLER] if c}), names=names,
                cols={f: cols[f] for f in SIDE_FIELDS})
    side.torn_last_line = int(is_dir and _ends_torn(records_path))
    if fast is None or not _split_columnar(side, key, ref, names):
        _split(side, cols[Col.PROTOCOL_DIGEST], locs, key, ref, task_ref, names)
    return side


def _ends_torn(path: Path) -> bool:
    """The file's last byte ends no line (and the file is not empty): a line being written. A last
    '\r' ends none: a run's ledger is read with complete lines only, which end at a line feed
    (analysis.records._read_jsonl)."""
    from harness.core import runio
    fd, st = runio.open_regular(path, "records file")  # a FIFO refused, never waited on
    try:
        return st.st_size > 0 and os.pread(fd, 1, st.st_size - 1) != b"\n"
    finally:
        os.close(fd)


def _split(side: Side, protocol_digests: list, locs: Sequence[str], key: tuple[str, ...], ref: dict, task_ref: dict,
           names: set[str]) -> None:
    """Fill ``side.terminal``/``void_keys``/``contamination``: the first scored row of each join
    key is kept; scored rows of one key with different outcomes, or one join key over two cells,
    are errors (the key is too coarse, or the run holds a conflict). ``names``: the fields some row
    holds (a row without protocol_digest, task_digest or, when the side has no reference model,
    model_id is no contamination; one without factors has no factor suffix). Row by row (a ``Row`` of
    the side's columns, and ``protocol_digests``, each row's): the reference ``_split_columnar`` agrees with."""
    side.terminal.clear()
    side.void_keys.clear()
    side.contamination.clear()
    cell_of: dict[str, tuple[str, str]] = {}
    in_key = [f in key for f in IDENTITY]
    with_factors = "factors" in key
    ref_digest, ref_model = ref[Col.PROTOCOL_DIGEST], ref[Col.MODEL_ID]
    screen = bool(names & {"protocol_digest", "task_digest"}) or ("model_id" in names and ref_model is not None)
    outcomes = side.cols[Col.OUTCOME]
    columns = [protocol_digests if f == Col.PROTOCOL_DIGEST else side.cols[Col(f)] for f in Row._fields]
    for i, (row, loc) in enumerate(zip(map(Row._make, zip(*columns)), locs)):
        why = _contamination(row, ref_digest, ref_model, task_ref) if screen else None
        if why is not None:
            side.contamination[why] += 1
            continue
        ident = (row.arm, row.task, row.scenario, row.repeat)
        suffix = factor_suffix(row.factors) if "factors" in names else ""  # both keys, built once a row
        jk = "|".join([str(v) for v, used in zip(ident, in_key) if used]) + (suffix if with_factors else "")
        cell = "|".join(map(str, ident)) + suffix
        first = cell_of.setdefault(jk, (cell, loc))
        if first[0] != cell:
            raise CompareError(f"{loc}: field 'factors': join key {jk!r} matches two cells ({first[0]} at {first[1]} "
                               f"and {cell}); add factors to --key")
        if row.outcome == Outcome.VOID:
            if jk not in side.terminal:
                side.void_keys.add(jk)
            continue
        kept = outcomes[side.terminal.setdefault(jk, i)]
        side.void_keys.discard(jk)
        if kept != row.outcome:
            raise CompareError(f"{loc}: field 'outcome': {row.outcome!r} conflicts with an earlier record of cell "
                               f"{cell} ({kept!r}); resolve the duplicate before comparing")


def _split_columnar(side: Side, key: tuple[str, ...], ref: dict, names: set[str]) -> bool:
    """``_split`` by column, for rows the columnar screen passed that hold no factors and no digests (so the
    only contamination is another model, and a join key names one cell: without factors the key's fields
    determine the cell, the arm being the side's one arm or part of the key). False, with nothing filled, when
    the rows do not fit or some join key holds scored rows with different outcomes: ``_split`` then reads them
    row by row and names the first conflict."""
    if names & {"factors", "protocol_digest", "task_digest"}:
        return False
    cols, n = side.cols, side.rows
    rows: list[int] | range = range(n)
    if "model_id" in names and ref[Col.MODEL_ID] is not None:  # another model: one test per distinct label
        mine = _models(ref[Col.MODEL_ID])
        other = {m for m in set(cols[Col.MODEL_ID]) if m is not None and not _models(m) & mine}
        if other:
            rows = [i for i, m in enumerate(cols[Col.MODEL_ID]) if m not in other]
            side.contamination[Contamination.MODEL] = n - len(rows)
    head = [f for f in ("arm", "task", "scenario", "repeat") if f in key]
    if head == ["task", "scenario", "repeat"]:
        jks = [f"{t}|{s}|{r}" for t, s, r in zip(cols[Col.TASK], cols[Col.SCENARIO], cols[Col.REPEAT])]
    else:
        jks = ["|".join(map(str, v)) for v in zip(*(cols[Col(f)] for f in head))]
    outcomes = cols[Col.OUTCOME]
    if len(rows) < n:
        jks, outcomes = [jks[i] for i in rows], [outcomes[i] for i in rows]
    scored = [j for j, o in enumerate(outcomes) if o != Outcome.VOID]  # positions in ``rows``
    skeys = list(map(jks.__getitem__, scored))
    first = dict(zip(reversed(skeys), reversed(scored)))  # each key's first scored position
    if len(first) < len(scored) and len(set(zip(skeys, map(outcomes.__getitem__, scored)))) != len(first):
        side.contamination.clear()
        return False  # a key with two outcomes: _split names it
    # a position in ``rows`` is the row itself unless contaminated rows were left out (the order of
    # ``terminal`` is never read: the tables sort by join key or count)
    side.terminal = first if isinstance(rows, range) else {k: rows[j] for k, j in first.items()}
    side.void_keys = {k for k, o in zip(jks, outcomes) if o == Outcome.VOID} - side.terminal.keys() \
        if len(scored) < len(outcomes) else set()
    return True


def record_cell_key(rec: record.CellRecord) -> str:
    """A record's cell (arm|task|scenario|repeat and its factors' suffix)."""
    return f"{rec.arm}|{rec.task}|{rec.scenario}|{rec.repeat}{factor_suffix(rec.factors)}"


# -- rates ---------------------------------------------------------------------------------------
def rate(k: int, n: int) -> dict[str, Any]:
    """A count over a denominator: exact fraction, full precision (6 decimals of a percent, rounded
    half up in exact arithmetic) and display rounding (1 decimal); an empty denominator is 'n/a'
    with the reason."""
    if n == 0:
        return {"count": k, "of": 0, "rate": None, "full": "n/a (no matched cells)", "display": "n/a"}
    micro = (Fraction(100 * 10**6 * k, n) + Fraction(1, 2)).__floor__()  # millionths of a percent
    return _rate(k, n, micro)


def _rate(k: int, n: int, micro: int) -> dict[str, Any]:
    return {"count": k, "of": n, "rate": k / n, "exact": f"{k}/{n}",
            "full": f"{micro // 10**6}.{micro % 10**6:06d}%", "display": percent(k, n, 1)}


def percent(k: int, n: int, decimals: int) -> str:
    """100 k / n with ``decimals`` decimals, rounded half up in exact arithmetic, as the full-
    precision column (a binary float rounds 7/2000 = 0.35% down to '0.3%', and formats half to even)."""
    return fixed(Fraction(100 * k, n), decimals, grouped=False) + "%"


def fixed(x: Fraction, decimals: int, grouped: bool = True) -> str:
    """A non-negative exact value with ``decimals`` decimals, rounded half up (1.125 -> '1.13'),
    with thousands separators when ``grouped``."""
    units = (x * 10**decimals + Fraction(1, 2)).__floor__()
    whole, frac = divmod(units, 10**decimals)
    head = f"{whole:,}" if grouped else str(whole)
    return f"{head}.{frac:0{decimals}d}" if decimals else head


def partition_rates(counts: list[int]) -> list[dict[str, Any]]:
    """Rates of cells that partition their total (a paired matrix, the exact subclasses): the full-
    precision column is apportioned by largest remainder (Hamilton) in millionths of a percent, so
    that it sums to exactly 100.000000% as Table 26's caption says ("sum to 100% before display
    rounding"); each value is within 0.000001 pp of its exact rate (correctly rounded when the
    correctly rounded values already sum to 100, as the paper's 1,037/106/5/4 do). Ties in the
    remainder go to the earlier cell. Display rounding (1 decimal) is per cell and need not sum."""
    n = sum(counts)
    if n == 0:
        return [rate(k, 0) for k in counts]
    exact = [Fraction(100 * 10**6 * k, n) for k in counts]
    micro = [x.__floor__() for x in exact]
    short = 100 * 10**6 - sum(micro)
    for i in sorted(range(len(counts)), key=lambda i: (-(exact[i] - micro[i]), i))[:short]:
        micro[i] += 1
    return [_rate(k, n, m) for k, m in zip(counts, micro)]


# -- completeness (Table 24) ---------------------------------------------------------------------
def planned_keys(a: Side, b: Side) -> tuple[set[str], set[str], str]:
    """Each side's planned join keys: its run's plan, else the union of both sides' cells (and the
    other side's plan when only that side has one)."""
    union = set(a.terminal) | a.void_keys | set(b.terminal) | b.void_keys
    pa = a.plan if a.plan is not None else (b.plan or set()) | union
    pb = b.plan if b.plan is not None else (a.plan or set()) | union
    other = " and the other run's plan" if (a.plan is None) != (b.plan is None) else ""
    return pa, pb, f"union of both inputs' cells{other} (no plan given)"


def _reviewer_expected(side: Side) -> str:
    if not side.controllers:
        return "unknown (no controller recorded)"
    reviewed = sorted(set(side.controllers) & REVIEWED_CONTROLLERS)
    if reviewed and len(reviewed) < len(side.controllers):
        return f"mixed ({', '.join(reviewed)} of {', '.join(side.controllers)})"
    return "yes" if reviewed else "no"


def _kept(side: Side, planned: set[str]) -> tuple[int, Any]:
    """How many of the side's terminal keys are planned, and their rows (every terminal row when each key is
    planned, as without a plan: no intersection of a million keys is built)."""
    if side.terminal.keys() <= planned:
        return len(side.terminal), side.terminal.values()
    kept = planned & side.terminal.keys()
    return len(kept), map(side.terminal.__getitem__, kept)


def completeness(side: Side, planned: set[str], note: str) -> dict[str, Any]:
    """Table 24 for one side."""
    terminal, _ = _kept(side, planned)
    contaminated = sum(side.contamination.values())
    rounds = side.cols[Col.REVIEW_ROUNDS]
    observed = "review_rounds" in side.names and any((rounds[i] or 0) > 0 for i in side.terminal.values())
    return {"label": side.label, "source": side.source, "arm": side.arm,
            "planned": len(planned), "planned_from": side.plan_note if side.plan is not None else
            f"{note}; {side.plan_note}" if side.run_dir else note,
            "terminal": terminal, "pending": len(planned) - terminal,
            "extra_rows": side.rows - contaminated - terminal,
            "contamination_rows": contaminated, "torn_last_line": side.torn_last_line,
            "contamination": {c.value: side.contamination.get(c, 0) for c in Contamination},
            "reference": dict(side.reference), "rows": side.rows,
            "reviewer_expected": _reviewer_expected(side), "reviewer_observed": "yes" if observed else "no",
            "controllers": side.controllers, "schema_versions": side.schema_versions}


def _take(side: Side, rows: list[int]) -> dict[str, list]:
    """PAIR_FIELDS of ``rows`` of a side (a field no row holds: None throughout, without a pass)."""
    return {f: list(map(side.cols[f].__getitem__, rows)) if f in side.names else [None] * len(rows)
            for f in PAIR_FIELDS}


def pair(a: Side, b: Side, pa: set[str], pb: set[str]) -> tuple[Pairs, dict[str, int]]:
    """Matched pairs (sorted by join key) and every other planned key counted by ``Exclusion``."""
    keys = sorted(pa | pb)
    n = len(keys)

    def rows(side: Side, planned: set[str]) -> np.ndarray:
        """The side's terminal row of each key, -1 where it has none (or the key is not in its plan)."""
        got = np.fromiter(map(side.terminal.get, keys, itertools.repeat(-1)), dtype=np.int64, count=n)
        if len(planned) < n:
            got[np.fromiter((k not in planned for k in keys), dtype=bool, count=n)] = -1
        return got

    ra, rb = rows(a, pa), rows(b, pb)
    has_a, has_b = ra >= 0, rb >= 0
    both = has_a & has_b
    if "task_digest" in a.names and "task_digest" in b.names:
        tda, tdb = a.cols[Col.TASK_DIGEST], b.cols[Col.TASK_DIGEST]
        at = np.flatnonzero(both)
        differ = [tda[i] is not None and tdb[j] is not None and tda[i] != tdb[j]
                  for i, j in zip(ra[at].tolist(), rb[at].tolist())]
        both[at[np.array(differ, dtype=bool)]] = False
    else:
        differ = []
    sel = np.flatnonzero(both)
    excluded = {Exclusion.ONLY_A: int((has_a & ~has_b).sum()), Exclusion.ONLY_B: int((~has_a & has_b).sum()),
                Exclusion.NEITHER: int((~has_a & ~has_b).sum()), Exclusion.TASK_DIGEST: int(sum(differ))}
    pairs = Pairs(list(map(keys.__getitem__, sel.tolist())), _take(a, ra[sel].tolist()), _take(b, rb[sel].tolist()))
    return pairs, {e.value: excluded[e] for e in Exclusion}


# -- native outcomes (Table 25) ------------------------------------------------------------------
NATIVE_ROWS = (  # (label, outcomes, n/a on a side without a control layer when 0)
    ("Completed directly", (Outcome.COMPLETED.value,), False),
    ("Recovered (a failure seen, then shipped)", (Outcome.RECOVERED.value,), True),
    ("Safe-stopped (not shipped)", (Outcome.SAFE_STOP.value,), True),
    ("False stop (not shipped, oracle would pass)", (Outcome.FALSE_STOP.value,), True),
    ("Amplified (shipped, hidden oracle red)", (Outcome.AMPLIFIED.value,), False),
    ("Failed terminal outcome (acceptance fail or unsafe)", (Outcome.ACCEPTANCE_FAIL.value, Outcome.UNSAFE.value),
     False),
    ("Completed/recovered total", COMPLETION, False),
    ("Stopped/failed total (not completed)", tuple(o for o in SCORED if o not in COMPLETION), False),
)


def native_outcomes(side: Side, planned: set[str], reviewer_expected: str) -> list[dict[str, Any]]:
    """Table 25 for one side over its terminal planned cells: a zero count of a control-layer
    outcome on a side without a reviewer whose runner is not one of the harness's arms is 'n/a'
    (the paper's no-review control). The harness's arms all stop or retry (A1 at its human gate, A2
    when its retries run out), so their zeros are counts, whatever the data."""
    total, rows = _kept(side, planned)
    counts = Counter(map(side.cols[Col.OUTCOME].__getitem__, rows))
    foreign = bool(side.controllers) and not set(side.controllers) & HARNESS_CONTROLLERS
    out = []
    for label, outs, control in NATIVE_ROWS:
        n = sum(counts.get(o, 0) for o in outs)
        shown = "n/a" if control and n == 0 and reviewer_expected == "no" and foreign else f"{n:,}"
        out.append({"row": label, "outcomes": list(outs), "count": n, "shown": shown, **rate(n, total)})
    return out


# -- paired matrices (Tables 12, 26, 27) ---------------------------------------------------------
def completed(r: record.CellRecord) -> bool:
    return r.outcome in COMPLETION


def completions(outcomes: list[str]) -> list[bool]:
    """``completed`` of each row of an outcome column."""
    return [o in COMPLETION for o in outcomes]


def truths(values: list) -> list[bool]:
    """``bool`` of each value of a column (a delivery flag)."""
    return list(map(bool, values))


def matrix_2x2(rows: list[bool], cols: list[bool], labels: tuple[tuple[str, str], tuple[str, str]]
               ) -> list[dict[str, Any]]:
    """Four cells (row yes/no x column yes/no), each a count and a rate over the matched pairs; ``rows`` and
    ``cols``: each pair's row and column value."""
    counts = Counter(zip(rows, cols))  # one pass for the four cells
    cells: list[dict[str, Any]] = []
    for rv, rl in ((True, labels[0][0]), (False, labels[0][1])):
        for cv, cl in ((True, labels[1][0]), (False, labels[1][1])):
            cells.append({"row": rl, "col": cl, "a": rv, "b": cv, "count": counts.get((rv, cv), 0)})
    return [{**c, **r} for c, r in zip(cells, partition_rates([c["count"] for c in cells]))]


def outcome_matrix(pairs: Pairs) -> dict[str, dict[str, int]]:
    """{A outcome: {B outcome: count}} over the outcomes present on either side."""
    ca = Counter(zip(pairs.a[Col.OUTCOME], pairs.b[Col.OUTCOME]))
    present = [o for o in SCORED if any(o in p for p in ca)]
    return {oa: {ob: ca.get((oa, ob), 0) for ob in present} for oa in present}


def subclasses(pairs: Pairs, la: str, lb: str) -> list[dict[str, Any]]:
    """Table 27: every non-empty (A outcome, B outcome) pair, with the Table 26 cell it falls in.
    An outcome Eq. 7 lets ship either way (unsafe) is split by B's delivery when both occur, so
    the subclasses always sum to Table 26's cells."""
    ca = Counter(zip(pairs.a[Col.OUTCOME], pairs.b[Col.OUTCOME], truths(pairs.b[Col.SHIPPED])))
    ships: dict[str, set[bool]] = {}
    for _, ob, sb in ca:
        ships.setdefault(ob, set()).add(sb)
    both_ways = {ob for ob, seen in ships.items() if len(seen) == 2}
    order = {o: i for i, o in enumerate(SCORED)}
    rows = []
    for (oa, ob, sb), k in sorted(ca.items(), key=lambda kv: (*oa_ob_order(kv[0][:2], order), not kv[0][2])):
        shown = f"{ob} ({'shipped' if sb else 'not shipped'})" if ob in both_ways else ob
        rows.append({"pair": f"{lb} {shown} + {la} {oa}", "a": oa, "b": ob, "b_shipped": sb, "count": k,
                     "table26": (oa in COMPLETION, sb)})
    return [{**s, **r} for s, r in zip(rows, partition_rates([s["count"] for s in rows]))]


def oa_ob_order(pair_: tuple[str, str], order: dict[str, int]) -> tuple[int, int]:
    """Sort subclasses by A's completion first (completed rows first), then A's and B's outcome."""
    return (0 if pair_[0] in COMPLETION else 1, order[pair_[1]] + 100 * order[pair_[0]])


# -- tests on the paired data --------------------------------------------------------------------
def paired_test(pairs: Pairs, endpoint: str, yes_a: list[bool], yes_b: list[bool], opts: Options) -> dict[str, Any]:
    """Exact McNemar on the discordant pairs and the difference B - A with Newcombe's interval (the
    conditional estimand: these cells), and the population estimand over tasks that ``harness analyze``
    prints (analysis.estimands.population_block: CR2 with Bell-McCaffrey df, or n/a with the reason).
    ``yes_a``/``yes_b``: each pair's endpoint on either side."""
    from analysis.estimands import population_block
    from analysis.paired import PairedTable, mcnemar_exact, mcnemar_log10, newcombe_paired

    cells: Counter = Counter(zip(pairs.a[Col.TASK], yes_b, yes_a))  # (task, B yes, A yes) -> pairs: one pass
    t = PairedTable(e=sum(k for (_, yb, ya), k in cells.items() if yb and ya),
                    f=sum(k for (_, yb, ya), k in cells.items() if yb and not ya),
                    g=sum(k for (_, yb, ya), k in cells.items() if not yb and ya),
                    h=sum(k for (_, yb, ya), k in cells.items() if not yb and not ya))
    p = mcnemar_exact(t)
    nd = newcombe_paired(t, opts.alpha)
    tasks = sorted({task for task, _, _ in cells})
    per_task = [_task_counts(cells, k) for k in tasks]
    pop = population_block([pc.k_a - pc.k_b for pc in per_task], [pc.n for pc in per_task], tasks,
                           per_task, "task", opts.alpha)
    return {
        "endpoint": endpoint, "n": t.n, "b_yes_a_no": t.f, "a_yes_b_no": t.g, "both": t.e, "neither": t.h,
        "estimand": f"difference in {endpoint} rate, {opts.label_b} - {opts.label_a}, over the {t.n} matched cells",
        "mcnemar": {"method": "exact McNemar (two-sided binomial on the discordant pairs)",
                    "discordant": t.f + t.g, "p": p, "p_log10": mcnemar_log10(t),
                    "status": "ok" if p is not None else "n/a (no discordant pairs)"},
        "newcombe": {"method": f"Newcombe 1998 hybrid score (method 10), {100 * nd.level:.4g}%",
                     "estimate": nd.estimate, "lo": nd.lo, "hi": nd.hi, "status": nd.why or "ok"},
        "cluster": {"method": {"interval": pop["method"]}, "estimand": (
            f"population: difference in {endpoint} rate, {opts.label_b} - {opts.label_a}, for tasks drawn like "
            f"these, clustered by task ({len(tasks)} tasks)"),
            "estimate": pop["estimate"], "lo": pop["lo"], "hi": pop["hi"],
            "status": "ok" if pop["reason"] is None else f"n/a: {pop['reason']}",
            "warnings": [pop["limit"]], "population": pop},
    }


def _task_counts(cells: Counter, task: str) -> Any:
    """PairedCounts of one task (B's endpoint as the first arm, as ``PairedCounts.from_outcomes(yb, ya)``)."""
    from analysis.paired import PairedCounts

    n = {(yb, ya): cells.get((task, yb, ya), 0) for yb in (True, False) for ya in (True, False)}
    return PairedCounts(sum(n.values()), n[(True, False)], n[(False, True)], n[(True, True)] + n[(True, False)],
                        n[(True, True)] + n[(False, True)])


# -- token readout (Table 28) --------------------------------------------------------------------
SUBFIELDS = (Col.CACHE_READ_TOKENS, Col.CACHE_WRITE_TOKENS, Col.REASONING_TOKENS)
USAGE_FIELDS = (Col.TOKENS_IN, Col.TOKENS_OUT, *SUBFIELDS)  # each side's usage columns (summed, rows reporting)
NO_ROWS = "n/a (no matched rows)"


def _reported(col: list) -> tuple[int, int]:
    """(sum, rows reporting) of one usage column, over the rows whose value is not null."""
    got = [v for v in col if v is not None]
    return sum(got), len(got)


def io_tokens(r: record.CellRecord) -> int | None:
    """Input + output tokens of one record, in the paper's input+output semantics: the harness
    writes uncached input in tokens_in and the cached parts beside it (cache_read_tokens,
    cache_write_tokens; harness.engines), so input = tokens_in + each cached part that is reported;
    reasoning_tokens are part of tokens_out and never added. None when usage is unknown."""
    if r.tokens_in is None or r.tokens_out is None:
        return None
    return r.tokens_in + (r.cache_read_tokens or 0) + (r.cache_write_tokens or 0) + r.tokens_out


def io_list(cols: dict[str, list]) -> list[int | None]:
    """``io_tokens`` of each row, computed a column at a time (the same sums, in Python integers)."""
    ti, to, cr, cw = (cols[n] for n in (Col.TOKENS_IN, Col.TOKENS_OUT, Col.CACHE_READ_TOKENS, Col.CACHE_WRITE_TOKENS))
    if None not in ti and None not in to and cr.count(None) == len(cr) and cw.count(None) == len(cw):
        return list(map(operator.add, ti, to))  # every row reports usage, none a cached part
    return [None if a is None or b is None else a + (c or 0) + (w or 0) + b for a, b, c, w in zip(ti, to, cr, cw)]


def side_tokens(cols: dict[str, list], io: list[int | None]) -> dict[str, Any]:
    """One side's Table 28 column over its matched rows (``cols``, and ``io``: their ``io_list``); a field no
    row reports is 'not exposed'."""
    n = len(io)
    out: dict[str, Any] = {"rows": n}
    silent = "not exposed" if n else NO_ROWS  # no row to report it: an empty denominator, not silence
    for col in USAGE_FIELDS:
        s, k = _reported(cols[col])
        out[col.value] = {"sum": s if k else None, "rows_reporting": k,
                     "shown": f"{s:,} over {k:,} rows" if k else silent}
    known: list[int] = [t for t in io if t is not None]
    out["io_rows"] = len(known)
    out["io"] = sum(known) if known else None
    out["io_mean"] = sum(known) / len(known) if known else None
    out["io_mean_shown"] = fixed(Fraction(sum(known), len(known)), 1) if known else "n/a"
    ti, cr, cw = cols[Col.TOKENS_IN], cols[Col.CACHE_READ_TOKENS], cols[Col.CACHE_WRITE_TOKENS]
    cached = [i for i, (c, t) in enumerate(zip(cr, ti)) if c is not None and t is not None] \
        if cr.count(None) < n else []
    if cached:
        c = sum(cr[i] for i in cached)
        inp = sum(ti[i] + cr[i] + (cw[i] or 0) for i in cached)
        out["cached_share"] = {"cached": c, "input": inp, "rows": len(cached), **rate(c, inp),
                               "shown": (f"{c:,} / {inp:,} input tokens ({percent(c, inp, 2)})" if inp else "n/a (no input)")
                               + (f" over {len(cached):,} of {n:,} rows" if len(cached) < n else "")}
    else:
        out["cached_share"] = {"shown": "not separately exposed" if n else NO_ROWS, "rows": 0}
    priced = cols[Col.COST_USD]
    total: float | None = sum(priced) if n and None not in priced else None  # in pair order, as the rows come
    out["cost_overflow"] = total is not None and not math.isfinite(total)  # finite costs can sum to inf
    out["cost_usd"] = None if out["cost_overflow"] else total
    out["priced_rows"] = n - priced.count(None)
    models = sorted({str(m) for m in set(cols[Col.MODEL_ID]) if m})
    out["model"] = ", ".join(models) if models else "not recorded"
    return out


def token_readout(pairs: Pairs, la: str, lb: str) -> dict[str, Any]:
    """Table 28: both columns, the ratio B/A and increment B - A of input+output tokens over the
    pairs where both sides report usage, and cost where every matched row of both sides is priced."""
    ioa, iob = io_list(pairs.a), io_list(pairs.b)
    ta, tb = side_tokens(pairs.a, ioa), side_tokens(pairs.b, iob)
    ya, yb = TokenSide.from_json(ta, USAGE_FIELDS), TokenSide.from_json(tb, USAGE_FIELDS)  # read typed, kept as JSON
    if None in ioa or None in iob:
        both: list[tuple[int, int]] = [(x, y) for x, y in zip(ioa, iob) if x is not None and y is not None]
        n_both, sa, sb = len(both), sum(x for x, _ in both), sum(y for _, y in both)
    else:  # every pair reports usage on both sides
        n_both, sa, sb = len(ioa), sum(cast(list[int], ioa)), sum(cast(list[int], iob))
    res: dict[str, Any] = {"a": ta, "b": tb, "pairs_with_usage": n_both, "pairs": len(pairs),
                           "semantics": "input+output; cached input and reasoning output are reported "
                                        "separately and never added twice"}
    if ya.model != yb.model:
        res["model_note"] = (f"the model labels differ ({la}: {ya.model}; {lb}: {yb.model}): the ratio compares "
                             "different models' token counts; read the side-by-side counts")
    res["ratio"] = sb / sa if sa else None
    res["ratio_shown"] = fixed(Fraction(sb, sa), 2) + "x" if sa else _no_ratio(ya, yb, n_both, la, lb)
    res["increment"] = sb - sa if n_both else None
    if ya.cost_overflow or yb.cost_overflow:
        res["cost"] = {"status": "n/a: the sum of cost_usd overflows a double (" + " and ".join(
            lbl for lbl, t in ((la, ya), (lb, yb)) if t.cost_overflow) + ")"}
    elif ya.cost_usd is not None and yb.cost_usd is not None:
        ratio = yb.cost_usd / ya.cost_usd if ya.cost_usd else None
        res["cost"] = {"a": ya.cost_usd, "b": yb.cost_usd,
                       "ratio": ratio if ratio is None or math.isfinite(ratio) else None}
    else:
        res["cost"] = {"status": f"n/a: not both sides priced ({la} {ya.priced_rows:,} of {len(pairs):,} rows, "
                                 f"{lb} {yb.priced_rows:,} of {len(pairs):,})"}
    return res


def _no_ratio(ta: TokenSide, tb: TokenSide, n_both: int, la: str, lb: str) -> str:
    """Why there is no ratio B/A: no matched pair, the side(s) without usage, or A's zero total."""
    if not ta.rows:
        return NO_ROWS
    if n_both:
        return f"n/a ({la} has 0 input+output tokens over the {n_both:,} pairs where both report usage)"
    silent = [lbl for lbl, t in ((la, ta), (lb, tb)) if not t.io_rows]
    if silent:
        return f"n/a ({' and '.join(silent)} report{'s' if len(silent) == 1 else ''} no input+output tokens)"
    return "n/a (no pair where both sides report usage)"


def _no_match_hint(a: Side, b: Side, key: tuple[str, ...]) -> str:
    """Why two sides with terminal cells share none: the key's arm or factors differ between them."""
    def facs(side: Side) -> set[str]:
        facs = side.cols[Col.FACTORS]
        return {f"{k}={v}" for i in side.terminal.values() for k, v in (facs[i] or {}).items()}
    diff = sorted({f.split("=", 1)[0] for f in facs(a) ^ facs(b)}) if "factors" in key else []
    why = [f"factor {', '.join(diff)} differs"] if diff else []
    why += ["the arms differ"] if "arm" in key and a.arm != b.arm else []
    return ("No cell is terminal on both sides" + (f" ({'; '.join(why)})" if why else "") + ": the join key ("
            + ", ".join(key) + ") must be equal on both sides; leave out of --key what differs between the runs.")


# -- the whole comparison ------------------------------------------------------------------------
def compare(source_a: str | Path, source_b: str | Path, opts: Options, default_labels: bool = False) -> dict[str, Any]:
    """Every table of the readout as one JSON-ready dict (compare.json). ``default_labels``: the command line's
    labels, where an empty label is its side's arm (the one arm its rows hold, else the name of the file or
    folder, else A/B) and two equal labels become 'L (A)' and 'L (B)'; resolved from the rows the comparison
    reads, so each input is read once (a second read for the labels took ~40% of the command at 100,000 rows)."""
    from analysis.fastload import gc_paused

    with gc_paused():
        return _compare(source_a, source_b, opts, default_labels)


def default_label(side: Side, fallback: str) -> str:
    """A side's name when none is given: its one arm, else the name of its file or folder, else ``fallback``."""
    if len(side.arms) == 1 and side.arms[0]:
        return side.arms[0]
    return Path(side.source).name or fallback


def _labelled(a: Side, b: Side, opts: Options, default_labels: bool) -> Options:
    """``opts`` with the command line's labels resolved (``compare``'s ``default_labels``), set on both sides."""
    if default_labels:
        la, lb = opts.label_a or default_label(a, "A"), opts.label_b or default_label(b, "B")
        if la == lb:
            la, lb = f"{la} (A)", f"{lb} (B)"
        opts = replace(opts, label_a=la, label_b=lb)
    a.label, b.label = opts.label_a, opts.label_b
    return opts


PARALLEL_BYTES = 32 << 20  # both inputs at least this large (~130,000 rows each): B is read in a second process


def _records_size(source: str | Path) -> int:
    path = Path(source)
    try:
        return (path / "records.jsonl" if path.is_dir() else path).stat().st_size
    except OSError:
        return 0


def _load_sides(source_a: str | Path, source_b: str | Path, opts: Options) -> tuple[Side, Side]:
    """Both sides, as ``load_side`` reads them one after the other. When both inputs are large, B is read in a
    forked process while this one reads A (the read is most of a comparison's time and the machine has two
    cores), and handed back pickled. Anything but B's Side from a child that exited cleanly (B's input refused,
    the child killed, no fork) and B is read here, after A, so every error is the one, and in the order, the
    serial reads give."""
    if not hasattr(os, "fork") or min(_records_size(source_a), _records_size(source_b)) < PARALLEL_BYTES:
        return load_side(source_a, opts.label_a, opts.key), load_side(source_b, opts.label_b, opts.key)
    import pickle

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: read B, write it, leave without running the parent's exit handlers
        code = 1
        try:
            os.close(r)
            data = pickle.dumps(load_side(source_b, opts.label_b, opts.key), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as fh:
                fh.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    data, status = b"", 1
    try:
        a = load_side(source_a, opts.label_a, opts.key)
        with os.fdopen(r, "rb") as fh:
            r = -1
            data = fh.read()
    finally:
        if r != -1:  # A was refused (or interrupted): B is not waited for
            os.close(r)
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if status == 0 and data:
        try:
            return a, pickle.loads(data)
        except Exception:  # noqa: BLE001 - a damaged hand-over: read B here
            pass
    return a, load_side(source_b, opts.label_b, opts.key)


def _compare(source_a: str | Path, source_b: str | Path, opts: Options, default_labels: bool) -> dict[str, Any]:
    a, b = _load_sides(source_a, source_b, opts)
    opts = _labelled(a, b, opts, default_labels)
    from analysis.adjudicated import adjudicated, token_convention

    pa, pb, note = planned_keys(a, b)
    ca, cb = completeness(a, pa, note), completeness(b, pb, note)
    pairs, excluded = pair(a, b, pa, pb)
    la, lb = opts.label_a, opts.label_b
    tokens = token_readout(pairs, la, lb)
    done_a, shipped_a, shipped_b = completions(pairs.a[Col.OUTCOME]), truths(pairs.a[Col.SHIPPED]), truths(pairs.b[Col.SHIPPED])
    return {
        "labels": {"a": la, "b": lb}, "key": list(opts.key),
        "completeness": {"a": ca, "b": cb, "matched": len(pairs), "excluded": excluded,
                         "same_input": Path(source_a).resolve() == Path(source_b).resolve(),
                         "no_match_hint": _no_match_hint(a, b, opts.key) if not pairs and ca["terminal"] and cb["terminal"]
                         else None},
        "native": {"a": native_outcomes(a, pa, ca["reviewer_expected"]),
                   "b": native_outcomes(b, pb, cb["reviewer_expected"])},
        "completion_vs_delivery": matrix_2x2(done_a, shipped_b,
                                             ((f"{la} completed", f"{la} not completed"),
                                              (f"{lb} delivered (shipped)", f"{lb} not delivered (stopped)"))),
        "delivery": matrix_2x2(shipped_a, shipped_b,
                               ((f"{la} delivered", f"{la} not delivered"), (f"{lb} delivered", f"{lb} not delivered"))),
        "outcomes": outcome_matrix(pairs),
        "subclasses": subclasses(pairs, la, lb),
        "tests": [paired_test(pairs, "delivery (shipped)", shipped_a, shipped_b, opts),
                  paired_test(pairs, "completion", done_a, completions(pairs.b[Col.OUTCOME]), opts)],
        "tokens": tokens,
        "wording": WORDING.format(a=la, b=lb, n=len(pairs)),
        "adjudicated": adjudicated(pairs, ((la, str(source_a)), (lb, str(source_b))), tokens["increment"]),
        "token_convention": token_convention([(la, pairs.keys, pairs.a), (lb, pairs.keys, pairs.b)]),
    }


WORDING = ("Descriptive paired readout over {n} matched cells. Rows are {a}'s terminal status; columns are {b}'s "
           "delivery decision (shipped or not). The delivery decision is not hidden-oracle adjudicated: a stop "
           "in these columns is not a verdict that the other run's artifact was incorrect, and a delivery is "
           "not a verdict that it was correct. Completion is the records' outcome (completed or recovered, "
           "Eq. 7), as adjudicated by each run's own producer. The token readout is not a dollar-cost estimate.")
