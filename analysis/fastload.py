"""Columnar screening of a JSON-lines records file (issue 37: analysis at a million records).

``analysis.records`` validates every row with a Python call (and a JSON-Schema pass) per row: about 100 us a
row, 100 s at a million. Most files hold rows of one plain shape: the interchange minimum plus cost_usd,
engine and model_id, each a scalar. ``valid_rows`` parses such a file with one plain ``json.loads`` call (its
lines joined into one array) and checks each field over the whole column at once (the set of types a column
holds, its numeric range as one array, its few distinct strings one by one), then runs the per-row validator
itself on one row of every distinct combination of outcome, flags and value types, so a case the column checks
did not foresee still meets the per-row rules. It returns the rows and their columns (``Screened``) only when
every check passes; anything else (another field, a nested value, a duplicate key, a backslash-u escape, a
carriage return, a value out of range, a string that may span two lines of the joined array) returns None, and
the caller reads the file row by row, whose messages name file, line and field. The fast path therefore never
accepts a file the per-row path rejects, and the rows it returns are the ones ``json.loads`` gives the per-row
path, so every number computed from them is unchanged (tests/analysis/test_output_snapshot.py; the fast and
per-row paths side by side on generated files: tests/analysis/test_fast_path_differential.py).
"""
from __future__ import annotations

import gc
import json
import operator
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from pathlib import Path

import numpy as np

from harness.core import record
from harness.core.outcomes import Outcome

CORE = (*record.REQUIRED, "cost_usd", "engine", "model_id")
VOID = Outcome.VOID.value  # the outcome column holds the file's strings
_NONE = type(None)


class _Missing:
    """The value of a field a row does not hold (never a JSON value)."""


