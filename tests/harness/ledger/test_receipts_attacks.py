"""Red team r33b: the receipts of issue 33 attacked by someone who controls a published run (or the agent's
tree) but not the run's private key. Each test is an attack that worked on main and the rule that now
refuses it, or (one strict xfail) an attack still open, or (modes) an attack the design refuses
(docs/receipts.md).

- A4's gate admitted stale evidence through what the tree digest does not read: the judge leaves
  bytecode out of its limits and its copy (``__pycache__``, ``*.pyc``), the tree's reading does not, so
  bytecode the judge never sees pushed the tree's reading past its total-size or entry limit. Past a
  limit the reading records an entry without its content (``over``: a size, or nothing past the entry
  count), so a source file edited after the passing check kept the tree's digest, and Fresh held.
  Verify re-checks it for a shipped A4 cell from the stored tree.
- A record line with a key twice verified (the last value is the sealed one, the file shows both); a
  NaN, an infinite float or a lone surrogate in a record ended verify in a traceback.
- rejudge replayed whatever tests a bundle's ``tasks/`` held, and trusted the key the bundle publishes.
- Open: an older run resumed by this harness, cut back to its older records, reads as an older run.
- Review r36 of the lenient line view: a forged record appended without its newline passed verify while
  analysis read it; a void line appended over a judged cell hid it from rejudge (which now reads the
  records with verify's reader, the head seal included); a forged hidden_checks, protocol_digest or
  receipts of another type ended verify or rejudge in a traceback.

Formerly ``tests/harness/test_redteam_r33b.py``, named after its origin.
"""
from __future__ import annotations

import os

import pytest

from harness.control.arms import run_arm
from harness.core import safefs
from harness.core.events import EventType
from harness.core.protocol import Arm
from harness.core.treereading import Kind
from support.scripted import SHIP, ScriptedReviewer, ScriptedWorker, candidate


def _with_notary(ctx, tmp_path, task):
    """The cell issues receipts, as a run's cells do: A4's gate decides by Eq. 2 over them."""
    from harness.judge import evidence
    from harness.ledger.receipts import run_signer
    c = evidence.Context(run_id="r1", cell_key="A4|parse-range|null|1", head_hash=ctx.ws.digest(),
                         story_files_hash=evidence.story_files_hash(task.id, {}),
                         policy_hash=evidence.policy_hash("p", "A4"),
                         command_set_hash=evidence.command_set_hash(task.acceptance_dest),
                         acceptance_dest=task.acceptance_dest)
    ctx.notary = evidence.Notary(run_signer(tmp_path / "run"), tmp_path / "run", c, ctx.log)
    return ctx


BROKEN = "def parse_range(text):\n    return []\n"


