"""The hash-chained ledger: every tamper kind is detected and named; torn tails are repaired."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli import main
from harness.ledger import Ledger, canonical, record_hash, verify


@pytest.fixture
def ledger_file(tmp_path):
    led = Ledger(tmp_path / "records.jsonl")
    for i in range(5):
        led.append({"cell_key": f"A1|t|null|{i + 1}", "outcome": "completed", "cost_usd": None})
    return tmp_path / "records.jsonl"


def lines(p):
    return p.read_text().splitlines()


def put(p, ls):
    p.write_text("\n".join(ls) + "\n")


def test_intact_ledger_verifies(ledger_file):
    assert verify(ledger_file) == []
    r = CliRunner().invoke(main, ["ledger", "verify", str(ledger_file)])
    assert r.exit_code == 0 and "intact (5 records" in r.output


def test_edited_line_is_named(ledger_file):
    ls = lines(ledger_file)
    ls[2] = ls[2].replace('"completed"', '"amplified"')
    put(ledger_file, ls)
    assert any(p.startswith("line 3: edited") for p in verify(ledger_file))


def test_null_is_part_of_the_hash():
    """A canonicalizer that dropped null would miss a mutation after signing (paper section 8)."""
    rec = {"a": 1, "cost_usd": None}
    assert '"cost_usd":null' in canonical(rec)
    assert record_hash(rec) != record_hash({"a": 1})


def test_null_field_mutation_is_detected(ledger_file):
    ls = lines(ledger_file)
    rec = json.loads(ls[1])
    rec["cost_usd"] = 0.0
    ls[1] = json.dumps(rec)
    put(ledger_file, ls)
    assert any(p.startswith("line 2: edited") for p in verify(ledger_file))


def test_deleted_line_is_named(ledger_file):
    ls = lines(ledger_file)
    del ls[1]
    put(ledger_file, ls)
    probs = verify(ledger_file)
    assert "seq 1: deleted (no line carries it)" in probs


def test_deleted_last_line_is_caught_by_the_head(ledger_file):
    put(ledger_file, lines(ledger_file)[:-1])
    assert any("records.head names seq 4" in p for p in verify(ledger_file))


def test_inserted_line_is_named(ledger_file):
    ls = lines(ledger_file)
    forged = json.loads(ls[1])
    forged["cell_key"] = "A1|t|null|99"
    forged["hash"] = record_hash(forged)  # a self-consistent forgery still breaks the sequence
    ls.insert(2, json.dumps(forged))
    put(ledger_file, ls)
    assert any(p.startswith("line 3: inserted") for p in verify(ledger_file))


def test_reordered_lines_are_named(ledger_file):
    ls = lines(ledger_file)
    ls[1], ls[3] = ls[3], ls[1]
    put(ledger_file, ls)
    assert any("reordered" in p for p in verify(ledger_file))
    r = CliRunner().invoke(main, ["ledger", "verify", str(ledger_file)])
    assert r.exit_code == 1


def test_torn_tail_is_detected_and_repaired_on_open(ledger_file):
    with ledger_file.open("a") as f:
        f.write('{"cell_key": "A1|t|null|6", "outc')
    assert "last line is torn (no trailing newline)" in verify(ledger_file)
    led = Ledger(ledger_file)
    assert led.repair and led.repair.torn_bytes > 0 and led.repair.moved_to.read_text().startswith('{"cell_key"')
    assert len(led.records) == 5 and verify(ledger_file) == []
    led.append({"cell_key": "A1|t|null|6", "outcome": "completed"})
    assert verify(ledger_file) == []


def test_head_one_behind_after_a_kill_is_caught_up_on_open(ledger_file):
    """A kill between a line's fsync and the head update leaves the head one record behind."""
    head = ledger_file.with_suffix(".head")
    recs = [json.loads(x) for x in lines(ledger_file)]
    head.write_text(f"{recs[-2]['seq']} {recs[-2]['hash']}\n")
    led = Ledger(ledger_file)
    assert led.head_repaired and verify(ledger_file) == []


def test_head_further_behind_is_refused_as_tampering(ledger_file):
    recs = [json.loads(x) for x in lines(ledger_file)]
    ledger_file.with_suffix(".head").write_text(f"{recs[1]['seq']} {recs[1]['hash']}\n")
    with pytest.raises(ValueError, match="records.head does not match"):
        Ledger(ledger_file)
