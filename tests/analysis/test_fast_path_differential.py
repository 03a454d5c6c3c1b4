"""The columnar fast path (analysis.fastload, records._load_screened, compare._split_columnar and the column tables)
against the per-row path, the reference, on generated records files (issue 37: analysis at scale keeps every
printed number). Each file is analyzed and compared twice: as it comes (a plain-shaped file takes the fast path)
and with the columnar screen switched off (``fastload.valid_rows`` declining, so every row is read, validated,
keyed and split row by row). The outputs must be byte-identical: analyze's report.md, summary.json,
per-scenario.csv, tidy CSV and Parquet, compare's whole result as JSON; and a file the per-row path refuses must be
refused with the same one-line message (file, line and field) by both.

The generator mixes what a producer writes: Eq. 7-consistent flags and, now and then, inconsistent ones; void
rows, restart duplicates and conflicting duplicates; JSON null scenarios; a quote, a colon and a non-ASCII letter in
a task name (escaped as \\u00e2 or written as it is); unknown usage (null tokens); integer
and float wall times and costs, absent or null costs, engines and models; an extra field now and then (read row by
row on both sides); shuffled keys, compact and spaced separators, blank lines. Each test also counts the files the columnar screen
passed, so that it never compares the per-row path with itself."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import compare as compare_module
from analysis import fastload
from analysis.compare import CompareError, Options, compare
from analysis.pipeline import analyze
from analysis.records import RecordsError, fast_rows
from harness.core import record

OUTCOMES = record.OUTCOMES
FLAGS = ("visible_pass", "hidden_pass", "shipped")
# the (visible, hidden, shipped) flags each outcome allows (Eq. 7), found by asking the reader's own rule
CONSISTENT = {o: [f for f in ((v, h, s) for v in (True, False) for h in (True, False) for s in (True, False))
                  if record.eq7_violation(o, dict(zip(FLAGS, f))) is None] for o in OUTCOMES if o != "void"}
ANALYZE_FILES = ("report.md", "summary.json", "per-scenario.csv", "analysis.tidy.csv", "analysis.parquet")


@st.composite
def a_row(draw, arm: str) -> dict:
    """A row the per-row reader accepts (Eq. 7-consistent flags), with the optional fields drawn."""
    outcome = draw(st.sampled_from(OUTCOMES))
    if outcome == "void":
        flags = draw(st.sampled_from([(None, None, None), (False, False, False)]))
    else:
        flags = draw(st.sampled_from(CONSISTENT[outcome]))
    tokens = st.one_of(st.integers(0, 400_000), st.none(), st.just(2**63 - 1))
    row = {"arm": arm, "task": draw(st.sampled_from(["t0", "t1", 't"2', "t\u00e23:"])),
           "scenario": draw(st.sampled_from(["null", "B1", "B2", None])), "repeat": draw(st.integers(1, 3)),
           "outcome": outcome, **dict(zip(FLAGS, flags)),
           "tokens_in": draw(tokens), "tokens_out": draw(tokens),
           "wall_s": draw(st.one_of(st.integers(0, 600), st.floats(0, 1e4, allow_nan=False),
                                    st.none() if outcome == "void" else st.just(1.0)))}
    for name, values in (("cost_usd", st.one_of(st.none(), st.floats(0, 5, allow_nan=False), st.integers(0, 3))),
                         ("engine", st.sampled_from([None, "bench", "other"])),
                         ("model_id", st.sampled_from([None, "m1", "m1, r1", "m2"]))):
        if draw(st.booleans()):
            row[name] = draw(values)
    return row


# one change to one row, now and then: a value the reader refuses (both paths must name it alike), flags Eq. 7
# forbids, or a field outside the plain shape (read row by row on both sides)
DAMAGE = [("tokens_in", -1), ("tokens_out", 1.5), ("wall_s", -0.5), ("repeat", 0), ("repeat", True),
          ("cost_usd", -1.0), ("shipped", None), ("outcome", "done"), ("scenario", "None"), ("task", ""),
          ("engine", 5), ("visible_pass", "yes"), ("review_rounds", 1), ("hidden_pass", False), ("shipped", False)]


@st.composite
def a_file(draw, arm: str) -> str:
    rows = draw(st.lists(a_row(arm), min_size=1, max_size=14))
    if draw(st.booleans()):  # a restart duplicate (same outcome), or a conflicting one
        i = draw(st.integers(0, len(rows) - 1))
        dup = dict(rows[i])
        if draw(st.booleans()):
            dup["outcome"] = draw(st.sampled_from([o for o in CONSISTENT if o != dup["outcome"]]))
            dup.update(zip(FLAGS, CONSISTENT[dup["outcome"]][0]))
        rows.append(dup)
    if draw(st.integers(0, 3)) == 0:
        i = draw(st.integers(0, len(rows) - 1))
        name, value = draw(st.sampled_from(DAMAGE))
        rows[i] = {**rows[i], name: value}
    sep = draw(st.sampled_from([(", ", ": "), (",", ":")]))
    ascii_only = draw(st.integers(0, 4)) == 0  # '\\u00e2' escapes (read row by row) or the character itself
    lines = []
    for r in rows:
        keys = draw(st.permutations(list(r)))
        lines.append(json.dumps({k: r[k] for k in keys}, separators=sep, ensure_ascii=ascii_only))
    if draw(st.integers(0, 5)) == 0:
        lines.insert(draw(st.integers(0, len(lines))), "  ")  # a blank line: not a row, and counted in line numbers
    # the end of the file: a newline, none (the last row unterminated), a blank tail, a blank last line
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n  ", "\n\n"]))


def _per_row():
    """The per-row reader only: the columnar screen declines every file."""
    return mock.patch.object(fastload, "valid_rows", lambda *a, **k: None)


def _analyze(path: Path, out: Path) -> dict[str, bytes] | str:
    try:
        analyze(path, out, B=20, seed=3, figures=False)
    except RecordsError as exc:
        return f"RecordsError: {exc}"
    return {f: (out / f).read_bytes() for f in ANALYZE_FILES}


def _compare(a: Path, b: Path) -> str:
    try:
        return json.dumps(compare(a, b, Options(label_a="", label_b=""), default_labels=True), default=str)
    except (RecordsError, CompareError) as exc:
        return f"{type(exc).__name__}: {exc}"


def test_analyze_prints_the_same_by_column_and_row_by_row():
    """30 generated files; at least a quarter of them pass the columnar screen (else the test would compare the
    per-row path with itself)."""
    screened = []

    @settings(max_examples=30, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(text=a_file("A4"))
    def check(text):
        with tempfile.TemporaryDirectory() as td:
            path = Path(td) / "r.jsonl"
            path.write_text(text)
            fast = _analyze(path, Path(td) / "fast")
            with _per_row():
                slow = _analyze(path, Path(td) / "slow")
            screened.append(fast_rows(path) is not None)
        assert fast == slow

    check()
    assert sum(screened) >= len(screened) / 4, f"{sum(screened)} of {len(screened)} files read by column"


def test_compare_prints_the_same_by_column_and_row_by_row():
    """60 generated pairs of files (default labels, as the command line asks), compared by column, by column with
    B read in a forked process (``analysis.compare._load_sides``), and row by row; at least an eighth of them have
    both sides read by column (about a quarter do)."""
    screened = []

    @settings(max_examples=60, deadline=None, database=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(a=a_file("A2p"), b=a_file("A4"))
    def check(a, b):
        with tempfile.TemporaryDirectory() as td:
            pa, pb = Path(td) / "a.jsonl", Path(td) / "b.jsonl"
            pa.write_text(a)
            pb.write_text(b)
            fast = _compare(pa, pb)
            with mock.patch.object(compare_module, "PARALLEL_BYTES", 0):  # B read in a forked process
                forked = _compare(pa, pb)
            with _per_row():
                slow = _compare(pa, pb)
            screened.append(fast_rows(pa) is not None and fast_rows(pb) is not None)
        assert fast == slow
        assert forked == slow

    check()
    assert sum(screened) >= len(screened) / 8, f"{sum(screened)} of {len(screened)} pairs read by column"