MISSING = _Missing()
_INT_MAX = 2**63 - 1
_SPACED_COLON = re.compile(r'"[ \t]+:')  # JSON allows blanks between a key and its colon; json.dumps writes none


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block: a million parsed rows are a million dicts, and each
    collection of the oldest generation walks all of them (the collector's cost grows with the rows alive, so a
    load's cost would grow faster than its rows). Rows hold no cycles; the collector resumes as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass
class Screened:
    """A file the screen passed: its rows (as ``json.loads`` gives them to the per-row path), their 'FILE:LINE'
    labels, and each CORE field as a list over the rows (``MISSING`` where a row lacks an optional one), so the
    callers count and join by column without walking the rows again."""

    recs: list[dict]
    locs: Sequence[str]
    cols: dict[str, list]
    names: set[str]  # the fields some row holds
    partial: set[str]  # the CORE fields some row lacks (their columns hold MISSING)

    def __iter__(self) -> Iterator:
        """(rows, labels), as ``analysis.records.read_raw`` returns them."""
        return iter((self.recs, self.locs))

    def column(self, name: str) -> list:
        """Field ``name`` over the rows, None where a row lacks it (``dict.get``'s value)."""
        col = self.cols.get(name)
        if col is None:
            return [None] * len(self.recs)
        return [None if v is MISSING else v for v in col] if name in self.partial else col


class Labels(Sequence[str]):
    """'FILE:LINE' of each row, made when read (a million labels are only read to name a problem)."""

    def __init__(self, path: Path, numbers: Sequence[int]):
        self.path, self.numbers = path, numbers

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [f"{self.path}:{n}" for n in self.numbers[i]]
        return f"{self.path}:{self.numbers[i]}"

    def __iter__(self) -> Iterator[str]:
        return (f"{self.path}:{n}" for n in self.numbers)


def _lines(path: Path, complete_lines_only: bool) -> tuple[Sequence[int], list[str] | None, str | None] | None:
    """The line numbers of the non-blank lines (numbered as the per-row reader numbers them), their texts, and
    the file's text of exactly those lines (their '\\n's between them) when no line is blank. When every line is
    one '{...}' with nothing around it (as json.dumps writes), the texts are not split apart (None)."""
    from harness.core import runio

    try:  # opened as the per-row reader opens it: a FIFO or socket swapped in after the caller's is_file is
        # refused (the per-row reader then names it), never waited on
        fd = runio.open_regular(path, "records file", follow=True)[0]
        with os.fdopen(fd, "rb") as fh:
            text = fh.read().decode("utf-8")
    except (OSError, UnicodeDecodeError, runio.UnsafeFile):
        return None
    # universal newlines and lone surrogates: the per-row reader's cases ('\\' first: one character, found fast)
    if "\r" in text or "\\" in text and "\\u" in text:
        return None
    if complete_lines_only:
        text = text[: text.rfind("\n") + 1]
    body = text[:-1] if text.endswith("\n") else text
    newlines = body.count("\n")
    if body.startswith("{") and body.endswith("}") and body.count("}\n{") == newlines:
        return range(1, newlines + 2), None, body  # each line '{...}', none blank: line i is row i
    lines = text.split("\n")
    cut = len(text)
    if lines and not lines[-1].strip():
        cut -= len(lines.pop()) + 1  # the text after the last newline, when blank: no line
    if "" not in lines and not any(map(str.isspace, lines)):  # no blank line: line i is row i
        return range(1, len(lines) + 1), lines, text[:cut] if cut < len(text) else text
    numbered = [(i, line) for i, line in enumerate(lines, 1) if line.strip()]
    return [i for i, _ in numbered], [line for _, line in numbered], None


_ACROSS = re.compile(r"\}\s*,\s*\{")  # what a string spanning two lines holds where they were joined


def _parse(lines: list[str] | None, body: str | None, n: int) -> list[dict] | None:
    """The ``n`` lines as one JSON array (one parser call, not one a line); None unless each line is exactly one
    flat object with each key named once. ``lines``: their texts (None when each is known to be one '{...}');
    ``body``: their text joined by '\\n', when the file holds it."""
    if lines is not None and not (all(map(str.startswith, map(str.lstrip, lines), repeat("{")))
                                  and all(map(str.endswith, map(str.rstrip, lines), repeat("}")))):
        return None
    joined = "".join(("[", body.replace("\n", ",") if body is not None else ",".join(lines or []), "]"))
    try:
        recs = json.loads(joined)
    except (ValueError, RecursionError):
        return None
    if len(recs) != n or set(map(type, recs)) != {dict}:
        return None
    # json.loads keeps one of two equal keys, where the per-row reader rejects the line. Each key of a flat object
    # is followed by its own ':', so a text holding exactly as many ':' as the rows hold keys names no key twice,
    # whatever its spacing. With ':' inside values, the count of '":' must equal the keys instead, and no key may
    # be spelled '"k" :' (review r37: such a key escapes that count); any other file is not screened
    keys = sum(map(len, recs))
    colons = joined.count(":")
    if colons != keys:
        if joined.count('":') != keys or _SPACED_COLON.search(joined):
            return None
    return recs


def _types(col: list) -> set[type]:
    return set(map(type, col))


def _numbers_ok(col: list, types: set[type], ints: bool, void: np.ndarray, none_ok: str) -> bool:
    """Every value an int (ints) or int/float, finite, >= 0 and within int64; None where ``none_ok`` allows it
    ('always', 'if_void': on a void row only, or 'never'). ``types``: the set of the values' types."""
    allowed = {int} if ints else {int, float}
    if not types <= allowed | {_NONE}:
        return False
    vals = col
    if _NONE in types:
        is_none = np.fromiter(map(operator.is_, col, repeat(None)), dtype=bool, count=len(col))
        if none_ok == "never" or none_ok == "if_void" and (is_none & ~void).any():
            return False
        vals = [v for v in col if v is not None]
    if not vals:
        return True
    try:
        arr = np.array(vals, dtype=np.int64 if ints else np.float64)
    except OverflowError:
        return False
    if ints:
        return bool(arr.min() >= 0 and arr.max() <= _INT_MAX)
    return bool(np.isfinite(arr).all() and arr.min() >= 0)


def _strings_ok(col: list, types: set[type], scenarios: set[str] | None, name: str,
                null_spellings: frozenset[str]) -> bool:
    if types != {str}:
        return False
    for v in set(col):
        if not v.strip() or "|" in v:
            return False
        if name == "scenario" and (v != record.NULL_SCENARIO and v.strip().lower() in null_spellings
                                   or scenarios is not None and v not in scenarios):
            return False
    return True


def _columns(recs: list[dict]) -> tuple[dict[str, list], set[str], set[str]] | None:
    """Each CORE field as a list over the rows (``MISSING`` where a row lacks an optional one), the fields some
    row lacks and the fields some row holds; None when a row holds a field outside CORE or lacks a required one."""
    n = len(recs)
    fields = sorted(recs[0])
    if set(map(len, recs)) == {len(fields)} and set(fields) <= set(CORE):
        try:  # every row holds the first row's fields (as many, and each found): one tuple a row, transposed
            got = dict(zip(fields, map(list, zip(*map(itemgetter(*fields), recs))))) if len(fields) > 1 else \
                {fields[0]: [r[fields[0]] for r in recs]}
        except KeyError:
            pass
        else:
            names = set(fields)
            if not set(record.REQUIRED) <= names:
                return None
            return {f: got.get(f) or [MISSING] * n for f in CORE}, set(CORE) - names, names
    names = set().union(*map(dict.keys, recs))
    if not names <= set(CORE) or not set(record.REQUIRED) <= names:
        return None
    cols = {f: [r.get(f, MISSING) for r in recs] for f in CORE}
    partial = {f for f in CORE if MISSING in cols[f]}
    if partial & set(record.REQUIRED):
        return None
    return cols, partial, names


def _columns_ok(cols: dict[str, list], kinds: dict[str, set[type]], scenarios: set[str] | None,
                null_spellings: frozenset[str]) -> bool:
    """Every column passes the per-row rules; ``kinds``: the set of each column's value types."""
    if kinds["outcome"] != {str} or not set(cols["outcome"]) <= set(record.OUTCOMES):  # types first: a
        # list is unhashable (Hypothesis, tests/analysis/test_records_fuzz.py)
        return False
    void = np.array([o == VOID for o in cols["outcome"]], dtype=bool)
    if not all(_strings_ok(cols[f], kinds[f], scenarios, f, null_spellings) for f in ("arm", "task", "scenario")):
        return False
    if kinds["repeat"] != {int} or not _numbers_ok(cols["repeat"], kinds["repeat"], True, void, "never") \
            or min(cols["repeat"]) < 1:
        return False
    for f in ("visible_pass", "hidden_pass", "shipped"):
        types = kinds[f]
        if not types <= {bool, _NONE} or _NONE in types and any(v is None and not vd for v, vd in zip(cols[f], void)):
            return False
    if not all(_numbers_ok(cols[f], kinds[f], True, void, "always") for f in ("tokens_in", "tokens_out")):
        return False
    if not _numbers_ok(cols["wall_s"], kinds["wall_s"], False, void, "if_void"):
        return False
    present = [v for v in cols["cost_usd"] if v is not MISSING] if _Missing in kinds["cost_usd"] else cols["cost_usd"]
    if not _numbers_ok(present, kinds["cost_usd"] - {_Missing}, False, np.ones(len(present), dtype=bool), "always"):
        return False
    return all(kinds[f] - {_Missing} <= {str, _NONE} for f in ("engine", "model_id"))


def _spans_lines(cols: dict[str, list], kinds: dict[str, set[type]]) -> bool:
    """Some string holds '}' ',' '{' (blanks between): it may be a string the one-array parse read across two
    lines (line 1 '{"arm": "}', line 2 '{"}' are one record there, and two malformed lines row by row)."""
    return any(_ACROSS.search(v) for f in CORE if str in kinds[f] for v in set(cols[f]) if isinstance(v, str) and "," in v)


def _representatives(cols: dict[str, list], kinds: dict[str, set[type]]) -> list[int]:
    """One row index per distinct (outcome, flags, the type of every field, absent fields included); a field
    whose values are all of one type (``kinds``) tells no rows apart and is left out of the signature."""
    flags = [cols[f] for f in ("outcome", "visible_pass", "hidden_pass", "shipped")]
    sigs = list(zip(*flags, *(map(type, cols[f]) for f in CORE if len(kinds[f]) > 1)))
    first = dict(zip(reversed(sigs), range(len(sigs) - 1, -1, -1)))  # each signature's first row
    return sorted(first.values())


def valid_rows(path: str | Path, scenarios: set[str] | None, complete_lines_only: bool, validate: Callable,
               null_scenario: Callable, null_spellings: frozenset[str]) -> Screened | None:
    """The rows, their 'FILE:LINE' labels and their columns (``Screened``) when the file is JSON lines of the plain shape and every check passes;
    None otherwise (the caller reads it row by row). Only for files ``analysis.records.read_raw`` reads as
    JSON lines. ``validate``, ``null_scenario`` and ``null_spellings`` are the per-row reader's own
    (``analysis.records.fast_rows`` passes them), so the rules are never copied."""
    path = Path(path)
    suffix = "".join(path.suffixes[-2:]).lower() if path.suffix == ".gz" else path.suffix.lower()
    if suffix in (".csv", ".tsv", ".parquet", ".pq") or not path.is_file():
        return None
    numbered = _lines(path, complete_lines_only)
    if not numbered or not numbered[0]:
        return None
    numbers, lines, body = numbered
    recs = _parse(lines, body, len(numbers))
    if recs is None:
        return None
    got = _columns(recs)
    if got is None:
        return None
    cols, partial, names = got
    if None in cols["scenario"]:  # a JSON null scenario: the per-row reader's reading of it
        scenario = cols["scenario"]
        for i in [i for i, v in enumerate(scenario) if v is None]:
            scenario[i] = null_scenario(recs[i])["scenario"]
    kinds = {f: _types(cols[f]) for f in CORE}
    if not _columns_ok(cols, kinds, scenarios, null_spellings) or _spans_lines(cols, kinds):
        return None
    problems: list[str] = []
    for i in _representatives(cols, kinds):
        validate(recs[i], f"{path}:row", scenarios, problems)
    if problems:
        return None
    return Screened(recs, Labels(path, numbers), cols, names, partial)