def _pad_total_size(root) -> None:
    """Bytecode (never copied or counted by the judge) that fills the reading's total-size budget first:
    four sparse files of the largest size a file may have, named to sort before every other entry."""
    lim = safefs.DEFAULT_LIMITS
    for i in range(lim.max_total_bytes // lim.max_file_bytes):
        with open(root / f"!pad{i}.pyc", "wb") as fh:
            fh.truncate(lim.max_file_bytes)


def _pad_entries(root) -> None:
    """A ``__pycache__`` (never copied or counted by the judge) past the reading's entry limit: it is
    walked before the package, so the walk stops inside it."""
    cache = root / "__pycache__"
    cache.mkdir()
    for i in range(safefs.DEFAULT_LIMITS.max_entries):
        os.close(os.open(cache / f"m{i:05}.pyc", os.O_CREAT | os.O_WRONLY, 0o644))


class _EditsUnreadSource:
    """The reviewer engine, and beside it what the agent left behind: a process that, while the first
    review runs (after the harness's passing check), breaks the implementation in a file the padded
    reading does not read: past the total size its content (same size kept), past the entry count a
    file the start tree did not have."""

    name = "scripted-reviewer"

    def __init__(self, ws, rel: str):
        self.ws, self.rel, self.inner, self.calls = ws, rel, ScriptedReviewer([SHIP]), 0

    def complete(self, req):
        self.calls += 1
        if self.calls == 1:
            path = self.ws.root / self.rel
            size = path.stat().st_size
            path.write_text(BROKEN + "#" * (size - len(BROKEN) - 1) + "\n")
            assert path.stat().st_size == size
        return self.inner.complete(req)


CASES = {  # how the reading is pushed past a limit -> (the padding, the file the agent edits afterwards)
    "total-size": (_pad_total_size, "rangeparse/core.py"),
    "entry-count": (_pad_entries, "rangeparse/_impl.py"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a4_refuses_a_check_of_a_tree_whose_reading_left_entries_unread(task, make_ctx, tmp_path, case):
    """Eq. 2's Fresh is "the live tree is the tree the check ran on", shown by equal digests. That holds
    only when the digest's reading read every entry: an entry past the tree's limits (kind ``over``) is
    in the digest without its content, so the tree can change under an unchanged digest. The gate
    refuses such a tree as ``stale`` (its freshness cannot be shown) and the cell goes on or stops as
    A4's policy says; here the broken tree is not shipped."""
    pad, rel = CASES[case]
    files = candidate(task, "reference")
    files["rangeparse/_impl.py"] = files["rangeparse/core.py"]
    files["rangeparse/core.py"] = "from rangeparse._impl import *  # noqa\n"
    ctx = make_ctx(task, ScriptedWorker([files]), None)
    pad(ctx.ws.root)
    ctx.reviewer = _EditsUnreadSource(ctx.ws, rel)
    _with_notary(ctx, tmp_path, task)
    res = run_arm(ctx, Arm("A4", "A4", {"attempts": 1}))
    assert ctx.log.of_type(EventType.GATE_VISIBLE)[0].passed  # the judge ran the padded tree, and it passed
    assert any(e.kind is Kind.OVER for e in ctx.ws.reading().entries.values())
    refuse = ctx.log.of_type(EventType.GATE_REFUSE)
    assert [r.code for r in refuse] == ["stale"] and "not read" in refuse[0].detail
    assert not res.shipped and not ctx.log.of_type(EventType.GATE_ADMIT)


# -- a published run's records.jsonl -------------------------------------------------------------------------
RUN = """
[protocol]
name = "redteam-r33b"
seed = 7
repeats = 1
tasks_dir = "{tasks}"
tasks = ["parse-range"]
scenarios = ["null", "B2"]
engine = "simulated"

[arms.A2]
controller = "A2"
[arms.A4]
controller = "A4"
"""


@pytest.fixture(scope="module")
def authentic(tmp_path_factory):
    """A real 4-cell run (A2, A4 x parse-range x null, B2; simulated engine: real test runs and receipts)."""
    from harness.run import tamper
    from support.scripted import TASKS
    return tamper.build_authentic(tmp_path_factory.mktemp("authentic"), TASKS, protocol=RUN)


def _copy(authentic, tmp_path):
    import shutil

    from harness.run import tamper
    dest = tmp_path / "copy"
    shutil.copytree(authentic.dir, dest, ignore=shutil.ignore_patterns("keys"))
    return tamper.Bundle(dest, authentic.public_pem, authentic.private_pem)


def _edit_amplified_line(b, change) -> str:
    """Change the raw line of an amplified record (no chain or seal redone: the attacker has no key);
    returns its cell key."""
    import json
    path = b.dir / "records.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    i = next(i for i, x in enumerate(lines) if json.loads(x)["outcome"] == "amplified")
    lines[i] = change(lines[i])
    path.write_text("".join(lines))
    return json.loads(lines[i].replace("NaN", "null").replace("1e400", "null"))["cell_key"]


def test_a_record_with_a_duplicated_key_is_refused_not_read_as_its_last_value(authentic, tmp_path):
    """red team r33b: an amplified record's line given a second ``"outcome":"completed"`` before its own
    verified ok (Python keeps the last value, which the hash and the seal cover), while the file shows a
    completed cell to any reader that keeps the first (or to a person or a grep). The ledger writes one
    value per key; a line with two is edited, and verify says so."""
    from harness.ledger.ledger import inspect
    from harness.ledger.receipts import Reason
    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    _edit_amplified_line(b, lambda line: '{"outcome":"completed",' + line[1:])
    assert any("duplicate key 'outcome'" in p for p in inspect(b.dir / "records.jsonl").problems)
    report = verify_run(b.dir, b.public_pem)
    assert not report.ok and Reason.DIGEST_MISMATCH in {f.reason for f in report.findings}


@pytest.mark.parametrize("value", ["NaN", "1e400", '"\\ud800"'])
def test_a_record_value_with_no_canonical_form_is_a_finding_not_a_crash(authentic, tmp_path, value):
    """red team r33b: a record's ``cost_usd`` rewritten as NaN, as 1e400 (an infinite float) or as a lone
    surrogate made ``harness receipts verify`` (and ``harness ledger verify``) end in a traceback: the
    ledger hashes the canonical record, which has no such value. It is an edited line, named."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.ledger.receipts import Reason
    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    _edit_amplified_line(b, lambda line: line.replace('"cost_usd":null', f'"cost_usd":{value}'))
    report = verify_run(b.dir, b.public_pem)
    assert [(f.reason, f.where) for f in report.findings][:1] == [(Reason.DIGEST_MISMATCH, "records")]
    key = tmp_path / "pub.pem"
    key.write_bytes(b.public_pem)
    r = CliRunner().invoke(main, ["receipts", "verify", str(b.dir), "--public-key", str(key)])
    assert r.exit_code == 1 and r.exception is None or isinstance(r.exception, SystemExit), r.output
    assert "REJECTED" in r.output


# -- rejudge ---------------------------------------------------------------------------------------------------
def _bundle_dir(authentic, tmp_path):
    """The run exported as a bundle and unpacked, as a reader has it."""
    import tarfile

    from harness.run.bundle import TOP, export_bundle
    out = tmp_path / "run.tar.gz"
    export_bundle(authentic.dir, out)
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    return tmp_path / "x" / TOP


def test_rejudge_never_runs_a_task_file_other_than_the_one_the_receipts_are_bound_to(authentic, tmp_path):
    """red team r33b: rejudge ran whatever tests the bundle's tasks/ held. A bundle whose hidden oracle is
    replaced by as many trivially passing tests replayed a passing cell ``identical``, so a publisher could
    make any oracle verdict "reproduce" (the replay is what checks a runner that signed a pass the oracle
    never gave). A receipt's storyFilesHash binds the task's files (the lock's digests of them): a task
    directory that does not digest to it is named, and the cell is not identical."""
    import json

    from harness.run.bundle import sources
    from harness.run.rejudge import rejudge
    from harness.sandbox.sandbox import Limits
    root = _bundle_dir(authentic, tmp_path)
    rec = next(json.loads(x) for x in (root / "records.jsonl").read_text().splitlines()
               if json.loads(x)["hidden_pass"])
    hidden = next(r for r in (json.loads((root / "receipts" / f"{d}.json").read_bytes()) for d in rec["receipts"])
                  if r["subject"]["kind"] == "hidden" and r["subject"]["stage"] == "final")
    tasks_dir, lim = sources(root)
    limits = Limits(timeout_s=lim["timeout_s"])
    [row] = rejudge(root, tasks_dir, limits, (rec["cell_key"],))
    assert row.identical, row.differences  # the authentic bundle replays
    fake = "".join(f"def test_{i}():\n    pass\n\n\n" for i in range(hidden["outcome"]["verdict"]["tests"]))
    (tasks_dir / rec["task"] / "oracle" / "test_oracle.py").write_text(fake)
    [row] = rejudge(root, tasks_dir, limits, (rec["cell_key"],))
    assert not row.identical and any("oracle/test_oracle.py" in d for d in row.differences), row.differences


def _forge_with_own_key(root) -> str:
    """What a publisher without the run's key can do: make a new key, publish it as the run's, and re-sign
    an amplified cell's record to name a passing cell's final tree and receipts (the subjects rewritten to
    the amplified cell) with it, the records and the head seal too. Returns the amplified cell's key."""
    import base64
    import json

    from harness.ledger import receipts as rc
    from harness.ledger.ledger import canonical, generate_key, record_hash
    from harness.ledger.seal import make_seal, record_seal_body, seal_path
    priv, pub = generate_key()
    forger = rc.Signer(priv)
    (root / "receipts" / rc.PUBLIC_KEY_NAME).write_bytes(pub)
    path = root / "records.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    victim = next(r for r in recs if r["outcome"] == "amplified")
    donor = next(r for r in recs if r["task"] == victim["task"] and r["hidden_pass"])
    names = []
    for d in donor["receipts"]:
        r = json.loads((root / "receipts" / f"{d}.json").read_bytes())
        r["subject"]["cell_key"] = victim["cell_key"]
        r["producer"]["key_id"] = forger.key_id
        data = rc.canonical_bytes(forger.sign(r))
        names.append(rc.sha256_hex(data))
        (root / "receipts" / f"{names[-1]}.json").write_bytes(data)
    victim.update(tree_digest_final=donor["tree_digest_final"], receipts=names, hidden_pass=True,
                  outcome="completed", receipt_key_id=forger.key_id)
    prev = ""
    for r in recs:
        r["prev_hash"] = prev
        r["seal"] = base64.b64encode(forger.sign_bytes(record_seal_body(r))).decode()
        r["hash"] = prev = record_hash(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    (root / "records.head").write_text(f"{recs[-1]['seq']} {prev}\n")
    seal = make_seal(forger, recs[-1], len(recs), recs[-1]["protocol_digest"], recs[-1]["run_id"])
    seal_path(root).write_text(canonical(seal) + "\n")  # rejudge checks the head seal (review r36)
    return victim["cell_key"]


def test_rejudge_with_the_trusted_key_never_compares_with_a_forgers_receipts(authentic, tmp_path):
    """red team r33b: rejudge checked receipts against the bundle's own published key. A publisher who
    re-signed an amplified cell (its record naming a passing cell's tree, its receipts re-signed) with a
    key of their own, published in its place, had that cell replayed ``identical``. ``rejudge
    --public-key`` checks the receipts and the records' seals against the key the reader trusts; without
    it, the summary says whose key the receipts were checked against."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    root = _bundle_dir(authentic, tmp_path)
    victim = _forge_with_own_key(root)
    r = CliRunner().invoke(main, ["rejudge", str(root), victim])
    assert r.exit_code == 0 and "checked against the run's published key" in r.output, r.output
    key = tmp_path / "trusted.pem"
    key.write_bytes(authentic.public_pem)
    r = CliRunner().invoke(main, ["rejudge", str(root), victim, "--public-key", str(key)])
    assert r.exit_code == 1 and "signer_key_mismatch" in r.output and "0/1 cell(s) identical" in r.output, r.output


# -- what the digest leaves out ---------------------------------------------------------------------------------
MODE_TEST = '''
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_what_the_tree_modes_are():
    assert os.stat(ROOT / "pkg" / "mod.py").st_mode & 0o7777 == 0o644
    assert os.stat(ROOT / "pkg" / "run.sh").st_mode & 0o7777 == 0o644
    assert not os.access(ROOT / "pkg" / "run.sh", os.X_OK)
'''


@pytest.mark.parametrize("modes", [(0o644, 0o644), (0o600, 0o755), (0o444, 0o700)])
def test_a_mode_change_the_digest_leaves_out_is_never_seen_by_a_judged_run(tmp_path, modes):
    """Attack tried (red team r33b), and refused by design: the tree digest leaves permission bits out, so
    a file made executable or unreadable after a passing check keeps the digest. That is safe only if no
    judged run can see a mode: the judge's scratch copy gives every file one mode (harness.sandbox.open_up),
    so a test reading modes sees the same under every chmod, and its verdict cannot change with them."""
    from harness.core.tasks import read_entries
    from harness.core.treereading import tree_digest
    from harness.judge.testrun import run_pytest
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").write_text("X = 1\n")
    (tree / "pkg" / "run.sh").write_text("#!/bin/sh\necho hi\n")
    test = tmp_path / "test_modes.py"
    test.write_text(MODE_TEST)
    before = tree_digest(read_entries(tree))
    os.chmod(tree / "pkg" / "mod.py", modes[0])
    os.chmod(tree / "pkg" / "run.sh", modes[1])
    assert tree_digest(read_entries(tree)) == before  # the digest does not see modes
    for judged in (True, False):  # the judge's run and plain pytest's: one mode, whatever the tree's
        v = run_pytest(tree, test, dest_rel="tests/test_modes.py", judged=judged)
        assert v.passed and v.tests == 1, v.output


# -- downgrade -------------------------------------------------------------------------------------------------
def _resumed_older_run(b, older: int) -> None:
    """The run as the harness leaves an older run (hx-receipt-1 receipts, no seals) that it resumed: its
    first ``older`` records are the older harness's (their receipts re-signed as hx-receipt-1 with the run's
    key, as the older harness signed them; no seal), the rest this harness's (sealed), and the head seal
    over all of them (resuming seals an older run's ledger: harness.ledger.seal.Sealer.resume_problem)."""
    import json

    from harness.ledger import receipts as rc
    from harness.ledger.ledger import record_hash
    from harness.ledger.seal import make_seal, seal_path
    signer = rc.Signer(b.private_pem)
    path = b.dir / "records.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    for rec in recs[:older]:
        names = []
        for d in rec["receipts"]:
            p = b.dir / "receipts" / f"{d}.json"
            r = json.loads(p.read_bytes())
            r["format"] = rc.LEGACY_RECEIPT_FORMAT
            data = rc.canonical_bytes(signer.sign(r))
            p.unlink()
            names.append(rc.sha256_hex(data))
            (b.dir / "receipts" / f"{names[-1]}.json").write_bytes(data)
        rec["receipts"] = names
        rec.pop("seal")
    prev = ""
    for r in recs:
        r["prev_hash"] = prev
        r["hash"] = prev = record_hash(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    (b.dir / "records.head").write_text(f"{recs[-1]['seq']} {prev}\n")
    seal = make_seal(signer, recs[-1], len(recs), recs[-1].get("protocol_digest"), recs[-1].get("run_id"))
    seal_path(b.dir).write_text(json.dumps(seal))


def test_a_resumed_older_run_cut_back_to_its_older_records_is_not_accepted_as_an_older_run(authentic, tmp_path):
    """Downgrade: an older run resumed by this harness is sealed (its later records and the head seal),
    under the same key. Without the key, its records cut back to the older ones, the later receipts and the
    head seal deleted, it reads exactly as an older run: verify accepts it with the older-run note, and the
    cells judged after the resume are gone (and the older records can be rewritten: nothing signs them)."""
    import json

    from harness.ledger.seal import seal_path
    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    _resumed_older_run(b, older=2)
    report = verify_run(b.dir, b.public_pem)
    assert report.ok and report.legacy == 0, [f.line() for f in report.findings]  # the resumed run: sealed, ok
    lines = (b.dir / "records.jsonl").read_text().splitlines(keepends=True)
    for line in lines[2:]:
        for d in json.loads(line)["receipts"]:
            (b.dir / "receipts" / f"{d}.json").unlink()
    (b.dir / "records.jsonl").write_text("".join(lines[:2]))
    last = json.loads(lines[1])
    (b.dir / "records.head").write_text(f"{last['seq']} {last['hash']}\n")
    seal_path(b.dir).unlink()
    report = verify_run(b.dir, b.public_pem)
    assert not report.ok, f"accepted as an older run of {report.legacy} record(s)"  # older runs are opt-in


def _shipped_a4_on_an_unread_entry(b) -> str:
    """The run as a harness from before this fix would have signed it (the run's key: this is what it
    wrote, not a forgery): the shipped A4 cell's final tree has an entry past the tree's limits (its stored
    manifest gains one ``over`` entry; the final and gate receipts, the record and the seals follow its
    digest). Returns the cell key."""
    import base64
    import json

    from harness.ledger import receipts as rc
    from harness.ledger.ledger import record_hash
    from harness.ledger.seal import make_seal, record_seal_body, seal_path
    from harness.sandbox.treestore import load_tree
    signer = rc.Signer(b.private_pem)
    path = b.dir / "records.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    rec = next(r for r in recs if r["controller"] == "A4" and r["shipped"])
    old = rec["tree_digest_final"]
    body = json.loads((b.dir / "trees" / f"{old}.json").read_text())
    body["entries"]["!pad0.pyc"] = {"kind": "over", "text": "67108864 bytes, not read: past the tree's total size limit"}
    tmp = b.dir / "trees" / f"{'0' * 64}.json"
    tmp.write_text(json.dumps(body))
    new = load_tree(b.dir / "trees", "0" * 64).digest
    tmp.rename(b.dir / "trees" / f"{new}.json")
    names = []
    for d in rec["receipts"]:
        r = json.loads((b.dir / "receipts" / f"{d}.json").read_bytes())
        if r["binding"]["materialHash"] == old:
            r["binding"]["materialHash"] = new
            data = rc.canonical_bytes(signer.sign(r))
            d = rc.sha256_hex(data)
            (b.dir / "receipts" / f"{d}.json").write_bytes(data)
        names.append(d)
    rec.update(tree_digest_final=new, receipts=names)
    prev = ""
    for r in recs:
        r["prev_hash"] = prev
        r["seal"] = base64.b64encode(signer.sign_bytes(record_seal_body(r))).decode()
        r["hash"] = prev = record_hash(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    (b.dir / "records.head").write_text(f"{recs[-1]['seq']} {prev}\n")
    seal_path(b.dir).write_text(json.dumps(make_seal(signer, recs[-1], len(recs), recs[-1].get("protocol_digest"),
                                                     recs[-1].get("run_id"))))
    return rec["cell_key"]


def test_verify_refuses_an_a4_cell_shipped_on_a_tree_whose_reading_left_entries_unread(authentic, tmp_path):
    """Eq. 2 at the moment of shipping, re-checked offline: an A4 cell that shipped on a final tree with an
    entry past the tree's limits was admitted on a digest that does not pin the tree down (the gate before
    red team r33b). Verify names it ``stale`` from the stored tree, everything else about the run being
    authentic."""
    from harness.ledger.receipts import Reason
    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    key = _shipped_a4_on_an_unread_entry(b)
    findings = [(f.reason, f.where, f.what) for f in verify_run(b.dir, b.public_pem).findings]
    assert findings == [(Reason.STALE, key, "gate/visible")]


# -- forged lines that verify and rejudge must report (the lenient line view, harness.ledger.ledger.LedgerLine) --
def _forged_cell(b) -> dict:
    """A new cell that never ran: the amplified cell's record as a completed second repeat."""
    import json
    recs = [json.loads(x) for x in (b.dir / "records.jsonl").read_text().splitlines()]
    amp = next(r for r in recs if r["outcome"] == "amplified")
    key = amp["cell_key"].rsplit("|", 1)[0] + "|2"
    return {**amp, "cell_key": key, "repeat": 2, "outcome": "completed", "hidden_pass": True,
            "seq": len(recs), "prev_hash": recs[-1]["hash"]}


@pytest.mark.parametrize("ending", ["", "\r"], ids=["no-newline", "carriage-return"])
def test_a_forged_record_appended_without_its_newline_is_reported_by_verify(authentic, tmp_path, ending):
    import json

    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    with (b.dir / "records.jsonl").open("a") as fh:
        fh.write(json.dumps(_forged_cell(b)) + ending)
    report = verify_run(b.dir, b.public_pem)
    assert not report.ok, "verify passed a run whose records file holds a line no seal covers"


def test_rejudge_reports_an_unsealed_void_line_that_hides_a_judged_cell(authentic, tmp_path):
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.ledger.ledger import canonical, record_hash
    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    forged = _forged_cell(b)
    import json
    amp = next(json.loads(x) for x in (b.dir / "records.jsonl").read_text().splitlines()
               if json.loads(x)["outcome"] == "amplified")
    forged = {k: v for k, v in forged.items() if k not in ("seal", "hash")}
    forged.update(cell_key=amp["cell_key"], repeat=amp["repeat"], outcome="void", visible_pass=None,
                  hidden_pass=None, shipped=False, receipts=[], void_reason="worker lost")
    forged["hash"] = record_hash(forged)
    with (b.dir / "records.jsonl").open("a") as fh:
        fh.write(canonical(forged) + "\n")
    (b.dir / "records.head").write_text(f"{forged['seq']} {forged['hash']}\n")
    assert not verify_run(b.dir, b.public_pem).ok  # verify: the head seal names one record fewer
    key = tmp_path / "pub.pem"
    key.write_bytes(b.public_pem)
    r = CliRunner().invoke(main, ["rejudge", str(b.dir), "--sample", "1", "--public-key", str(key), "--strict"])
    assert r.exit_code != 0, r.output


@pytest.mark.parametrize("field, value", [("hidden_checks", 5), ("hidden_checks", True), ("protocol_digest", 1.5)])
def test_a_forged_field_of_another_type_is_a_finding_in_verify_not_a_traceback(authentic, tmp_path, field, value):
    import json

    from harness.run.receipts_verify import verify_run
    b = _copy(authentic, tmp_path)
    _edit_amplified_line(b, lambda line: json.dumps({**json.loads(line), field: value}) + "\n")
    try:
        report = verify_run(b.dir, b.public_pem)
    except Exception as exc:  # noqa: BLE001 - the attack is the traceback
        raise AssertionError(f"verify raised {type(exc).__name__}: {exc}") from None
    assert not report.ok


def test_a_forged_receipts_field_that_is_a_number_is_a_difference_in_rejudge_not_a_traceback(authentic, tmp_path):
    import json

    from click.testing import CliRunner

    from harness.cli.cli import main
    b = _copy(authentic, tmp_path)
    victim = _edit_amplified_line(b, lambda line: json.dumps({**json.loads(line), "receipts": 5}) + "\n")
    key = tmp_path / "pub.pem"
    key.write_bytes(b.public_pem)
    r = CliRunner().invoke(main, ["rejudge", str(b.dir), victim, "--public-key", str(key)])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code == 1 and "DIFFERENT" in r.output, r.output
