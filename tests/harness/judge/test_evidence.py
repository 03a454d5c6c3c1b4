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


def test_a_plain_pytest_run_has_its_own_receipt_kind_and_command_never_the_judges(notary):
    """The final adjudication's plain pytest runs (a test passes only when the judge and plain pytest both
    pass it) get receipts of their own kind, whose identity is plain pytest's argv, and the command set
    covers all four runs."""
    judged = notary.issue("final", "visible", T1, PASS)
    plain = notary.issue("final", "visible_plain", T1, {**PASS, "passed": False, "failures": 1, "returncode": 1})
    hidden_plain = notary.issue("final", "hidden_plain", T1, PASS)
    assert rc.check_receipt(plain, notary.signer.public_raw) == (Reason.OK, "")
    assert plain["identity"]["args"][:3] == ["-I", "-m", "pytest"] and "--junitxml=<res>/junit.xml" in plain["identity"]["args"]
    assert "-m" not in judged["identity"]["args"] and judged["identity"]["args"][1] == "<res>/_hx_driver.py"
    assert plain["identity"]["args"][-1] == "<work>/tests/test_visible.py"
    assert hidden_plain["identity"]["args"][-1] == f"<work>/{evidence.HIDDEN_DEST}"
    assert (plain["identity"]["exit"], plain["outcome"]["decision"]) == (1, "fail")
    assert rc.passing(plain)[0] is Reason.RECEIPT_NOT_PASSING
    cmds = evidence.command_set("tests/test_visible.py")
    assert set(cmds) == {*rc.KINDS, "judge"} and cmds["visible_plain"] == ["python", *plain["identity"]["args"]]


def test_a_plain_run_is_a_final_stage_kind_only(notary):
    with pytest.raises(ValueError):
        notary.issue("gate", "visible_plain", T1, PASS)
    r = notary.issue("final", "hidden_plain", T1, PASS)
    forged = notary.signer.sign({**r, "subject": {**r["subject"], "stage": "gate"}})
    assert rc.check_receipt(forged, notary.signer.public_raw)[0] is Reason.MALFORMED_BUNDLE
