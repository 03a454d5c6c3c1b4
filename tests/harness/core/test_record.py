"""The cell record (harness.core.record): Eq. 7, applicability, one builder with every field, and the
JSON Schema that `harness schema records` prints and the analysis validates every record against."""
from __future__ import annotations

import itertools
import json
import tomllib

import jsonschema
import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.core import record
from harness.core.matrix import Cell
from harness.core.outcomes import Outcome, VoidKind
from harness.core.protocol import Arm, LimitsTable
from harness.core.runmeta import RunStamp
from harness.run.cellrun import CellSpec, run_cell
from support.scripted import TASKS


def test_eq7_by_hand():
    """Eq. (7) (paper 000): shipped red -> acceptance_fail; shipped green -> completed/recovered if
    the oracle passes, amplified if it fails; not shipped -> false_stop if the oracle would pass."""
    assert record.eq7(True, False, True, False) == "acceptance_fail"
    assert record.eq7(True, True, True, False) == "completed"
    assert record.eq7(True, True, True, True) == "recovered"
    assert record.eq7(True, True, False, True) == "amplified"
    assert record.eq7(False, True, True, False) == "false_stop"
    assert record.eq7(False, False, False, True) == "safe_stop"


def test_the_outcome_constraints_are_derived_from_eq7():
    assert record.EQ7_REQUIRES == {"completed": (True, True), "recovered": (True, True), "amplified": (True, False),
                                   "safe_stop": (False, False), "false_stop": (False, True)}
    for args in itertools.product((False, True), repeat=4):  # every eq7 output satisfies its own constraint
        out = record.eq7(*args)
        assert record.EQ7_REQUIRES.get(out, (args[0], args[2])) == (args[0], args[2])


def test_applicability_comes_from_the_scenario_table():
    table = tomllib.loads((TASKS / "scenarios.toml").read_text())
    second = record.second_attempt_scenarios(table)
    assert second == {"B4", "B5", "B10"}
    assert not record.applicable(True, "B5", second) and record.applicable(False, "B5", second)
    assert record.applicable(True, "B2", second)


KEY = dict(cell_key="A1|t|null|1", arm="A1", task="t", scenario="null", repeat=1)


def test_the_builder_writes_every_field_and_refuses_unknown_or_inconsistent_ones():
    rec = record.build(**KEY, outcome="void", void_reason="x")
    assert tuple(rec) == record.FIELDS and rec["schema_version"] == record.SCHEMA_VERSION
    with pytest.raises(TypeError):
        record.build(**KEY, outcome="void", colour="red")
    with pytest.raises(ValueError, match="Eq. 7"):
        record.build(**KEY, outcome="amplified", shipped=True, hidden_pass=True, visible_pass=True)
    with pytest.raises(ValueError, match="outcome"):
        record.build(**KEY, outcome="great")


def test_the_schema_is_valid_and_encodes_eq7():
    schema = record.json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    ok = record.build(**KEY, outcome="amplified", shipped=True, hidden_pass=False, visible_pass=True)
    jsonschema.validate(ok, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**ok, "hidden_pass": True}, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**ok, "attempts": "two"}, schema)


def test_a_void_cell_record_has_every_field_and_validates(tmp_path):
    """A cell that cannot be set up (its task is missing) is void, built by the same builder."""
    spec = CellSpec(cell=Cell("A1", "no-such-task", "null", 1), arm=Arm("A1", "A1", {}), tasks_dir=TASKS,
                    run_dir=tmp_path, engine="simulated", reviewer_engine="simulated", model=None, seed=1,
                    expected={}, limits=LimitsTable(), run_meta=RunStamp(protocol="p", protocol_digest="d", preregistered=False,
                                                               run_id="r"))
    rec = run_cell(spec)
    assert rec.outcome == "void" and "ground truth" in rec.void_reason
    assert set(rec.to_json()) == set(record.FIELDS)
    (tmp_path / "records.jsonl").write_text(json.dumps(rec.to_json()) + "\n")
    r = CliRunner().invoke(main, ["schema", "records", "--validate", str(tmp_path / "records.jsonl")])
    assert r.exit_code == 0 and "1 record(s), 0 problem(s)" in r.output


