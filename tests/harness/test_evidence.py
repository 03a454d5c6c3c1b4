"""Eq. 2 of the Proof-or-Stop paper (harness.judge.evidence.admissible): each conjunct refuses with its
reason, and a receipt the notary issues for a passing run on the live tree is admitted."""
from __future__ import annotations

import pytest

from harness.judge import evidence
from harness.ledger import receipts as rc
from harness.ledger.ledger import generate_key
from harness.ledger.receipts import Reason

PASS = {"passed": True, "tests": 2, "failures": 0, "errors": 0, "skipped": 0, "returncode": 0, "wall_s": 1.5,
        "timed_out": False, "subverted": False, "cached": True}
T1, T2 = "1" * 64, "2" * 64


@pytest.fixture
def notary(tmp_path):
    ctx = evidence.Context("run", "A4|t|null|1", "0" * 64, "3" * 64, evidence.policy_hash("p", "A4"), "4" * 64,
                           "tests/test_visible.py")
    return evidence.Notary(rc.run_signer(tmp_path), tmp_path, ctx)


def admit(notary, receipt, live=T1, claim=("gate", "visible"), key=None):
    return evidence.admissible(receipt, claim=claim, live_digest=live, ctx=notary.ctx,
                               trusted_public_raw=key or notary.signer.public_raw)[0]


def test_a_passing_receipt_on_the_live_tree_is_admitted_and_its_file_is_its_digest(notary, tmp_path):
    r = notary.issue("gate", "visible", T1, PASS)
    assert admit(notary, r) is Reason.OK
    digest = notary.issued[0]
    assert rc.sha256_hex((tmp_path / "receipts" / f"{digest}.json").read_bytes()) == digest
    assert "wall_s" not in r["outcome"]["verdict"] and "cached" not in r["outcome"]["verdict"]  # deterministic output


def test_fresh_a_receipt_for_an_earlier_tree_is_stale(notary):
    assert admit(notary, notary.issue("gate", "visible", T1, PASS), live=T2) is Reason.STALE


def test_supports_a_receipt_about_another_claim_or_cell_is_stale(notary):
    assert admit(notary, notary.issue("final", "hidden", T1, PASS)) is Reason.STALE
    other = evidence.Notary(notary.signer, notary.run_dir, evidence.Context(**{**vars(notary.ctx), "cell_key": "x"}))
    assert admit(notary, other.issue("gate", "visible", T1, PASS)) is Reason.STALE


def test_complete_a_receipt_under_another_policy_is_binding_incomplete(notary):
    other = evidence.Notary(notary.signer, notary.run_dir,
                            evidence.Context(**{**vars(notary.ctx), "policy_hash": evidence.policy_hash("p", "A2")}))
    assert admit(notary, other.issue("gate", "visible", T1, PASS)) is Reason.BINDING_INCOMPLETE


def test_producer_authorized_only_the_runs_judge_key(notary):
    r = notary.issue("gate", "visible", T1, PASS)
    assert admit(notary, r, key=rc.Signer(generate_key()[0]).public_raw) is Reason.SIGNER_KEY_MISMATCH
    agent = notary.signer.sign({**r, "producer": {**r["producer"], "actor": "agent"}})
    assert admit(notary, agent) is Reason.SIGNER_KEY_MISMATCH


def test_outcome_accepted_a_failing_run_is_not_admitted(notary):
    failed = {**PASS, "passed": False, "failures": 1, "returncode": 1}
    assert admit(notary, notary.issue("gate", "visible", T1, failed)) is Reason.RECEIPT_NOT_PASSING


def test_integrity_an_edited_receipt_is_not_admitted(notary):
    r = notary.issue("gate", "visible", T1, {**PASS, "passed": False, "returncode": 0})
    r["outcome"]["decision"] = "pass"
    r["outcome"]["verdict"]["passed"] = True
    assert admit(notary, r) is Reason.SIGNATURE_INVALID
