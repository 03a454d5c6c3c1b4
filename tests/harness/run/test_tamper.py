"""Table 5 of the Proof-or-Stop paper as a contract over a real run (harness.run.tamper,
harness.run.receipts_verify): the authentic run verifies, each of the 18 tamper classes is rejected
with its reason, all ten non-ok codes are reached; one byte changed in a tree, a record, a receipt
or the public key is refused; a bundle verifies and re-judges alone; rejudge names a changed tree."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading

import pytest
from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger import receipts as rc
from harness.ledger.receipts import Reason
from harness.run import tamper
from harness.run.bundle import export_bundle
from harness.run.receipts_verify import verify_run
from support.scripted import TASKS

SMALL = """
[protocol]
name = "receipts-small"
seed = 7
repeats = 1
tasks_dir = "{tasks}"
tasks = ["parse-range", "median"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.A1]
controller = "A1"
[arms.A2]
controller = "A2"
[arms.A4]
controller = "A4"
"""


@pytest.fixture(scope="module")
def authentic(tmp_path_factory):
    """A real 12-cell run (A1, A2, A4 x two tasks x null, B2) on the simulated engine."""
    return tamper.build_authentic(tmp_path_factory.mktemp("authentic"), TASKS, protocol=SMALL)


def _copy(authentic, tmp_path) -> tamper.Bundle:
    dest = tmp_path / "copy"
    shutil.copytree(authentic.dir, dest, ignore=shutil.ignore_patterns("keys"))
    return tamper.Bundle(dest, authentic.public_pem, authentic.private_pem)


def test_the_authentic_run_verifies_with_every_cell_named_by_receipts(authentic):
    report = verify_run(authentic.dir, authentic.public_pem)
    assert report.ok, [f.line() for f in report.findings]
    recs = [json.loads(line) for line in (authentic.dir / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 12 and all(len(r["receipts"]) >= 4 for r in recs)
    assert report.receipts == sum(len(r["receipts"]) for r in recs) and report.judge_only == 0
    for rec in recs:  # every run of the final adjudication, judged and plain, has its receipt
        kinds = [json.loads((authentic.dir / "receipts" / f"{d}.json").read_bytes())["subject"]
                 for d in rec["receipts"]]
        assert sorted(k["kind"] for k in kinds if k["stage"] == "final") == sorted(rc.KINDS)
    assert not (authentic.dir / "receipts" / "receipt-signing.pem").exists()


def test_table5_is_zero_false_accepts_zero_false_rejects_and_reaches_every_code(authentic, tmp_path):
    rows = tamper.run_contract(authentic, tmp_path)
    assert len(rows) == 19 and len({r.family for r in rows}) == 8  # the control and seven families
    assert [r.name for r in rows if r.false_accept or r.false_reject] == []
    assert {r.reached for r in rows} == set(Reason)
    assert "false-accept: 0/18" in tamper.render(rows)


@pytest.mark.parametrize("cls", tamper.CLASSES, ids=[c.name for c in tamper.CLASSES])
def test_each_tamper_class_is_rejected_with_its_reason(authentic, tmp_path, cls):
    b = _copy(authentic, tmp_path)
    cls.apply(b)
    assert tamper.reached(b) is cls.expected


def _flip(path, at=None):
    data = bytearray(path.read_bytes())
    i = at if at is not None else len(data) // 2
    data[i] ^= 0x01
    path.write_bytes(bytes(data))


def test_one_byte_of_a_record_is_a_digest_mismatch(authentic, tmp_path):
    """A byte of a value (here the first digit of a wall time): the hash chain breaks. (Whitespace between
    tokens is not content: the chain hashes the canonical record, harness.ledger.ledger.)"""
    b = _copy(authentic, tmp_path)
    lines = (b.dir / "records.jsonl").read_text().splitlines(keepends=True)
    i = lines[3].index('"wall_s":') + len('"wall_s":')
    digit = lines[3][i]
    lines[3] = lines[3][:i] + ("1" if digit != "1" else "2") + lines[3][i + 1:]
    (b.dir / "records.jsonl").write_text("".join(lines))
    assert tamper.reached(b) is Reason.DIGEST_MISMATCH


def test_one_byte_of_a_receipt_is_refused(authentic, tmp_path):
    b = _copy(authentic, tmp_path)
    receipt = b.final_visible()
    raw = receipt.read_bytes()
    receipt.write_bytes(raw.replace(b'"cwd":"<work>"', b'"cwd":"<worK>"'))
    assert tamper.reached(b) is Reason.SIGNATURE_INVALID
    receipt.write_bytes(raw + b" ")  # the same object, other bytes: not the content its name is the digest of
    assert tamper.reached(b) is Reason.DIGEST_MISMATCH


def test_one_byte_of_the_public_key_is_a_signer_mismatch(authentic, tmp_path):
    b = _copy(authentic, tmp_path)
    pem = bytearray(b.public_pem)
    i = pem.index(b"\n") + 20
    pem[i] = ord("A") if pem[i] != ord("A") else ord("B")
    b.public_pem = bytes(pem)
    assert tamper.reached(b) is Reason.SIGNER_KEY_MISMATCH


def _rewrite(b, change, seal_with: bytes | None = None) -> None:
    """Change the records and rewrite the hash chain and head to match, as an attacker would. Without
    the run's key the ledger seal (harness.ledger.seal) is left as it was; ``seal_with`` (a private
    key: the run's, for an attacker holding it, which local-key scope cannot stop) seals the result."""
    import base64

    from harness.ledger.ledger import record_hash
    from harness.ledger.seal import make_seal, record_seal_body, seal_path
    recs = [json.loads(x) for x in (b.dir / "records.jsonl").read_text().splitlines()]
    change(recs)
    prev = ""
    for r in recs:
        r["prev_hash"] = prev
        if seal_with is not None:  # each record's own seal too
            r["seal"] = base64.b64encode(rc.Signer(seal_with).sign_bytes(record_seal_body(r))).decode()
        r["hash"] = prev = record_hash(r)
    (b.dir / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (b.dir / "records.head").write_text(f"{recs[-1]['seq']} {prev}\n")
    if seal_with is not None:
        seal = make_seal(rc.Signer(seal_with), recs[-1], len(recs), recs[-1].get("protocol_digest"), recs[-1].get("run_id"))
        seal_path(b.dir).write_text(json.dumps(seal))


def test_a_receipt_of_another_cell_replayed_is_stale(authentic, tmp_path):
    b = _copy(authentic, tmp_path)
    _rewrite(b, lambda recs: recs[0].update(receipts=recs[1]["receipts"]), seal_with=b.private_pem)
    assert {f.reason for f in verify_run(b.dir, b.public_pem).findings} == {Reason.STALE}


def test_a_record_whose_verdicts_are_rewritten_is_refused_by_its_receipts(authentic, tmp_path):
    b = _copy(authentic, tmp_path)

    def flip(recs):
        rec = next(r for r in recs if r["outcome"] == "amplified")
        rec.update(outcome="completed", hidden_pass=True)
    _rewrite(b, flip, seal_with=b.private_pem)
    assert tamper.reached(b) is Reason.DECISION_NOT_PASS  # the oracle's receipt: exit 0 (it ran), decision fail
    b = _copy(authentic, tmp_path / "2")
    _rewrite(b, lambda recs: next(r for r in recs if r["outcome"] == "amplified").update(outcome="completed"),
             seal_with=b.private_pem)
    assert tamper.reached(b) is Reason.DECISION_NOT_PASS


def _resign_final(b, rec: dict, kind: str, change) -> None:
    """Replace ``rec``'s final receipt of ``kind`` with a changed one, signed with the run's key (an
    attacker holding it), named by its new digest in ``rec`` (the caller rewrites the chain)."""
    from harness.judge.evidence import write_receipt
    for i, d in enumerate(rec["receipts"]):
        r = rc.strict_loads((b.dir / "receipts" / f"{d}.json").read_bytes())
        if (r["subject"]["stage"], r["subject"]["kind"]) == ("final", kind):
            change(r)
            rec["receipts"][i] = write_receipt(b.dir, rc.Signer(b.private_pem).sign(r))
            return
    raise LookupError(kind)


def _fail(r: dict) -> None:
    r["outcome"]["verdict"].update(passed=False, failures=1, returncode=1)
    r["identity"].update(exit=1, outputDigest=rc.output_digest(r["outcome"]["verdict"]))
    r["outcome"]["decision"] = "fail"


def _pass(r: dict) -> None:
    r["outcome"]["verdict"].update(passed=True, failures=0, errors=0, returncode=0)
    r["identity"].update(exit=0, outputDigest=rc.output_digest(r["outcome"]["verdict"]))
    r["outcome"]["decision"] = "pass"


@pytest.mark.parametrize("plain_pass_said", [True, False, None])
def test_a_visible_pass_whose_plain_pytest_receipt_fails_is_refused(authentic, tmp_path, plain_pass_said):
    """visible_pass is judge AND plain pytest: a record that claims the pass while its plain run's signed
    receipt says fail is refused, whatever it says of visible_plain_pass."""
    b = _copy(authentic, tmp_path)

    def change(recs):
        rec = next(r for r in recs if r["visible_pass"])
        _resign_final(b, rec, "visible_plain", _fail)
        rec["visible_plain_pass"] = plain_pass_said
    _rewrite(b, change, seal_with=b.private_pem)
    findings = verify_run(b.dir, b.public_pem).findings
    assert [(f.reason, f.what.split("#")[0]) for f in findings] == [(Reason.RECEIPT_NOT_PASSING, "final/visible_plain")]


def test_the_judge_passing_and_plain_pytest_failing_is_a_failed_test_and_both_receipts_say_so(authentic, tmp_path):
    """The oracle of an amplified cell: its judged receipt re-signed to pass, plain pytest's still fails.
    The record's hidden_pass false is then right (judge AND plain) and verifies; claiming it true is refused
    by the plain receipt, and so is claiming false when both runs pass."""
    b = _copy(authentic, tmp_path)
    key = next(json.loads(x)["cell_key"] for x in (b.dir / "records.jsonl").read_text().splitlines()
               if json.loads(x)["outcome"] == "amplified")

    def judge_passes(recs):
        _resign_final(b, next(r for r in recs if r["cell_key"] == key), "hidden", _pass)
    _rewrite(b, judge_passes, seal_with=b.private_pem)
    assert tamper.reached(b) is Reason.OK
    _rewrite(b, lambda recs: next(r for r in recs if r["cell_key"] == key).update(outcome="completed", hidden_pass=True),
             seal_with=b.private_pem)
    assert tamper.reached(b) is Reason.RECEIPT_NOT_PASSING  # plain pytest's receipt: exit 1
    b = _copy(authentic, tmp_path / "2")

    def both_pass(recs):
        rec = next(r for r in recs if r["cell_key"] == key)
        _resign_final(b, rec, "hidden", _pass)
        _resign_final(b, rec, "hidden_plain", _pass)
    _rewrite(b, both_pass, seal_with=b.private_pem)
    assert tamper.reached(b) is Reason.DECISION_NOT_PASS  # said failed, both runs say pass, no hidden check


def _judge_only(b, keep_fields: bool, only: int | None = None) -> None:
    """The run as it was before plain-run receipts: records (all, or record ``only``) name the judge's
    receipts only."""
    def strip(recs):
        for rec in recs if only is None else recs[only:only + 1]:
            rec["receipts"] = [d for d in rec["receipts"] if rc.strict_loads(
                (b.dir / "receipts" / f"{d}.json").read_bytes())["subject"]["kind"] not in rc.PLAIN_KINDS]
            if not keep_fields:
                rec["visible_plain_pass"] = rec["hidden_plain_pass"] = None
    _rewrite(b, strip, seal_with=b.private_pem)


def test_an_older_run_without_plain_receipts_verifies_and_says_so_unless_its_records_name_plain_verdicts(
        authentic, tmp_path):
    b = _copy(authentic, tmp_path)
    _judge_only(b, keep_fields=False)
    report = verify_run(b.dir, b.public_pem)
    assert report.ok and report.judge_only == 12
    key = tmp_path / "pub.pem"
    key.write_bytes(b.public_pem)
    r = CliRunner().invoke(main, ["receipts", "verify", str(b.dir), "--public-key", str(key)])
    assert r.exit_code == 0 and "12 record(s) from before plain-run receipts" in r.output, r.output
    b = _copy(authentic, tmp_path / "2")
    _judge_only(b, keep_fields=True)
    findings = verify_run(b.dir, b.public_pem).findings
    assert {(f.reason, f.what) for f in findings} == {(Reason.BUILD_PROOF_MISSING, "final/visible_plain")}
    assert len(findings) == 12


def test_plain_receipts_stripped_from_one_record_of_a_run_are_missing_proof(authentic, tmp_path):
    """A run has one command set per task, so it is all from before plain receipts or none of it: one record
    made to look older (its plain receipts and verdicts removed) is refused."""
    b = _copy(authentic, tmp_path)
    _judge_only(b, keep_fields=False, only=2)
    report = verify_run(b.dir, b.public_pem)
    assert [(f.reason, f.what) for f in report.findings] == [(Reason.BUILD_PROOF_MISSING, "final/*_plain")]


def test_a_bundle_alone_verifies_and_rejudges_identically_and_a_changed_tree_is_named(authentic, tmp_path):
    out = tmp_path / "run.tar.gz"
    export_bundle(authentic.dir, out)
    key = tmp_path / "pub.pem"
    key.write_bytes(authentic.public_pem)
    r = CliRunner().invoke(main, ["receipts", "verify", str(out), "--public-key", str(key)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(main, ["rejudge", str(out), "--sample", "10", "--seed", "3"])
    assert r.exit_code == 0 and "10/10 cell(s) identical" in r.output, r.output
    assert "predates" not in r.output
    b = _copy(authentic, tmp_path)
    tamper._flip_code_byte(b)
    first = json.loads((b.dir / "records.jsonl").read_text().splitlines()[0])["cell_key"]
    r = CliRunner().invoke(main, ["rejudge", str(b.dir), first])
    assert r.exit_code == 1 and "DIFFERENT" in r.output and "does not rebuild" in r.output
    r = CliRunner().invoke(main, ["receipts", "verify", str(b.dir), "--public-key", str(key)])
    assert r.exit_code == 1 and r.output.startswith("stale")


def test_a_run_without_its_tree_store_is_refused_unless_the_reader_says_it_kept_none(authentic, tmp_path):
    b = _copy(authentic, tmp_path)
    shutil.rmtree(b.dir / "trees")
    assert tamper.reached(b) is Reason.BUILD_PROOF_MISSING
    assert verify_run(b.dir, b.public_pem, trees=False).ok


def test_rejudge_never_compares_with_a_receipt_edited_after_signing(authentic, tmp_path):
    from harness.run.bundle import sources
    from harness.run.rejudge import rejudge
    from harness.sandbox.sandbox import Limits
    b = _copy(authentic, tmp_path)
    receipt = b.final_visible()
    r = json.loads(receipt.read_bytes())
    r["outcome"]["verdict"]["tests"] += 1  # unsigned: the replay would then "differ" for the wrong reason
    receipt.write_text(json.dumps(r))
    key = next(x["cell_key"] for x in map(json.loads, (b.dir / "records.jsonl").read_text().splitlines())
               if receipt.stem in x["receipts"])
    tasks_dir, lim = sources(b.dir)
    [row] = rejudge(b.dir, tasks_dir, Limits(timeout_s=lim["timeout_s"]), (key,))
    assert not row.identical and any("does not verify: signature_invalid" in d for d in row.differences)


def test_rejudge_replays_plain_pytest_too_and_names_a_plain_difference(authentic, tmp_path):
    """Each cell's four final runs are replayed and compared (the plain runs' structured verdicts are as
    deterministic as the judge's: no wall time, no cache flag); a plain receipt that says otherwise than
    the replay is named; an older run's missing plain receipts are a note, not a difference."""
    from harness.run.bundle import sources
    from harness.run.rejudge import rejudge
    from harness.sandbox.sandbox import Limits
    b = _copy(authentic, tmp_path)
    tasks_dir, lim = sources(b.dir)
    key = next(json.loads(x)["cell_key"] for x in (b.dir / "records.jsonl").read_text().splitlines()
               if json.loads(x)["visible_pass"])
    [row] = rejudge(b.dir, tasks_dir, Limits(timeout_s=lim["timeout_s"]), (key,))
    assert row.identical and set(row.digests) == set(rc.KINDS) and not row.notes, row.differences
    assert all(stored == replayed for stored, replayed in row.digests.values())
    _rewrite(b, lambda recs: _resign_final(b, next(r for r in recs if r["cell_key"] == key), "visible_plain", _fail),
             seal_with=b.private_pem)
    [row] = rejudge(b.dir, tasks_dir, Limits(timeout_s=lim["timeout_s"]), (key,))
    assert [d.split(" (")[0] for d in row.differences] == ["visible_plain: output digest differs"]
    b = _copy(authentic, tmp_path / "2")
    _judge_only(b, keep_fields=False)
    [row] = rejudge(b.dir, tasks_dir, Limits(timeout_s=lim["timeout_s"]), (key,))
    assert row.identical and len(row.notes) == 2 and set(row.digests) == set(rc.JUDGED_KINDS)


# -- red team r33 (issue 33's acceptance: a helper that did not write the code tries to get a tampered bundle
# accepted and a changed tree re-judged "identical") ----------------------------------------------------------
def test_a_respelled_receipt_renamed_to_its_own_hash_is_not_its_canonical_bytes(authentic, tmp_path):
    """red team r33: a receipt re-encoded (indent, raw é, -0 for 0: the same object, so its signature
    holds), stored under the sha256 of the new bytes and the record re-pointed at it (chain redone):
    the file is not the canonical bytes its name commits to (docs/receipts.md). Accepted on main."""
    b = _copy(authentic, tmp_path)
    path = b.final_visible()
    old = path.stem
    data = json.dumps(json.loads(path.read_bytes()), indent=2, ensure_ascii=False).encode().replace(
        b'"exit": 0', b'"exit": -0')
    from harness.ledger.receipts import sha256_hex
    new = sha256_hex(data)
    (b.dir / "receipts" / f"{new}.json").write_bytes(data)
    _rewrite(b, lambda recs: [r.update(receipts=[new if d == old else d for d in r["receipts"]]) for r in recs])
    assert tamper.reached(b) is Reason.DIGEST_MISMATCH


def test_a_bundle_re_signed_with_a_new_key_that_publishes_it_fails_against_the_original_key(authentic, tmp_path):
    """red team r33 (attack failed, kept): every receipt re-signed with a fresh key, the bundle's public
    key replaced and the records re-pointed (chain redone). Against the reader's copy of the original key
    every receipt is ``signer_key_mismatch``; the CLI has no default key to fall back on."""
    from harness.ledger import receipts as rc
    from harness.ledger.ledger import generate_key
    b = _copy(authentic, tmp_path)
    other_pem = generate_key()[0]
    other = rc.Signer(other_pem)
    renamed = {}
    for p in list((b.dir / "receipts").glob("*.json")):
        r = json.loads(p.read_bytes())
        r["producer"]["key_id"] = other.key_id
        data = rc.canonical_bytes(other.sign(r))
        p.unlink()
        renamed[p.stem] = rc.sha256_hex(data)
        (b.dir / "receipts" / f"{renamed[p.stem]}.json").write_bytes(data)
    (b.dir / "receipts" / rc.PUBLIC_KEY_NAME).write_bytes(other.public_pem)
    _rewrite(b, lambda recs: [r.update(receipts=[renamed[d] for d in r["receipts"]], receipt_key_id=other.key_id)
                              for r in recs], seal_with=other_pem)
    report = verify_run(b.dir, authentic.public_pem)
    assert not report.ok and Reason.SIGNER_KEY_MISMATCH in {f.reason for f in report.findings}
    assert _seal_findings(b) == [(Reason.SIGNER_KEY_MISMATCH, "receipts/ledger.seal")]
    r = CliRunner().invoke(main, ["receipts", "verify", str(b.dir)])
    assert r.exit_code == 2 and "--public-key" in r.output


def test_a_run_json_that_is_a_fifo_does_not_hang_verify(authentic, tmp_path):
    """red team r33: a FIFO planted as run.json in a run directory blocked ``verify`` for ever (the lock
    was read with read_text). It is now not read; the receipts are still checked on their own."""
    import os
    b = _copy(authentic, tmp_path)
    (b.dir / "run.json").unlink()
    os.mkfifo(b.dir / "run.json")
    assert tamper.reached(b) is Reason.OK


def test_rejudge_of_a_record_naming_another_cells_tree_and_receipts_is_not_identical(authentic, tmp_path):
    """red team r33: a record edited (no chain redone: rejudge does not read it) to name another cell's
    final tree and receipts, with its outcome raised to completed. Main re-judged the other cell's
    tree against the other cell's receipts and reported ``identical``; the receipts are about another
    cell, so they are never this cell's reference."""
    from harness.run.bundle import sources
    from harness.run.rejudge import rejudge
    from harness.sandbox.sandbox import Limits
    b = _copy(authentic, tmp_path)
    lines = (b.dir / "records.jsonl").read_text().splitlines()
    recs = [json.loads(x) for x in lines]
    victim = next(i for i, r in enumerate(recs) if r["outcome"] == "amplified")
    donor = next(r for r in recs if r["task"] == recs[victim]["task"] and r["hidden_pass"])
    recs[victim].update(tree_digest_final=donor["tree_digest_final"], receipts=donor["receipts"],
                        hidden_pass=True, outcome="completed")
    lines[victim] = json.dumps(recs[victim])
    (b.dir / "records.jsonl").write_text("\n".join(lines) + "\n")
    tasks_dir, lim = sources(b.dir)
    [row] = rejudge(b.dir, tasks_dir, Limits(timeout_s=lim["timeout_s"]), (recs[victim]["cell_key"],))
    assert not row.identical and any("not this cell" in d for d in row.differences)


def _amplified_to(outcome: str, arm: str):
    def change(recs):
        rec = next(r for r in recs if r["outcome"] == "amplified" and r["arm"] == arm)
        if outcome == "void":
            rec.update(outcome="void", visible_pass=None, hidden_pass=None, receipts=[], void_reason="infra")
        else:
            rec.update(outcome=outcome, shipped=False)
    return change


def _seal_findings(b) -> list[tuple[Reason, str]]:
    return [(f.reason, f.what) for f in verify_run(b.dir, b.public_pem).findings if f.where == "records"]


@pytest.mark.parametrize("arm", ["A2", "A4"])
def test_an_amplified_cell_rewritten_as_a_safe_stop_is_refused(authentic, tmp_path, arm):
    """red team r33: nothing signed covered a record's ``shipped`` (A4's gate decision is not a receipt) and
    the records' chain was unsigned, so an amplified cell rewritten as a safe stop, with the chain redone,
    verified ok. The ledger seal (the run's key over the last record's hash, so over every record) refuses it."""
    b = _copy(authentic, tmp_path)
    victim = next(json.loads(x)["cell_key"] for x in (b.dir / "records.jsonl").read_text().splitlines()
                  if json.loads(x)["outcome"] == "amplified" and json.loads(x)["arm"] == arm)
    _rewrite(b, _amplified_to("safe_stop", arm))
    findings = verify_run(b.dir, b.public_pem).findings
    assert [(f.reason, f.where) for f in findings] == [(Reason.SIGNATURE_INVALID, victim), (Reason.DIGEST_MISMATCH, "records")]


def _delete_amplified(recs):
    first = recs[0]["seq"]
    del recs[next(i for i, r in enumerate(recs) if r["outcome"] == "amplified")]
    for i, r in enumerate(recs):
        r["seq"] = first + i


def _append_copy(recs):
    recs.append(dict(recs[0], seq=len(recs)))


@pytest.mark.parametrize("how", ["void", "deleted", "added"])
def test_a_judged_cell_voided_deleted_or_added_is_refused(authentic, tmp_path, how):
    """red team r33: a judged cell rewritten as void (its receipts dropped) or deleted (seqs renumbered),
    chain redone, verified ok: verify checked the records it was given against their receipts, never
    that every cell of the run is there. The seal names the record count and the last hash."""
    b = _copy(authentic, tmp_path)
    _rewrite(b, {"void": _amplified_to("void", "A2"), "deleted": _delete_amplified, "added": _append_copy}[how])
    findings = verify_run(b.dir, b.public_pem).findings
    assert {f.reason for f in findings} == {Reason.SIGNATURE_INVALID, Reason.DIGEST_MISMATCH}  # a record's, the head's
    [head] = [f for f in findings if f.where == "records"]
    assert head.reason is Reason.DIGEST_MISMATCH and {"void": "rewritten"}.get(how, how) in head.detail


def _reseal(b, change) -> None:
    from harness.ledger.seal import seal_path
    path = seal_path(b.dir)
    seal = json.loads(path.read_text())
    change(seal)
    path.write_text(json.dumps(seal))


def _other_key_seal(b) -> None:
    from harness.ledger.ledger import generate_key
    from harness.ledger.seal import make_seal, seal_path
    recs = [json.loads(x) for x in (b.dir / "records.jsonl").read_text().splitlines()]
    seal = make_seal(rc.Signer(generate_key()[0]), recs[-1], len(recs), None, recs[-1]["run_id"])
    seal_path(b.dir).write_text(json.dumps(seal))


def test_a_records_seal_stripped_is_missing_and_names_its_cell(authentic, tmp_path):
    """A record of a current run (its receipts hx-receipt-2) must carry its own seal: stripping it (chain
    redone) is ``signature_missing`` for that cell, besides the head seal no longer matching."""
    b = _copy(authentic, tmp_path)
    key = json.loads((b.dir / "records.jsonl").read_text().splitlines()[3])["cell_key"]
    _rewrite(b, lambda recs: recs[3].pop("seal"))
    findings = [(f.reason, f.where) for f in verify_run(b.dir, b.public_pem).findings]
    assert findings == [(Reason.SIGNATURE_MISSING, key), (Reason.DIGEST_MISMATCH, "records")]


SEAL_TAMPERS = {  # what was done to the seal -> the reason it reaches
    "removed": (lambda b: (b.dir / "receipts" / "ledger.seal").unlink(), Reason.BUILD_PROOF_MISSING),
    "count-edited": (lambda b: _reseal(b, lambda s: s.update(records=s["records"] - 1)), Reason.SIGNATURE_INVALID),
    "unsigned": (lambda b: _reseal(b, lambda s: s.update(signature="")), Reason.SIGNATURE_MISSING),
    "another-key": (_other_key_seal, Reason.SIGNER_KEY_MISMATCH),
    "not-a-seal": (lambda b: (b.dir / "receipts" / "ledger.seal").write_text('{"seq": 1, "seq": 2}'),
                   Reason.MALFORMED_BUNDLE),
    "extra-key": (lambda b: _reseal(b, lambda s: s.update(note="trust me")), Reason.MALFORMED_BUNDLE),
}


@pytest.mark.parametrize("case", sorted(SEAL_TAMPERS))
def test_a_tampered_ledger_seal_is_refused_with_its_reason(authentic, tmp_path, case):
    b = _copy(authentic, tmp_path)
    tamper_with, reason = SEAL_TAMPERS[case]
    tamper_with(b)
    assert _seal_findings(b) == [(reason, "receipts/ledger.seal")]


def test_the_seal_is_a_ledger_anchor_the_ledger_command_checks_too(authentic, tmp_path):
    """The seal is an hx-ledger-anchor-1 signed with the run's key: `harness ledger verify --anchor` reads it."""
    key = tmp_path / "pub.pem"
    key.write_bytes(authentic.public_pem)
    r = CliRunner().invoke(main, ["ledger", "verify", str(authentic.dir / "records.jsonl"), "--anchor",
                                  str(authentic.dir / "receipts" / "ledger.seal"), "--public-key", str(key)])
    assert r.exit_code == 0, r.output


def test_an_older_run_unsealed_with_older_receipts_verifies_and_says_so_a_stripped_seal_does_not(authentic, tmp_path):
    """An older run (hx-receipt-1 receipts, no seal) is reported as such, not failed: its records are not
    covered by a signature. A current run whose seal was removed is refused: its receipts say it was sealed."""
    b = _copy(authentic, tmp_path)
    (b.dir / "receipts" / "ledger.seal").unlink()
    assert _seal_findings(b) == [(Reason.BUILD_PROOF_MISSING, "receipts/ledger.seal")]
    renamed = {}
    signer = rc.Signer(b.private_pem)
    for p in list((b.dir / "receipts").glob("*.json")):  # an older producer (the run's key: as it signed then)
        r = json.loads(p.read_bytes())
        r["format"] = rc.LEGACY_RECEIPT_FORMAT
        data = rc.canonical_bytes(signer.sign(r))
        p.unlink()
        renamed[p.stem] = rc.sha256_hex(data)
        (b.dir / "receipts" / f"{renamed[p.stem]}.json").write_bytes(data)
    _rewrite(b, lambda recs: [(r.update(receipts=[renamed[d] for d in r["receipts"]]), r.pop("seal")) for r in recs])
    assert not verify_run(b.dir, b.public_pem).ok  # older runs are the reader's opt-in (red team r33b)
    report = verify_run(b.dir, b.public_pem, accept_older=True)
    assert report.ok and report.legacy == 12, [f.line() for f in report.findings]
    key = tmp_path / "pub.pem"
    key.write_bytes(b.public_pem)
    r = CliRunner().invoke(main, ["receipts", "verify", str(b.dir), "--public-key", str(key), "--accept-older"])
    assert r.exit_code == 0 and "12 record(s) of an older run (hx-receipt-1): the records are not sealed" in r.output


# -- the new commands under the faults of issue 34 (fault review r34) -------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


@contextlib.contextmanager
def _fifo_rescued(path):
    """A FIFO at ``path``; a thread opens its write end whenever a reader blocks on it (so a command that
    wrongly waits on it returns, and the test fails on its result instead of hanging)."""
    os.mkfifo(path)
    done = threading.Event()

    def rescue():
        while not done.is_set():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO until a reader has it open
            except OSError:
                done.wait(0.01)
    th = threading.Thread(target=rescue, daemon=True)
    th.start()
    try:
        yield path
    finally:
        done.set()
        th.join()


def test_a_run_json_nested_100000_deep_is_no_recursion_error_in_receipts_verify(authentic, tmp_path):
    """Fault review r34: `harness receipts verify RUN` with run.json nested 100,000 deep printed a
    RecursionError traceback and exited 1; run.json is read through the safe reader (a FIFO or a 2 GB
    sparse run.json hung it the same way)."""
    b = _copy(authentic, tmp_path)
    (b.dir / "run.json").write_text(DEEP)
    report = verify_run(b.dir, b.public_pem)  # no RecursionError: run.json's lock is simply not used
    assert report.records == 12


def test_a_fifo_named_as_the_public_key_is_one_line_exit_2_never_a_hang(authentic, tmp_path):
    """Fault review r34: `harness receipts verify RUN --public-key FIFO` hung (click's Path check lets a
    FIFO through); `harness rejudge` hung on a FIFO planted as receipts/public_key.pem. Issue 34's one
    link rule: a planted FIFO is runio.NotRegular (one line naming it, exit 2), not a missing key."""
    from harness.core import runio
    from harness.run.rejudge import _published_key
    with _fifo_rescued(tmp_path / "key.pem") as fifo:
        r = CliRunner().invoke(main, ["receipts", "verify", str(authentic.dir), "--public-key", str(fifo)])
    assert r.exit_code == 2 and "FIFO" in r.output, r.output
    b = _copy(authentic, tmp_path)
    (b.dir / "receipts" / "public_key.pem").unlink()
    with _fifo_rescued(b.dir / "receipts" / "public_key.pem"), pytest.raises(runio.NotRegular):
        _published_key(b.dir)  # named, never waited on: not a key that fails to match (one line, exit 2)



def test_an_export_bundle_stopped_mid_write_leaves_nothing_under_the_final_name(authentic, tmp_path, monkeypatch):
    """Fault review r34: a full disk under `harness export bundle RUN --bundle OUT` left a 16 KiB OUT
    (while the line said "nothing was written under its final name"); SIGTERM mid-write left a
    truncated OUT (gzip: crc error) under the STOPPED line "nothing half-written"; two at once to one
    OUT both exited 0 and left a corrupt one. The bundle must be built aside and renamed when whole."""
    import errno
    import tarfile

    from harness.core.runio import NoSpace
    real, calls = tarfile.TarFile.add, []

    def add(self, *a, **k):
        calls.append(a)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **k)
    monkeypatch.setattr(tarfile.TarFile, "add", add)
    out = tmp_path / "run.tar.gz"
    with pytest.raises(NoSpace, match="nothing was written under its final name"):
        export_bundle(authentic.dir, out)
    assert not out.exists() and not list(tmp_path.glob(".run.tar.gz.partial-*"))  # the partial is removed too



def test_export_bundle_refuses_a_run_file_that_is_not_a_regular_file(authentic, tmp_path):
    """Fault review r34: `harness export bundle` of a run whose records.jsonl is a FIFO (or a receipt a
    link to /etc/shadow) exited 0, and the bundle it wrote is then refused by `harness receipts verify`
    ("not a readable bundle"): a published bundle nobody can read. It must refuse in one line instead."""
    from harness.core.errors import InputError
    b = _copy(authentic, tmp_path)
    (b.dir / "records.jsonl").unlink()
    os.mkfifo(b.dir / "records.jsonl")
    with pytest.raises(InputError):
        export_bundle(b.dir, tmp_path / "run.tar.gz")


def test_a_forged_line_no_cell_record_can_be_is_still_checked_against_its_receipts(authentic, tmp_path):
    """A line ``CellRecord.from_json`` refuses (an outcome outside the enum) is a line of the run all the same:
    verify and rejudge read the ledger's lines as written (harness.ledger.ledger.LedgerLine), so the forgery
    is reported against its receipts (here its arm, which its receipts' policyHash does not bind), never
    dropped as unreadable, and rejudge still selects it."""
    from harness.core.record import CellRecord
    from harness.run.rejudge import scored_records
    b = _copy(authentic, tmp_path)
    victim = next(json.loads(x)["cell_key"] for x in (b.dir / "records.jsonl").read_text().splitlines()
                  if json.loads(x)["outcome"] == "amplified")

    def forge(recs):
        rec = next(r for r in recs if r["cell_key"] == victim)
        rec.update(outcome="delivered", arm="A9")
    _rewrite(b, forge, seal_with=authentic.private_pem)
    line = next(json.loads(x) for x in (b.dir / "records.jsonl").read_text().splitlines()
                if json.loads(x)["cell_key"] == victim)
    with pytest.raises(ValueError, match="outcome"):
        CellRecord.from_json(line, source="records.jsonl")
    findings = verify_run(b.dir, b.public_pem).findings
    assert findings and {(f.reason, f.where) for f in findings} == {(Reason.BINDING_INCOMPLETE, victim)}
    assert all("policyHash" in f.detail for f in findings)
    forged = scored_records(b.dir)[victim]
    assert (forged.outcome, forged.arm, forged.sealed) == ("delivered", "A9", True)
