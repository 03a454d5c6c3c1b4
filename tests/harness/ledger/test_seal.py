"""The records' seal (harness.ledger.seal): the run's key signs the ledger's head after every record, so
a rewrite with the hash chain redone, a deleted or an added record is told apart from the records the
harness wrote; a resume seals the one record a kill left unsealed and refuses anything else."""
from __future__ import annotations

import json

import pytest

from harness.ledger import receipts as rc
from harness.ledger.ledger import Ledger, check_anchor, inspect, record_hash
from harness.ledger.receipts import Reason
from harness.ledger.seal import Sealer, check_seal, read_seal, record_seal_problem, seal_mismatch, seal_path


def _rec(i: int, outcome: str = "completed", receipts=()) -> dict:
    return {"cell_key": f"A2|t|null|{i}", "outcome": outcome, "run_id": "run-1", "protocol_digest": "p" * 64,
            "receipts": list(receipts)}


@pytest.fixture
def run(tmp_path):
    """A run directory whose ledger is sealed after each of three records."""
    ledger = Ledger(tmp_path / "records.jsonl")
    sealer = Sealer(tmp_path, "p" * 64, "run-1")
    ledger.sign_record, ledger.on_append = sealer.sign, sealer
    for i in range(3):
        ledger.append(_rec(i, "amplified" if i == 1 else "completed"))
    return tmp_path


def _records(run) -> list[dict]:
    return inspect(run / "records.jsonl").records


def _redo_chain(run, recs: list[dict]) -> None:
    prev = ""
    for i, r in enumerate(recs):
        r.update(seq=i, prev_hash=prev)
        r["hash"] = prev = record_hash(r)
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (run / "records.head").write_text(f"{recs[-1]['seq']} {prev}\n")


def test_every_record_is_sealed_by_the_runs_key(run):
    seal = read_seal(run)
    key = rc.run_signer(run).public_raw
    assert check_seal(seal, key) == (Reason.OK, "") and seal_mismatch(seal, _records(run)) is None
    assert seal["records"] == 3 and seal["hash"] == _records(run)[-1]["hash"]
    assert all(record_seal_problem(r, key) is None for r in _records(run))
    rec = _records(run)[1]
    assert record_seal_problem(dict(rec, outcome="safe_stop"), key)[0] is Reason.SIGNATURE_INVALID
    assert record_seal_problem({k: v for k, v in rec.items() if k != "seal"}, key)[0] is Reason.SIGNATURE_MISSING


@pytest.mark.parametrize("how", ["rewritten", "deleted", "added"])
def test_records_changed_with_the_chain_redone_are_not_the_sealed_ones_and_are_never_resumed(run, how):
    recs = _records(run)
    if how == "rewritten":
        recs[1]["outcome"] = "safe_stop"
    elif how == "deleted":
        del recs[1]
    else:
        recs.append(_rec(3))  # appended by hand: it extends the sealed head, but carries no seal of the key
    _redo_chain(run, recs)
    assert inspect(run / "records.jsonl").problems == []  # the chain alone cannot tell
    before = seal_path(run).read_bytes()
    why = seal_mismatch(read_seal(run), _records(run))
    assert why is not None and how in why
    problem = Sealer(run, "p" * 64, "run-1").resume_problem(_records(run))
    assert problem is not None and how in problem
    assert seal_path(run).read_bytes() == before  # refused: nothing was re-sealed


def test_a_kill_between_a_records_line_and_its_seal_is_sealed_at_resume(run):
    ledger = Ledger(run / "records.jsonl")  # the line (with its own seal) and head are written, the head seal is not
    ledger.sign_record = Sealer(run, "p" * 64, "run-1").sign
    ledger.append(_rec(3))
    assert "deleted" not in str(seal_mismatch(read_seal(run), _records(run)))
    assert Sealer(run, "p" * 64, "run-1").resume_problem(_records(run)) is None
    seal = read_seal(run)
    assert seal["records"] == 4 and seal_mismatch(seal, _records(run)) is None


def test_a_seal_signed_by_another_key_is_never_resumed(run):
    from harness.ledger.ledger import generate_key
    from harness.ledger.seal import make_seal
    recs = _records(run)
    seal_path(run).write_text(json.dumps(make_seal(rc.Signer(generate_key()[0]), recs[-1], 3, None, "run-1")))
    assert "signer_key_mismatch" in str(Sealer(run, "p" * 64, "run-1").resume_problem(recs))


def test_a_removed_seal_is_refused_when_the_records_name_current_receipts_and_an_older_run_is_sealed(tmp_path):
    (tmp_path / "receipts").mkdir()
    (tmp_path / "receipts" / f"{'d' * 64}.json").write_text(json.dumps({"format": rc.RECEIPT_FORMAT}))
    ledger = Ledger(tmp_path / "records.jsonl")
    for i in range(2):
        ledger.append(_rec(i, receipts=["d" * 64]))
    assert "missing" in str(Sealer(tmp_path, "p" * 64, "run-1").resume_problem(_records(tmp_path)))
    older = tmp_path / "older"
    ledger = Ledger(older / "records.jsonl") if older.mkdir() is None else None
    for i in range(2):
        ledger.append(_rec(i))
    assert Sealer(older, "p" * 64, "run-1").resume_problem(_records(older)) is None
    assert seal_mismatch(read_seal(older), _records(older)) is None


def test_the_seal_is_an_anchor_the_ledger_checks_with_the_runs_public_key(run):
    problems, notes = check_anchor(run / "records.jsonl", read_seal(run), public_key_pem=rc.run_signer(run).public_pem)
    assert problems == [] and any("extends the anchored head" in n for n in notes)
