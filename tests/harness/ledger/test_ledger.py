"""The hash-chained ledger: every tamper kind is detected and named; torn tails are repaired."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.ledger import (
    Ledger,
    LedgerLine,
    LedgerRefused,
    canonical,
    check_anchor,
    generate_key,
    inspect,
    make_anchor,
    record_hash,
    verify,
)


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
    assert any(p.startswith("line 3: duplicated or inserted") for p in verify(ledger_file))


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
    assert any("last line is torn" in p for p in verify(ledger_file))
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
    with pytest.raises(LedgerRefused, match="records.head names seq 1"):
        Ledger(ledger_file)


# -- every tamper class, against verify and against opening for a resume (which must change no byte) --
def _edit(ls):
    ls[2] = ls[2].replace('"completed"', '"amplified"')
    return ls


def _delete_middle(ls):
    del ls[2]
    return ls


def _swap(ls):
    ls[1], ls[2] = ls[2], ls[1]
    return ls


def _duplicate_last(ls):
    return ls + [ls[-1]]


def _duplicate_middle(ls):
    return ls[:3] + [ls[2]] + ls[3:]


def _forged_append(ls):  # a self-consistent new line appended (the head still names the old last line... twice behind)
    prev = json.loads(ls[-1])
    a = {"cell_key": "A1|t|null|9", "outcome": "completed", "cost_usd": None, "seq": 5, "prev_hash": prev["hash"]}
    a["hash"] = record_hash(a)
    b = {"cell_key": "A1|t|null|10", "outcome": "completed", "cost_usd": None, "seq": 6, "prev_hash": a["hash"]}
    b["hash"] = record_hash(b)
    return ls + [json.dumps(a), json.dumps(b)]


TAMPER = {"edited outcome": _edit, "deleted middle line": _delete_middle, "swapped lines": _swap,
          "duplicated last line": _duplicate_last, "duplicated middle line": _duplicate_middle,
          "two forged lines appended": _forged_append, "last line deleted": lambda ls: ls[:-1],
          "blank line inserted": lambda ls: ls[:2] + [""] + ls[2:]}


@pytest.mark.parametrize("how", sorted(TAMPER))
def test_every_tamper_class_fails_verify_and_resume_changes_no_byte(ledger_file, how):
    put(ledger_file, TAMPER[how](lines(ledger_file)))
    head = ledger_file.with_suffix(".head")
    before = (ledger_file.read_bytes(), head.read_bytes())
    assert [p for p in verify(ledger_file) if "note" not in p], how
    with pytest.raises(LedgerRefused):
        Ledger(ledger_file)
    assert (ledger_file.read_bytes(), head.read_bytes()) == before
    assert not ledger_file.with_name(ledger_file.name + ".torn").exists()


def test_a_torn_last_line_the_head_names_is_refused_and_left_alone(ledger_file):
    """The head names the last line, so it was whole when written: cutting it is tampering."""
    data = ledger_file.read_bytes()
    ledger_file.write_bytes(data[:-30])
    before = ledger_file.read_bytes()
    assert any("records.head names it" in p for p in verify(ledger_file))
    with pytest.raises(LedgerRefused):
        Ledger(ledger_file)
    assert ledger_file.read_bytes() == before and not ledger_file.with_name("records.jsonl.torn").exists()


def test_only_the_head_edited_is_named_as_such(ledger_file):
    head = ledger_file.with_suffix(".head")
    seq, _ = head.read_text().split()
    head.write_text(f"{seq} {'0' * 64}\n")
    assert any("records.head was edited" in p for p in verify(ledger_file))


def test_empty_ledger_is_not_called_intact(tmp_path):
    empty = tmp_path / "records.jsonl"
    empty.write_text("")
    r = CliRunner().invoke(main, ["ledger", "verify", str(empty)])
    assert r.exit_code == 1 and "intact" not in r.output and "empty" in r.output


def test_a_full_chain_rewrite_passes_verify_but_not_the_anchor(ledger_file, tmp_path):
    anchor = make_anchor(ledger_file)
    recs = [json.loads(x) for x in lines(ledger_file)]
    recs[2]["outcome"] = "amplified"
    prev = ""
    for r in recs:  # re-hash everything: the unsigned chain is consistent again
        r["prev_hash"] = prev
        r["hash"] = record_hash(r)
        prev = r["hash"]
    put(ledger_file, [json.dumps(r) for r in recs])
    ledger_file.with_suffix(".head").write_text(f"{recs[-1]['seq']} {recs[-1]['hash']}\n")
    assert verify(ledger_file) == []  # the rewrite is invisible without an external anchor
    problems, _ = check_anchor(ledger_file, anchor)
    assert any("rewritten" in p for p in problems)
    (tmp_path / "anchor.json").write_text(json.dumps(anchor))
    r = CliRunner().invoke(main, ["ledger", "verify", str(ledger_file), "--anchor", str(tmp_path / "anchor.json")])
    assert r.exit_code == 1 and "rewritten" in r.output


def test_deleting_the_last_line_and_fixing_the_head_is_caught_by_the_anchor(ledger_file):
    anchor = make_anchor(ledger_file)
    ls = lines(ledger_file)[:-1]
    put(ledger_file, ls)
    last = json.loads(ls[-1])
    ledger_file.with_suffix(".head").write_text(f"{last['seq']} {last['hash']}\n")
    assert verify(ledger_file) == []
    problems, _ = check_anchor(ledger_file, anchor)
    assert any("removed since it was anchored" in p for p in problems)


def test_signed_anchor_verifies_extends_and_rejects_edits_and_other_keys(ledger_file, tmp_path):
    priv, pub = generate_key()
    anchor = make_anchor(ledger_file, private_key_pem=priv)
    led = Ledger(ledger_file)
    led.append({"cell_key": "A1|t|null|6", "outcome": "completed", "cost_usd": None})
    problems, notes = check_anchor(ledger_file, anchor, public_key_pem=pub)
    assert problems == [] and any("1 record(s) appended since" in n for n in notes)
    edited = dict(anchor, records=4)
    assert any("edited" in p for p in check_anchor(ledger_file, edited, public_key_pem=pub)[0])
    _, other = generate_key()
    assert any("different key" in p for p in check_anchor(ledger_file, anchor, public_key_pem=other)[0])


def test_anchor_cli_round_trip(ledger_file, tmp_path):
    key = tmp_path / "k"
    assert CliRunner().invoke(main, ["ledger", "keygen", "--out", str(key)]).exit_code == 0
    out = tmp_path / "a.json"
    r = CliRunner().invoke(main, ["ledger", "anchor", str(ledger_file.parent), "--out", str(out), "--sign-key", str(key)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["ledger", "verify", str(ledger_file.parent), "--anchor", str(out), "--public-key",
                                  str(key) + ".pub"])
    assert r.exit_code == 0 and "extends the anchored head" in r.output, r.output


def test_a_last_line_whose_seq_is_not_an_integer_is_a_problem_not_a_crash(tmp_path):
    """An edit that turns the last seq into a string must be reported, never raise (int > str)."""
    import json

    from harness.ledger.ledger import inspect as inspect_ledger
    path = tmp_path / "records.jsonl"
    led = Ledger(path)
    for i in range(2):
        led.append({"cell_key": f"A1|t|null|{i}", "outcome": "completed"})
    lines = path.read_text().splitlines()
    rec = json.loads(lines[-1])
    rec["seq"] = str(rec["seq"])
    path.write_text("\n".join(lines[:-1] + [json.dumps(rec)]) + "\n")
    ins = inspect_ledger(path)
    assert ins.problems and any("'1'" in p or "edited" in p for p in ins.problems)


def test_an_anchor_signed_with_a_non_ed25519_key_is_refused(tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from harness.ledger.ledger import make_anchor
    path = tmp_path / "records.jsonl"
    Ledger(path).append({"cell_key": "A1|t|null|0", "outcome": "completed"})
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(ValueError, match="ECPrivateKey"):
        make_anchor(path, private_key_pem=pem)


def test_a_ledger_line_is_read_as_written_forged_values_and_missing_fields_included(tmp_path):
    """``LedgerLine`` (what receipts verify and rejudge check) reads each field as the line holds it, never
    parsed into its enum or refused: an outcome outside the enum stays a string, a missing field is None, a
    field of another type is kept; ``raw`` is the object itself, for the checks over every field."""
    obj = {"cell_key": "A1|t|null|1", "outcome": "delivered", "receipts": "not-a-list", "visible_pass": True,
           "hidden_plain_pass": False, "seal": None, "seq": 0}
    line = LedgerLine.of(obj)
    assert (line.cell_key, line.outcome, line.receipts, line.arm, line.sealed) == (
        "A1|t|null|1", "delivered", "not-a-list", None, True)
    assert (line.passed("visible"), line.passed("hidden"), line.plain_passed("hidden"), line.plain_passed("visible")) == (
        True, None, False, None)
    assert line.flags() == {"shipped": None, "visible_pass": True, "hidden_pass": None}
    assert line.raw is obj and not LedgerLine.of({}).sealed


def test_inspection_lines_are_its_records_as_written(tmp_path):
    led = Ledger(tmp_path / "records.jsonl")
    led.append({"cell_key": "k", "outcome": "completed"})
    ins = inspect(tmp_path / "records.jsonl")
    assert [(ln.cell_key, ln.outcome, ln.seq, ln.raw) for ln in ins.lines] == [("k", "completed", 0, ins.records[0])]


@pytest.mark.parametrize("seq", ["0", [0], {"n": 0}], ids=["string", "list", "object"])
def test_a_seq_that_is_not_an_integer_on_a_line_before_the_last_is_a_problem_not_a_crash(tmp_path, seq):
    path = tmp_path / "records.jsonl"
    led = Ledger(path)
    for i in range(3):
        led.append({"cell_key": f"A1|t|null|{i}", "outcome": "completed"})
    ls = lines(path)
    rec = json.loads(ls[0])
    rec["seq"] = seq
    put(path, [json.dumps(rec), *ls[1:]])
    try:
        ins = inspect(path)
    except TypeError as exc:
        raise AssertionError(f"inspect raised {exc!r}") from None
    assert any(p.startswith("line 1:") for p in ins.problems)


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85"], ids=["U+2028", "U+2029", "U+0085"])
def test_a_record_whose_text_holds_a_unicode_line_break_reads_back_as_written(tmp_path, char):
    path = tmp_path / "records.jsonl"
    led = Ledger(path)
    led.append({"cell_key": "A1|t|null|1", "outcome": "completed", "claim": f"done{char}all tests pass"})
    led.append({"cell_key": "A1|t|null|2", "outcome": "completed", "claim": None})
    ins = inspect(path)
    assert ins.problems == [] and [r["claim"] for r in ins.records] == [f"done{char}all tests pass", None]


def _damaged_der(pub: bytes) -> bytes | None:
    """``pub`` with its BIT STRING's unused-bits count 1, or None when this cryptography refuses that itself
    (cryptography 48 reads it as the same key for about half of all keys; 50 refuses it for every key)."""
    import base64

    from cryptography.hazmat.primitives.serialization import load_pem_public_key
    der = base64.b64decode(b"".join(pub.splitlines()[1:-1]))
    damaged = (b"-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der[:11] + b"\x01" + der[12:])
               + b"\n-----END PUBLIC KEY-----\n")
    try:
        load_pem_public_key(damaged)
    except ValueError:
        return None
    return damaged


@pytest.mark.parametrize("form", ["unused-bits-1", "text-after-its-end-line"])
def test_an_anchor_checked_against_a_key_that_is_not_its_exact_der_is_refused(ledger_file, form):
    """``ledger verify --public-key`` reads the key by receipts' exact-PEM rule (review r36): a key file
    that cryptography reads as the anchor's key but that is not its canonical PEM is refused."""
    for _ in range(200):
        priv, pub = generate_key()
        damaged = _damaged_der(pub) if form == "unused-bits-1" else pub + b"trailing text\n"
        if damaged is not None:
            break
    else:
        pytest.skip("this cryptography refuses every damaged DER itself (nothing for the rule to refuse)")
    anchor = make_anchor(ledger_file, private_key_pem=priv)
    from harness.ledger.receipts import public_raw_of_pem
    with pytest.raises(ValueError, match="canonical"):
        public_raw_of_pem(damaged)  # what receipts verify does with it
    try:
        problems, _ = check_anchor(ledger_file, anchor, public_key_pem=damaged)
    except ValueError:
        return
    assert problems, "the anchor verified against a key that is not its exact DER"
