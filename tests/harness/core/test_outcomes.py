"""Void kinds and run stops as closed enums carried in records (schema v3, issue 22)."""
from __future__ import annotations

import json

import pytest

from analysis.records import RecordsError, load_records
from harness.core import record
from harness.core.outcomes import Fault, Outcome, RunStop, VoidKind
from harness.ledger.ledger import Ledger
from harness.run.driver import _Settler, _stop_kind

BASE = dict(cell_key="A1|t|null|1", arm="A1", task="t", scenario="null", repeat=1)


def _void(**extra):
    return record.build(**BASE, outcome="void", **extra)


@pytest.mark.parametrize("kind", list(VoidKind))
def test_each_kind_is_read_back_from_the_text_older_harnesses_wrote(kind):
    detail = {VoidKind.WRITE_FAILED: "the event log could not be written (OSError: full)",  # no prefix: the text
              VoidKind.WORKER_LOST: "a pool worker process died (3 times)"}.get(kind, "the detail: with a colon")
    text = str(Fault(kind, detail))
    assert VoidKind.of_reason(text) is kind
    assert VoidKind.of_reason("infrastructure: " + text) is kind  # the adjudicator's prefix
    assert text == (f"{kind.label}: {detail}" if kind.label else detail)


def test_the_longest_label_wins_and_unknown_text_is_no_kind():
    assert VoidKind.of_reason("harness error in adjudication: KeyError: x") is VoidKind.ADJUDICATION_ERROR
    assert VoidKind.of_reason("harness error: KeyError: x") is VoidKind.HARNESS_ERROR
    assert VoidKind.of_reason("inspect sample error: boom") is None and VoidKind.of_reason(None) is None


def test_a_record_carries_the_kind_as_plain_data():
    rec = _void(void_kind=VoidKind.ENGINE_FAULT, void_detail="500", void_reason="infrastructure: engine fault: 500")
    assert type(rec["void_kind"]) is str and rec["void_kind"] == "engine_fault"
    assert json.loads(json.dumps(rec))["void_kind"] == "engine_fault"
    assert rec["schema_version"] == record.SCHEMA_VERSION == 3 and record.READABLE_VERSIONS == (1, 2, 3)
    with pytest.raises(ValueError, match="not one of"):
        _void(void_kind="disk_on_fire")
    with pytest.raises(ValueError, match="void records only"):
        record.build(**BASE, outcome="safe_stop", visible_pass=False, hidden_pass=False, shipped=False,
                     void_kind="engine_fault")
    assert record.OUTCOMES == tuple(o.value for o in Outcome)


def test_void_kind_of_reads_new_and_old_records():
    assert record.void_kind_of(_void(void_kind="ground_truth")) is VoidKind.GROUND_TRUTH
    old = {**BASE, "outcome": "void", "schema_version": 2, "void_reason": "infrastructure: authentication: 401"}
    assert record.void_kind_of(old) is VoidKind.AUTHENTICATION
    assert record.void_kind_of({**BASE, "outcome": "completed", "void_kind": "engine_fault"}) is None


def test_the_json_schema_types_the_kind():
    from jsonschema import Draft202012Validator
    v = Draft202012Validator(record.json_schema())
    assert v.is_valid(_void(void_kind="worker_lost"))
    assert not v.is_valid({**_void(), "void_kind": "nope"})
    scored = record.build(**BASE, outcome="safe_stop", visible_pass=False, hidden_pass=False, shipped=False)
    assert v.is_valid(scored) and not v.is_valid({**scored, "void_kind": "engine_fault"})
    assert record.json_schema()["$id"].endswith("/v3")


def _write(path, *recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_the_reader_accepts_old_records_and_refuses_v3_fields_on_them(tmp_path):
    scored = record.build(**BASE, outcome="safe_stop", visible_pass=False, hidden_pass=False, shipped=False)
    v2 = {k: v for k, v in scored.items() if k not in record.SINCE_V3} | {"schema_version": 2, "cell_key": "A1|t|null|2",
                                                                         "repeat": 2}
    v1 = {k: v for k, v in v2.items() if k != "schema_version"} | {"cell_key": "A1|t|null|3", "repeat": 3}
    v3_void = _void(void_kind="engine_fault", void_detail="500") | {"cell_key": "A1|t|null|4", "repeat": 4}
    res = load_records(_write(tmp_path / "ok.jsonl", scored, v2, v1, v3_void))
    assert res.lines == 4 and len(res.tidy) == 3 and res.void == {"A1": 1}
    with pytest.raises(RecordsError, match=r"field 'void_kind'.*needs record schema v3"):
        load_records(_write(tmp_path / "bad.jsonl", {**v2, "outcome": "void", "visible_pass": None,
                                                     "hidden_pass": None, "shipped": None,
                                                     "void_kind": "engine_fault"}))


def test_the_settler_stops_on_the_kind_not_the_text(tmp_path):
    def settler():
        return _Settler(Ledger(tmp_path / f"r{len(list(tmp_path.iterdir()))}.jsonl"), {}, tmp_path / "v.jsonl", 1, {},
                        lambda m: None, tmp_path)
    # the text says nothing about a ceiling: the kind decides
    s = settler()
    assert s.take(record.make(**BASE, outcome="void", void_kind="budget_ceiling", stop_run="the provider said no"))
    assert s.stop_kind is RunStop.BUDGET_CEILING and s.halted_at is not None
    s = settler()
    assert s.take(record.make(**BASE, outcome="void", void_kind="authentication",
                              stop_run="budget ceiling: looks like one"))
    assert s.stop_kind is RunStop.AUTHENTICATION and s.halted_at is None
    # a record without a kind (an older producer): the text is read once, at the boundary
    assert _stop_kind(record.make(**BASE, outcome="void", stop_run="budget ceiling: no room")) is RunStop.BUDGET_CEILING
    assert _stop_kind(record.make(**BASE, outcome="void", stop_run="credentials: refused")) is RunStop.AUTHENTICATION
    assert _stop_kind(record.make(**BASE, outcome="void", void_kind="engine_fault")) is None


def test_a_stop_is_written_with_its_kind(tmp_path):
    from harness.run.driver import _note_stop
    s = _Settler(Ledger(tmp_path / "records.jsonl"), {}, tmp_path / "v.jsonl", 1, {}, lambda m: None, tmp_path)
    assert s.take(record.make(**{**BASE, "cell_key": "x"}, outcome="void", stop_run="the disk", void_kind="authentication"))
    _note_stop(tmp_path, s, 0, {"A1": 1})
    row = json.loads((tmp_path / "stops.jsonl").read_text())
    assert row["kind"] == "authentication" and row["not_run"] == {"A1": 1} and "harness run --resume" in row["reason"]