def test_schema_records_prints_the_schema_and_names_bad_fields(tmp_path):
    r = CliRunner().invoke(main, ["schema", "records"])
    assert r.exit_code == 0 and json.loads(r.output)["properties"]["outcome"]["enum"] == list(record.OUTCOMES)
    bad = record.build(**KEY, outcome="void")
    bad["attempts"] = -1
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(record.build(**KEY, outcome="void")) + "\n" + json.dumps(bad) + "\n")
    r = CliRunner().invoke(main, ["schema", "records", "--validate", str(f)])
    assert r.exit_code == 2 and f"{f}:2: field 'attempts'" in r.output


@pytest.mark.parametrize("outcome,shipped,visible,hidden", [
    ("completed", True, False, True),  # shipped red is acceptance_fail, never completed
    ("recovered", True, False, True),
    ("amplified", True, False, False),  # shipped red and wrong: acceptance_fail by the total order
    ("acceptance_fail", False, False, False),  # acceptance_fail means the arm shipped
    ("acceptance_fail", True, True, True),  # ... a tree that fails the visible test
])
def test_eq7_holds_for_visible_pass_too(tmp_path, outcome, shipped, visible, hidden):
    """Eq. 7 gives each outcome from (shipped, visible, hidden), not only (shipped, hidden): a record
    no (shipped, visible, hidden) maps to is refused by the builder, the schema and the analysis
    (a 'completed' cell with a red visible test used to be scored as a completion)."""
    from analysis.records import RecordsError, load_records
    assert record.eq7(shipped, visible, hidden, False) not in (outcome,) and \
        record.eq7(shipped, visible, hidden, True) != outcome  # the case is truly inconsistent
    fields = dict(cell_key="A4|t|null|1", arm="A4", task="t", scenario="null", repeat=1, outcome=outcome,
                  shipped=shipped, visible_pass=visible, hidden_pass=hidden)
    with pytest.raises(ValueError, match="Eq. 7"):
        record.build(**fields)
    rec = {**fields, "tokens_in": 1, "tokens_out": 1, "wall_s": 0.1}
    assert not jsonschema.Draft202012Validator(record.json_schema()).is_valid(rec)
    p = tmp_path / "r.jsonl"
    p.write_text(json.dumps(rec) + "\n")
    with pytest.raises(RecordsError, match=r"r.jsonl:1: field 'outcome'.*Eq. 7"):
        load_records(p)


# -- CellRecord.from_json / to_json: the typed record and its one JSON edge (issue 36) -----------------
V1 = {"cell_key": "A1|t|B2|1", "arm": "A1", "task": "t", "scenario": "B2", "repeat": 1, "outcome": "amplified",
      "visible_pass": True, "hidden_pass": False, "shipped": True, "tokens_in": 10, "tokens_out": 5, "wall_s": 1.5}
V2_VOID = {**KEY, "outcome": "void", "visible_pass": None, "hidden_pass": None, "shipped": None, "tokens_in": None,
           "tokens_out": None, "wall_s": 0.1, "cache_read_tokens": None, "schema_version": 2,
           "void_reason": "infrastructure: engine fault: 529 overloaded"}


