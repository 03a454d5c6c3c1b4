"""Fuzzing the records loader (issue 11): generated and mutated JSONL, CSV and Parquet inputs end in
a result or a RecordsError naming the file, never another exception. What Hypothesis found is kept
as @example (run first every time) and as a named regression test below, beside the cases written
by hand before fuzzing (int64 overflow, non-UTF-8 bytes, a corrupt Parquet file)."""
from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from analysis.records import LoadResult, RecordsError, load_records
from tests.analysis.conftest import rec

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)

scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
                    st.sampled_from(["null", "B1", "A4", "A2p", "completed", "void", "amplified", "t|x", ""]))
values = st.one_of(scalars, st.lists(scalars, max_size=3), st.dictionaries(st.text(max_size=4), scalars, max_size=3))
FIELDS = ["arm", "task", "scenario", "repeat", "outcome", "visible_pass", "hidden_pass", "shipped",
          "tokens_in", "tokens_out", "wall_s", "cost_usd", "factors", "cell_key", "unsafe_detectors",
          "protocol_digest"]


@st.composite
def records(draw):
    """Mostly-valid records with some fields replaced by arbitrary values or dropped."""
    out = []
    for i in range(draw(st.integers(1, 6))):
        r = rec(draw(st.sampled_from(["A4", "A2p"])), draw(st.sampled_from(["t1", "t2"])),
                draw(st.sampled_from(["null", "B1"])), draw(st.integers(1, 3)),
                draw(st.sampled_from(["completed", "recovered", "amplified", "safe_stop", "void"])))
        for f in draw(st.lists(st.sampled_from(FIELDS), max_size=3, unique=True)):
            if draw(st.booleans()):
                r[f] = draw(values)
            else:
                r.pop(f, None)
        out.append(r)
    return out


def _load(path: Path):
    """The property: a LoadResult, or a RecordsError that names the file."""
    try:
        res = load_records(path)
    except RecordsError as exc:
        assert str(path) in str(exc), str(exc)
        return None
    assert isinstance(res, LoadResult)
    return res


def _write_jsonl(recs) -> bytes:
    return "".join(json.dumps(r, allow_nan=True) + "\n" for r in recs).encode()


def _mutate(data: bytes, ops) -> bytes:
    b = bytearray(data)
    for kind, pos, blob in ops:
        if not b:
            b.extend(blob)
            continue
        i = pos % len(b)
        if kind == "insert":
            b[i:i] = blob
        elif kind == "delete":
            del b[i:i + max(1, len(blob))]
        elif kind == "replace":
            b[i:i + len(blob)] = blob
        else:
            del b[i:]
    return bytes(b)


mutations = st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace", "truncate"]),
                               st.integers(0, 10_000), st.binary(min_size=1, max_size=6)), max_size=4)


@FUZZ
@given(records())
@example([{**rec("A4", "t", "B1", 1, "recovered"), "outcome": [None]}])  # found by Hypothesis
def test_generated_jsonl(recs):
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "r.jsonl"
        p.write_bytes(_write_jsonl(recs))
        _load(p)


@FUZZ
@given(records(), mutations)
def test_mutated_jsonl(recs, ops):
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "r.jsonl"
        p.write_bytes(_mutate(_write_jsonl(recs), ops))
        _load(p)


@FUZZ
@given(records(), mutations)
def test_generated_and_mutated_csv(recs, ops):
    buf = io.StringIO()
    pd.DataFrame(recs).to_csv(buf, index=False)
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "r.csv"
        p.write_bytes(buf.getvalue().encode())
        _load(p)
        p.write_bytes(_mutate(buf.getvalue().encode(), ops))
        _load(p)


@FUZZ
@given(records(), mutations)
def test_generated_and_mutated_parquet(recs, ops):
    df = pd.DataFrame(recs)
    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "r.parquet"
        try:
            df.to_parquet(p)
        except Exception:  # pyarrow cannot write every mix of types: then no file to load
            df = df.astype(str)
            df.to_parquet(p)
        _load(p)
        p.write_bytes(_mutate(p.read_bytes(), ops))
        _load(p)


# regression tests: what the fuzzer found, and the hand-written cases


def test_outcome_that_is_a_list_is_a_field_error(tmp_path):
    """Found by Hypothesis: a list outcome raised TypeError (unhashable) in the Eq. 7 check."""
    p = tmp_path / "l.jsonl"
    p.write_bytes(_write_jsonl([{**rec("A4", "t", "B1", 1, "recovered"), "outcome": [None]}]))
    with pytest.raises(RecordsError, match=r"l.jsonl:1: field 'outcome': must be one of .*got \[None\]"):
        load_records(p)


def test_token_count_beyond_int64_is_a_field_error(tmp_path):
    p = tmp_path / "big.jsonl"
    p.write_bytes(_write_jsonl([{**rec("A4", "t", "B1", 1, "recovered"), "tokens_in": 2**64}]))
    with pytest.raises(RecordsError, match=r"big.jsonl:1: field 'tokens_in'"):
        load_records(p)


def test_repeat_beyond_int64_is_a_field_error(tmp_path):
    p = tmp_path / "big.jsonl"
    p.write_bytes(_write_jsonl([{**rec("A4", "t", "B1", 1, "recovered"), "repeat": 2**63}]))
    with pytest.raises(RecordsError, match=r"big.jsonl:1: field 'repeat'"):
        load_records(p)


def test_non_utf8_jsonl_is_a_clear_error(tmp_path):
    p = tmp_path / "bin.jsonl"
    p.write_bytes(b'{"arm": "\xff"}\n')
    with pytest.raises(RecordsError, match="not UTF-8"):
        load_records(p)


def test_corrupt_parquet_is_a_clear_error(tmp_path):
    p = tmp_path / "bad.parquet"
    p.write_bytes(b"PAR1 not really")
    with pytest.raises(RecordsError, match="cannot read Parquet"):
        load_records(p)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(records())
def test_whatever_loads_can_be_analysed(recs):
    """A file the loader accepts is analysed without an exception (tables, intervals, tests)."""
    from analysis.pipeline import Settings, compute

    with tempfile.TemporaryDirectory() as td:
        p = Path(td) / "r.jsonl"
        p.write_bytes(_write_jsonl(recs))
        res = _load(p)
        if res is not None:
            s = compute(res, Settings(B=20))
            json.dumps(s, allow_nan=False)
