"""Red team of issue 22 (closed kinds carried in records, the layered harness): forged and
contradictory void kinds in records files and in a run's ledger, read by ``harness analyze`` and
``harness run --resume``; each is one line naming file, line and field (exit 2), never a traceback
and never a cell classified by a kind the run never wrote.

Formerly ``tests/harness/test_redteam_issue22.py``, named after its origin."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner

from analysis.records import RecordsError, load_records
from harness.core import record
from harness.ledger.ledger import canonical, record_hash

BASE = dict(arm="A1", task="t", scenario="null")


def _void(repeat: int, **extra) -> dict:
    return record.build(cell_key=f"A1|t|null|{repeat}", repeat=repeat, **BASE, outcome="void", **extra)


def _scored(repeat: int, **extra) -> dict:
    return record.build(cell_key=f"A1|t|null|{repeat}", repeat=repeat, **BASE, outcome="safe_stop",
                        visible_pass=False, hidden_pass=False, shipped=False, **extra)


def _write(path, *recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


@pytest.mark.parametrize("bad, field, says", [
    ({"void_kind": "engine_fault", "void_reason": "infrastructure: ground truth: the oracle changed"},
     "void_kind", "contradicts void_reason"),
    ({"void_kind": "authentication", "void_reason": "infrastructure: authentication: 401"},
     "void_kind", "stops the run"),
    ({"void_kind": "budget_ceiling"}, "void_kind", "stops the run"),
])
def test_a_kind_the_run_never_writes_is_refused_by_the_reader(tmp_path, bad, field, says):
    good = _void(1, void_kind="engine_fault", void_reason="infrastructure: engine fault: 500", void_detail="500")
    forged = {**_void(2), **bad}
    with pytest.raises(RecordsError) as err:
        load_records(_write(tmp_path / "r.jsonl", good, forged))
    assert err.value.problems == [f"{tmp_path / 'r.jsonl'}:2: field '{field}': " + err.value.problems[0].split(": ", 2)[2]]
    assert says in err.value.problems[0]


def test_the_cli_names_file_line_and_field_for_a_contradicting_kind(tmp_path):
    from harness.cli.cli import main
    path = _write(tmp_path / "r.jsonl", _scored(1),
                  {**_void(2), "void_kind": "worker_lost", "void_reason": "harness error: KeyError: x"})
    for argv in (["analyze", str(path), "--out", str(tmp_path / "o")],
                 ["compare", str(path), str(path), "--out", str(tmp_path / "c")]):
        res = CliRunner().invoke(main, argv)
        assert res.exit_code == 2, (argv, res.output)
        assert f"{path}:2: field 'void_kind'" in res.output and "Traceback" not in res.output


def test_csv_empty_kind_is_null_and_parquet_empty_kind_is_named(tmp_path):
    keep = (*record.REQUIRED, "cell_key", "schema_version", "void_kind", "void_reason")
    rows = [{k: r[k] for k in keep} for r in
            (_scored(1), _void(2, void_kind="engine_fault", void_reason="infrastructure: engine fault: 500"))]
    df = pd.DataFrame(rows)
    df["void_kind"] = df["void_kind"].fillna("")  # how a spreadsheet or a fillna('') writes a missing kind
    df.to_csv(tmp_path / "r.csv", index=False)
    res = load_records(tmp_path / "r.csv")
    assert res.scored == 1 and res.void == {"A1": 1}
    df.to_parquet(tmp_path / "r.parquet")  # Parquet has a null: "" is a value, and not a kind
    with pytest.raises(RecordsError) as err:
        load_records(tmp_path / "r.parquet")
    assert len(err.value.problems) == 1 and err.value.problems[0].startswith(f"{tmp_path / 'r.parquet'}: row 1: field 'void_kind'")


def test_mixed_versions_in_one_file_each_checked_by_its_own_version(tmp_path):
    v3 = _void(1, void_kind="ground_truth", void_reason="infrastructure: ground truth: no oracle")
    v2 = {k: v for k, v in _void(2, void_reason="infrastructure: engine fault: 500").items() if k not in record.SINCE_V3}
    v2["schema_version"] = 2
    v1 = {k: v for k, v in _scored(3).items() if k not in (*record.SINCE_V3, "schema_version")}
    assert load_records(_write(tmp_path / "ok.jsonl", v3, v2, v1)).void == {"A1": 2}
    v2_kind = {**v2, "void_kind": "engine_fault"}
    with pytest.raises(RecordsError, match=r"ok2.jsonl:2: field 'void_kind': needs record schema v3"):
        load_records(_write(tmp_path / "ok2.jsonl", v3, v2_kind, v1))


def _forge(ledger_path, line: int, **changes) -> None:
    """Rewrite one ledger line and re-hash the chain from it (a hash chain is not a signature)."""
    recs = [json.loads(x) for x in ledger_path.read_text().splitlines()]
    recs[line - 1].update(changes)
    prev = recs[line - 2]["hash"] if line > 1 else ""
    for r in recs[line - 1:]:
        r["prev_hash"] = prev
        r["hash"] = record_hash(r)
        prev = r["hash"]
    ledger_path.write_text("".join(canonical(r) + "\n" for r in recs))
    (ledger_path.with_suffix(".head")).write_text(f"{recs[-1]['seq']} {recs[-1]['hash']}\n")


@pytest.mark.parametrize("changes, field", [
    ({"void_kind": "authentication"}, "void_kind"),  # a scored cell relabelled with a kind that stops the run
    ({"outcome": "void", "visible_pass": None, "hidden_pass": None, "shipped": None, "void_kind": "budget_ceiling"},
     "void_kind"),  # a scored cell turned into an "unrun" one
    ({"outcome": "passed"}, "outcome"),
    ({"cell_key": None}, "cell_key"),
])
def test_resume_refuses_a_rehashed_ledger_line_with_a_forged_kind(tmp_path, changes, field):
    from harness.cli.cli import main
    from support.scripted import copy_tasks
    copy_tasks(tmp_path, ("median",))
    proto = tmp_path / "p.toml"
    proto.write_text('[protocol]\nname = "m"\nseed = 1\nrepeats = 1\ntasks_dir = "tasks"\ntasks = ["median"]\n'
                     'scenarios = ["null"]\n\n[arms.A1]\n\n[arms.A2]\n')
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(proto), "--out", str(run), "--exploratory", "--limit-cells", "1"])
    assert res.exit_code == 0, res.output
    ledger = run / "records.jsonl"
    _forge(ledger, 1, **changes)
    before = ledger.read_bytes()
    res = CliRunner().invoke(main, ["run", "--resume", str(run)])
    assert res.exit_code == 2, res.output
    assert f"{ledger}:1: {field}:" in res.output and "Traceback" not in res.output
    assert res.output.count("\n") == 1 and ledger.read_bytes() == before


def _mini(tmp_path, arms=("A1", "A2")):
    from support.scripted import copy_tasks
    copy_tasks(tmp_path, ("median",))
    proto = tmp_path / "p.toml"
    proto.write_text('[protocol]\nname = "m"\nseed = 1\nrepeats = 1\ntasks_dir = "tasks"\ntasks = ["median"]\n'
                     'scenarios = ["null"]\n\n' + "".join(f"[arms.{a}]\n" for a in arms) + "\n[rerun]\nmax_reruns = 1\n")
    return proto


@pytest.mark.parametrize("fault, code, kind", [
    ("auth", 4, "authentication"), ("ceiling", 4, "budget_ceiling"), ("engine", 3, None)])
def test_auth_and_ceiling_faults_stop_the_run_an_engine_fault_does_not(tmp_path, monkeypatch, fault, code, kind):
    """Through the command line, as docs/reference/exit-codes.md's fault table says: the refused cell is unrun (no
    record, no void), stops.jsonl names the RunStop; an engine fault voids the cell and the run goes on."""
    from harness.cli.cli import main
    from harness.core.engine import EngineAuthError, EngineFault
    from harness.engines import simulated
    from harness.ledger.spend import CeilingReached

    exc = {"auth": EngineAuthError("worker: the provider refused the credentials (401)"),
           "ceiling": CeilingReached("the run's spend ceiling leaves no room"), "engine": EngineFault("HTTP 529")}[fault]

    def failing(self, req):
        raise exc
    monkeypatch.setattr(simulated.SimulatedEngine, "complete", failing)
    run = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", str(_mini(tmp_path)), "--out", str(run), "--exploratory"])
    assert res.exit_code == code, res.output
    ledger = run / "records.jsonl"
    recs = [json.loads(x) for x in ledger.read_text().splitlines()] if ledger.exists() else []
    if kind is None:
        assert [r["void_kind"] for r in recs] == ["engine_fault", "engine_fault"] and not (run / "stops.jsonl").exists()
        assert len((run / "voids.jsonl").read_text().splitlines()) == 4  # each cell: first run + one rerun
        return
    assert recs == [] and not (run / "voids.jsonl").exists()  # unrun: never void, never scored
    assert [json.loads(x)["kind"] for x in (run / "stops.jsonl").read_text().splitlines()] == [kind]
    assert "STOPPED" in res.output and f"harness run --resume {run}" in res.output


def test_schema_validate_agrees_with_the_reader_and_never_raises(tmp_path):
    """``harness schema records --validate`` is the producer's check: it must refuse what
    ``harness analyze`` refuses (a kind contradicting its reason, a v3 field on a v2 record), and
    bytes that are not UTF-8 or JSON nested past the parser are a line each, never a traceback."""
    from harness.cli.cli import main
    contra = {**_void(1), "void_kind": "engine_fault", "void_reason": "infrastructure: ground truth: x"}
    v2 = {**_void(2), "schema_version": 2, "void_kind": "engine_fault", "void_reason": "infrastructure: engine fault: x"}
    path = _write(tmp_path / "r.jsonl", contra, v2)
    (tmp_path / "raw.jsonl").write_bytes(b"\xff\xfe{}\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    res = CliRunner().invoke(main, ["schema", "records", "--validate", str(path)])
    assert res.exit_code == 2, res.output
    assert f"{path}:1: field 'void_kind'" in res.output and f"{path}:2: field 'void_kind'" in res.output
    res = CliRunner().invoke(main, ["schema", "records", "--validate", str(tmp_path / "raw.jsonl")])
    assert res.exit_code == 2 and res.exception is None or isinstance(res.exception, SystemExit), res.output
    assert "raw.jsonl:1: not UTF-8" in res.output and "raw.jsonl:2: not valid JSON" in res.output