def test_records_of_every_readable_version_parse_into_one_typed_object():
    """v1 (no schema_version, no cache tokens), v2 (nullable tokens) and v3 (void_kind) records are one
    class; closed fields are enums; a field an older version lacks takes its default; an older void
    record's kind is read from its text, a v3 one's from its field."""
    v1 = record.CellRecord.from_json(V1, source="v1.jsonl:1")
    v2 = record.CellRecord.from_json(V2_VOID, source="v2.jsonl:1")
    v3 = record.CellRecord.from_json(record.build(**KEY, outcome="void", void_kind="worker_lost", void_reason="x"),
                                     source="v3.jsonl:1")
    assert {type(r) for r in (v1, v2, v3)} == {record.CellRecord}
    assert v1.outcome is Outcome.AMPLIFIED and v1.schema_version == 1 and v1.cache_read_tokens == 0 and v1.scored
    assert v2.outcome is Outcome.VOID and v2.cache_read_tokens is None and not v2.scored
    assert v2.void_kind is None and v2.kind is VoidKind.ENGINE_FAULT  # v2 names its kind only in the text
    assert v3.void_kind is VoidKind.WORKER_LOST and v3.kind is VoidKind.WORKER_LOST


def test_to_json_gives_back_the_ledger_line_as_written_and_its_hash(tmp_path):
    """A record the ledger appended (its producer's own fields and the ledger's stamp included) reads
    back from the file into an object whose to_json is the line, so its hash still verifies."""
    from harness.ledger.ledger import Ledger, record_hash
    rec = record.make(**KEY, outcome="completed", visible_pass=True, hidden_pass=True, shipped=True)
    stamped = Ledger(tmp_path / "records.jsonl").append_record(rec.with_extra(requeues=0, verdict_cache={"status": "off"}))
    line = json.loads((tmp_path / "records.jsonl").read_text())
    back = record.CellRecord.from_json(line, source="records.jsonl:1")
    assert back == stamped and back.to_json() == line
    assert back.ledger is not None and back.ledger.seq == 0 and back.ledger.hash == record_hash(line)
    assert back.extra == {"requeues": 0, "verdict_cache": {"status": "off"}} and back.outcome is Outcome.COMPLETED
    assert type(line["outcome"]) is str and record.CellRecord.from_json(back.to_json(), source="again") == back


def test_a_third_party_record_without_a_key_gets_its_cells_key_and_keeps_its_own_fields():
    rec = record.CellRecord.from_json({k: v for k, v in V1.items() if k != "cell_key"} | {"factors": {"m": "x"},
                                                                                         "inspect_log": "a.eval"},
                                      source="import.jsonl:3")
    assert rec.cell_key == "A1|t|B2|1|m=x" and rec.extra == {"inspect_log": "a.eval"}
    assert "cell_key" in rec.to_json() and rec.to_json()["inspect_log"] == "a.eval"


@pytest.mark.parametrize("obj, why", [
    (["not", "an", "object"], "must be a JSON object"),
    ({**V1, "schema_version": 9}, "schema_version 9 is not readable"),
    ({k: v for k, v in V1.items() if k != "outcome"}, "missing outcome"),
    ({**V1, "outcome": "won"}, "'won' is not one of"),
    ({**V1, "void_kind": "engine_fault"}, "void records only"),
    ({**V1, "hash": "h"}, "seq"),
])
def test_an_object_that_is_no_record_is_refused_naming_its_source(obj, why):
    with pytest.raises(ValueError) as exc:
        record.CellRecord.from_json(obj, source="runs/r/records.jsonl:7")
    assert str(exc.value).startswith("runs/r/records.jsonl:7: ") and why in str(exc.value)


def test_flags_that_contradict_the_outcome_are_read_as_written_and_said_but_never_built():
    """A ledger line whose flags break Eq. 7 (a forged outcome) parses, so the viewer can show the
    file as it is; the record says what is wrong, and the builder refuses to make such a record."""
    rec = record.CellRecord.from_json({**V1, "hidden_pass": True}, source="records.jsonl:6")
    assert rec.outcome is Outcome.AMPLIFIED and "Eq. 7" in rec.eq7_problem
    assert record.CellRecord.from_json(V1, source="records.jsonl:1").eq7_problem is None
    with pytest.raises(ValueError, match="Eq. 7"):
        record.make(**{**V1, "hidden_pass": True})
