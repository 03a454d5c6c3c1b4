"""A loop ledger's rows as typed objects (harness.loop.rows): read as the dict readers read them."""
from __future__ import annotations

from harness.loop.rows import LoopRow, PassKey, rows_of


def test_a_row_reads_as_the_dict_did():
    """Each attribute is the row's value (``pass`` is ``pass_no``); a key the row lacks reads None, ``reason`` ""
    (what ``row.get(name)`` and ``row.get("reason", "")`` read); keys the loop does not read are left out."""
    row = {"run_id": "r", "node": "n", "pass": 2, "kind": "attempt", "cell_key": "r|n|2|1", "attempt": 1, "spent": True,
           "verdict": "accept", "reason": "ok", "seq": 4, "hash": "h", "gate": "g", "writes": ["write_file:x"]}
    t = LoopRow.from_json(row)
    assert (t.run_id, t.node, t.pass_no, t.kind, t.attempt, t.spent, t.verdict, t.reason, t.seq, t.hash) == \
        ("r", "n", 2, "attempt", 1, True, "accept", "ok", 4, "h")
    assert t.key == PassKey("r", "n", 2) == ("r", "n", 2)
    assert t.state is None and t.verdict_seq is None and t.model_id is None
    bare = LoopRow.from_json({"seq": 0})
    assert bare.reason == "" and bare.key == (None, None, None) and bare.pass_fields() == {}
    assert LoopRow.from_json({"reason": None}).reason is None


def test_pass_fields_are_the_rows_own_keys():
    """An abandoned row carries the run id, node and pass the row it replaces holds, under the ledger's keys."""
    assert LoopRow.from_json({"run_id": "r", "node": None, "pass": 1}).pass_fields() == \
        {"run_id": "r", "node": None, "pass": 1}
    assert LoopRow.from_json({"run_id": "r", "pass": 3}).pass_fields() == {"run_id": "r", "pass": 3}


def test_rows_of_a_ledger():
    assert [r.seq for r in rows_of([{"seq": 0}, {"seq": 1, "kind": "terminal"}])] == [0, 1]
