"""run.json as a typed object (harness.core.runmeta): the file's object and bytes round-trip exactly."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from harness.core import record
from harness.core.runmeta import REQUIRED, RunMeta, RunStamp
from harness.ledger import rundir

ROOT = Path(__file__).resolve().parents[3]


def _written_as_before(obj: dict) -> str:
    """run.json's text as the writer wrote a plain dict before the object was typed."""
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


@pytest.mark.parametrize("exploratory", [False, True])
def test_a_prepared_run_json_round_trips_byte_for_byte(tmp_path, exploratory):
    """A real run.json (``harness run --out``'s, before any cell): read, parsed and written again gives the same
    bytes, the text the untyped writer produced for its object."""
    from harness.run.driver import prepare
    run = tmp_path / "run"
    meta = prepare(ROOT / "protocols" / "quickstart.toml", run, engine=None, reviewer_engine=None, model=None,
                   exploratory=exploratory)
    text = (run / "run.json").read_text()
    assert text == _written_as_before(json.loads(text)) == rundir.dumps(meta)
    parsed = rundir.read_run_meta(run)
    assert parsed == meta and rundir.dumps(parsed) == text
    assert parsed.preregistered is not exploratory and parsed.protocol == "quickstart" and parsed.model is None
    assert parsed.absent == {"repaired"} and not parsed.extra
    again = tmp_path / "again"
    again.mkdir()
    rundir.write_run_meta(again, parsed)
    assert (again / "run.json").read_bytes() == (run / "run.json").read_bytes()


def test_unknown_keys_absent_keys_and_odd_values_are_kept():
    """A key this harness does not know is kept, a known key the file lacks stays absent (reads None), and a
    value is kept as the file holds it (from_json checks nothing; parse_run_meta does)."""
    obj = {"run_id": 7, "protocol": "p", "lock": {"digest": "d", "files": {"t/a": "h"}}, "future_key": [1, {"z": None}],
           "model": None, "repaired": {"when": "w", "from_records": 3}}
    meta = RunMeta.from_json(obj)
    assert meta.to_json() == obj and rundir.dumps(meta) == _written_as_before(obj)
    assert meta.run_id == 7 and meta.protocol_path is None and meta.engine_options is None
    assert dict(meta.extra) == {"future_key": [1, {"z": None}]}
    assert "protocol_path" in meta.absent and "model" not in meta.absent
    assert RunMeta.from_json({}).to_json() == {}


def test_replace_makes_a_key_present():
    meta = RunMeta.from_json({"run_id": "a", "preregistered": True})
    repaired = meta.replace(run_id="b", repaired={"when": "w", "from_records": 1})
    assert repaired.to_json() == {"run_id": "b", "preregistered": True, "repaired": {"when": "w", "from_records": 1}}
    assert meta.to_json() == {"run_id": "a", "preregistered": True}


def test_parse_run_meta_still_names_a_wrong_field(tmp_path):
    good = {"run_id": "r", "protocol_path": "p.toml", "protocol": "p", "protocol_digest": "d", "preregistered": True,
            "engine": "simulated", "reviewer_engine": "simulated", "lock": {}}
    assert set(good) == set(REQUIRED)
    f = tmp_path / "run.json"
    f.write_text(json.dumps(good))
    assert rundir.parse_run_meta(f) == RunMeta.from_json(good)
    f.write_text(json.dumps({**good, "preregistered": "yes"}))
    with pytest.raises(rundir.WrongField, match="expected a bool, got str"):
        rundir.parse_run_meta(f)


def test_the_stamp_sets_the_records_fields():
    """What every record of a run carries: four of the record's fields, unset (None, the record's default) when the
    cell runs outside a run."""
    names = [f.name for f in dataclasses.fields(RunStamp)]
    assert set(names) <= set(record.FIELDS)
    assert RunStamp().fields() == dict.fromkeys(names)
    assert RunStamp("p", "d", True, "r").fields() == {"protocol": "p", "protocol_digest": "d", "preregistered": True,
                                                     "run_id": "r"}
