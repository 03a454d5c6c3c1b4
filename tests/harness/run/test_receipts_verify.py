"""An older run, made before the typed tree digest and the records' seals, read by this harness.

The fixture (tests/fixtures/older-run-hx-receipt-1.tar.gz and its public key) is a real one-cell A4
run made by the harness at commit dd6315b (``tamper.build_authentic``, simulated engine) and exported
with ``harness export bundle``: ``hx-receipt-1`` receipts, ``hx-tree-1`` manifests, tree digests in
the older (path, text) encoding, no seals. Verify reports it as an older run (not failed, not a crash)
and still checks what the older digest can: a byte flipped in its stored tree is ``stale``; rejudge
replays it and notes which digest its tree is named by (docs/receipts.md, "Older runs")."""
from __future__ import annotations

import tarfile

from click.testing import CliRunner

from harness.cli.cli import main
from harness.ledger.receipts import Reason
from harness.run.receipts_verify import verify_run
from support.scripted import REPO

BUNDLE = REPO / "tests" / "fixtures" / "older-run-hx-receipt-1.tar.gz"
KEY = REPO / "tests" / "fixtures" / "older-run-hx-receipt-1.pub.pem"


def test_an_older_run_is_refused_unless_the_reader_accepts_older_runs():
    """Red team r33b: a current run cut back to its older records reads exactly as an older run, so the
    weaker checks apply only when the reader asks for them."""
    r = CliRunner().invoke(main, ["receipts", "verify", str(BUNDLE), "--public-key", str(KEY)])
    assert r.exit_code == 1 and "build_proof_missing" in r.output and "--accept-older" in r.output, r.output


def test_an_older_run_verifies_with_accept_older_and_the_summary_says_it_is_older():
    r = CliRunner().invoke(main, ["receipts", "verify", str(BUNDLE), "--public-key", str(KEY), "--accept-older"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("ok: 5 receipt(s) over 1 record(s), 0 failure(s)")
    assert "1 record(s) of an older run (hx-receipt-1): the records are not sealed" in r.output


def test_an_older_run_rejudges_identically_and_notes_its_older_tree_digest():
    r = CliRunner().invoke(main, ["rejudge", str(BUNDLE)])
    assert r.exit_code == 0 and "1/1 cell(s) identical" in r.output, r.output
    assert "an older run's tree (hx-tree-1)" in r.output


def test_a_byte_flipped_in_an_older_runs_stored_tree_is_still_stale(tmp_path):
    with tarfile.open(BUNDLE) as tar:
        tar.extractall(tmp_path, filter="data")
    run = tmp_path / "bundle"
    blob = next(p for p in sorted((run / "trees" / "blobs").iterdir()) if b"def " in p.read_bytes())
    data = blob.read_bytes()
    blob.write_bytes(data.replace(b"def ", b"deg ", 1))
    report = verify_run(run, KEY.read_bytes(), accept_older=True)
    assert [f.reason for f in report.findings] == [Reason.STALE] and report.legacy == 1
