"""``harness receipts verify``: every receipt of a run (or an exported bundle) checked offline against
a public key the reader trusts, the records and the stored trees. One reason code per failure
(harness.ledger.receipts.Reason: ``ok`` and the paper's ten non-ok codes, Table 5).

Per record (every line of ``records.jsonl``; its hash chain first: a broken chain is
``digest_mismatch``, and so are a last line without its newline and a head one record behind, since a
published run is not mid-write; a field of another type than the harness writes is
``malformed_bundle``: ``read_records``, the one reader ``harness rejudge`` shares):

- each receipt the record names: present (else ``build_proof_missing``); its own checks
  (``check_receipt``: structure, binding, signature, signer, output digest); about this run and cell
  (else ``stale``); bound to this cell's start tree, policy (protocol digest and arm), task files
  (the lock in run.json) and the run's one command set per task (else ``binding_incomplete``); its
  file exactly the canonical bytes its name is the digest of (else ``digest_mismatch``);
- a judged record (visible_pass not null) has a final visible and a final hidden receipt, and the
  plain pytest receipts (``visible_plain``, ``hidden_plain``) when the record names plain pytest's
  verdicts (else ``build_proof_missing``; an older record without them is counted as judge-only,
  not failed), all bound to the record's final tree (else ``stale``); the stored tree under that
  digest rebuilds to it (else ``stale``; missing: ``build_proof_missing``); a run mixing records
  with and without plain receipts had some stripped (``build_proof_missing``); and the record's
  verdicts are its receipts' (``visible_pass`` = judge AND plain: a claimed pass needs every run of
  the test at exit 0 and decision pass, ``receipt_not_passing``, ``decision_not_pass``; a claimed
  failure whose runs all passed is ``decision_not_pass``);
- an A4 record that shipped has a passing gate receipt bound to its final tree (Eq. 2 at the
  moment of shipping; else ``build_proof_missing``), and its stored final tree's reading read every
  entry (else ``stale``: an entry past the tree's limits leaves the digest no proof that the shipped
  tree is the checked one; A4's gate refuses such a tree since red team r33b, a run made before
  shipped on it).

Then the records against their seals (harness.ledger.seal, the run's key): each record's own seal
(every field of the record; a record that names current receipts must carry one, else
``signature_missing``; a field changed after it was written is ``signature_invalid``, naming the
cell), then the head seal (the last record's hash and the record count, so every record, their
order and their number): unsigned (``signature_missing``), another key (``signer_key_mismatch``),
edited (``signature_invalid``), not a seal (``malformed_bundle``), or the seal of other records
(``digest_mismatch``: a record rewritten with the chain redone, a cell deleted or added). A run whose receipts are ``hx-receipt-2`` must have
its seal (else ``build_proof_missing``), and so must a run with no receipt at all. An older run
(receipts ``hx-receipt-1``, no seal) is counted in ``Report.legacy``: its records are not covered by
a signature and its tree digests are the older (path, text) encoding (docs/receipts.md).

Local-key scope: this proves tamper evidence and freshness under the run's key, not an
independent multi-host quorum, and not execution truth against a compromised runner.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from harness.core import runio
from harness.core.record import eq7_violation
from harness.core.treereading import TreeReading
from harness.judge import evidence
from harness.ledger import ledger as ledger_mod
from harness.ledger import receipts as rc
from harness.ledger.ledger import LedgerLine
from harness.ledger.receipts import Reason
from harness.ledger.seal import SEAL_NAME, check_seal, read_seal, record_seal_problem, seal_mismatch
from harness.sandbox.treestore import load_tree

GATED_CONTROLLERS = ("A4",)
PLAIN_OF = dict(zip(rc.JUDGED_KINDS, rc.PLAIN_KINDS))  # visible -> visible_plain, hidden -> hidden_plain
TEST_OF = {**{k: k for k in rc.JUDGED_KINDS}, **{p: k for k, p in PLAIN_OF.items()}}


@dataclass(frozen=True)
class Finding:
    reason: Reason
    where: str  # the cell key (or "records", "public key")
    what: str  # the receipt (stage/kind digest) or the file
    detail: str

    def line(self) -> str:
        return f"{self.reason.value:<20} {self.where}  {self.what}  {self.detail}".rstrip()


@dataclass
class Report:
    findings: list[Finding]
    receipts: int
    records: int
    judge_only: int = 0  # judged records whose verdicts predate plain-run receipts: judge receipts only
    legacy: int = 0  # records of an older run (hx-receipt-1, no ledger seal): not sealed, older tree digests

    @property
    def ok(self) -> bool:
        return not self.findings and self.records > 0


RUN_JSON_BYTES = 16 << 20  # run.json is a few KiB; the bound only keeps a planted huge file unread


def trusted_key(pem: bytes) -> bytes | None:
    try:
        return rc.public_raw_of_pem(pem)
    except (ValueError, TypeError):
        return None


def _lock_files(run_dir: Path) -> dict | None:
    """run.json's lock, or None. A run.json that is not a regular file (a FIFO planted in a bundle
    would block the read for ever, a link is not followed) counts as unreadable."""
    try:
        meta = runio.read_json(run_dir / "run.json", "run file", limit=RUN_JSON_BYTES)  # a FIFO, deep or huge run.json
        return meta["lock"]  # is refused in one step (fault review r34), never waited on or recursed into
    except (OSError, runio.UnsafeFile, KeyError, TypeError):
        return None


@dataclass
class _Run:
    dir: Path
    trusted: bytes | None
    lock: dict | None
    command_sets: dict  # task -> the first commandSetHash seen
    findings: list
    seen: int = 0
    judge_only: list = field(default_factory=list)  # cells judged before plain receipts (no *_plain_pass, none)
    with_plain: int = 0  # judged records with plain receipts
    formats: set = field(default_factory=set)  # the formats of the receipts that passed their own checks
    current: set = field(default_factory=set)  # the digests of those of the current format (hx-receipt-2)


def _load(run: _Run, digest: str, where: str) -> tuple[rc.Receipt | None, Finding | None]:
    """A named receipt parsed and checked on its own (None and the finding when it fails)."""
    path = run.dir / "receipts" / f"{digest}.json"
    try:
        present = isinstance(digest, str) and bool(rc.HEX64.fullmatch(digest)) and runio.regular_or_absent(path, "receipt")
    except runio.UnsafeFile as exc:  # a FIFO or a link named as the receipt: what it is, not "not in the run"
        return None, Finding(Reason.MALFORMED_BUNDLE, where, str(digest)[:16], exc.message)
    if not present:
        return None, Finding(Reason.BUILD_PROOF_MISSING, where, str(digest)[:16], "the named receipt is not in the run")
    run.seen += 1
    try:  # bounded: a 2 GB sparse file named as a receipt is refused unread (fault review r34)
        raw = runio.read_bytes(path, "receipt", limit=rc.MAX_RECEIPT_BYTES)
    except runio.UnsafeFile as exc:
        return None, Finding(Reason.MALFORMED_BUNDLE, where, digest[:16], exc.message)
    try:
        obj = rc.strict_loads(raw)
    except rc.Malformed as exc:
        return None, Finding(Reason.MALFORMED_BUNDLE, where, digest[:16], str(exc))
    r, reason, why = rc.verified(obj, run.trusted)
    if r is None:
        return None, Finding(reason, where, rc.label(obj, digest), why)
    run.formats.add(r.format)
    if r.format == rc.RECEIPT_FORMAT:
        run.current.add(digest)
    return r, None


def _context_problem(run: _Run, rec: LedgerLine, r: rc.Receipt) -> tuple[Reason, str] | None:
    """The receipt against its record and the run: subject and binding."""
    s, b = r.subject, r.binding
    if (s.cell_key, s.run_id) != (rec.cell_key, rec.run_id):
        return Reason.STALE, f"a receipt of {s.cell_key} (run {s.run_id}), not of this record"
    if b.head_hash != rec.tree_digest_start:
        return Reason.BINDING_INCOMPLETE, "headHash is not the cell's start tree"
    if b.policy_hash != evidence.policy_hash(rec.typed("protocol_digest"), str(rec.arm)):
        return Reason.BINDING_INCOMPLETE, "policyHash is not this protocol and arm"
    if run.lock is not None:
        from harness.run.driver import story_files
        if b.story_files_hash != evidence.story_files_hash(str(rec.task), story_files(run.lock, str(rec.task))):
            return Reason.BINDING_INCOMPLETE, "storyFilesHash is not the task's locked files"
    first = run.command_sets.setdefault(str(rec.task), b.command_set_hash)
    if b.command_set_hash != first:
        return Reason.BINDING_INCOMPLETE, "commandSetHash differs from the run's command set for this task"
    return None


def _address_problem(raw_digest: str, digest: str, r: rc.Receipt) -> tuple[Reason, str] | None:
    """Last: a receipt whose content checks out but whose file is not the bytes its name commits to
    (re-encoded, re-ordered or padded after it was written), or not the receipt's canonical bytes (a
    re-spelled file renamed to its own hash and the record re-named to it: red team r33)."""
    if raw_digest != digest or rc.receipt_digest(r.raw) != digest:
        return Reason.DIGEST_MISMATCH, "the file is not the canonical bytes its name is the digest of"
    return None


def _claimed(rec: LedgerLine, kind: str, r: rc.Receipt) -> tuple[Reason, str] | None:
    """One final receipt's decision against the record. A test the record says passed needs every run
    of it passing, judged and plain (``visible_pass`` = judge AND plain pytest, harness.control.adjudicator);
    a plain run's receipt must also say what the record's ``*_plain_pass`` says. A record's failing
    verdict is checked against both runs of the test together (``_verdicts``)."""
    test = TEST_OF[kind]
    passed = r.outcome.decision == "pass"
    said = rec.plain_passed(test) if kind in rc.PLAIN_KINDS else None
    if said is not None and bool(said) != passed:
        if said:
            reason, why = rc.passing(r)
            return reason, f"the record says plain pytest passed the {test} test: {why}"
        return Reason.DECISION_NOT_PASS, f"the record says plain pytest failed the {test} test, the receipt says pass"
    if rec.passed(test):
        reason, why = rc.passing(r)
        return None if reason is Reason.OK else (reason, why)
    return None


def _verdicts(run: _Run, rec: LedgerLine, finals: dict[str, rc.Receipt], where: str) -> None:
    """The record's verdicts against its final receipts, both runs of each test together: a judged
    receipt for each test (else ``build_proof_missing``); a plain receipt too when the record names
    plain pytest's verdict (else ``build_proof_missing``; a record from before plain receipts, with
    no ``*_plain_pass``, is counted in ``Report.judge_only``, not failed, unless another record of the
    run has them: ``verify_run``); and a test the record
    says failed whose runs all passed (and, for the oracle, every hidden check) is ``decision_not_pass``."""
    checks_ok = all(c.get("ok") for c in rec.typed("hidden_checks") or [] if isinstance(c, dict))
    judge_only = False
    for test in rc.JUDGED_KINDS:
        if any(f.where == where for f in run.findings):
            return
        judged, plain = finals.get(test), finals.get(PLAIN_OF[test])
        if judged is None:
            run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, where, f"final/{test}", "no receipt for the verdict"))
            continue
        if plain is None and rec.plain_passed(test) is not None:
            run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, where, f"final/{PLAIN_OF[test]}",
                                        "the record names plain pytest's verdict, no receipt for it"))
            continue
        judge_only = judge_only or plain is None
        runs = [r for r in (judged, plain) if r is not None]
        if (rec.passed(test) is False and all(r.outcome.decision == "pass" for r in runs)
                and (test == "visible" or checks_ok)):
            run.findings.append(Finding(Reason.DECISION_NOT_PASS, where, f"final/{test}",
                                        f"the record says the {test} test failed, its receipts "
                                        f"({' and '.join(r.subject.kind for r in runs)}) say pass"))
    if judge_only:
        run.judge_only.append(where)
    else:
        run.with_plain += 1


def _final_tree(run: _Run, digest: str | None, where: str) -> TreeReading | None:
    """The stored final tree checked against the record's digest; its reading when it rebuilds to it."""
    if not isinstance(digest, str):
        run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, where, "tree", "the record names no final tree"))
        return None
    tree = load_tree(run.dir / "trees", digest)
    if tree.digest is None:
        run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, where, f"tree {digest[:12]}", "; ".join(tree.problems)))
    elif tree.digest != digest or tree.problems:
        run.findings.append(Finding(Reason.STALE, where, f"tree {digest[:12]}",
                                    f"the stored tree rebuilds to {tree.digest[:12]}... "
                                    f"{'; '.join(tree.problems)}".strip()))
    else:
        return tree.reading
    return None


def _check_record(run: _Run, rec: LedgerLine, keep_trees: bool) -> None:
    where = str(rec.cell_key)
    finals: dict[str, rc.Receipt] = {}
    gates: list[rc.Receipt] = []
    for digest in rec.typed("receipts") or []:
        r, bad = _load(run, digest, where)
        if r is None:
            run.findings.append(bad or Finding(Reason.MALFORMED_BUNDLE, where, str(digest)[:16], "unreadable"))
            continue
        raw = rc.sha256_hex((run.dir / "receipts" / f"{digest}.json").read_bytes())
        problem = _context_problem(run, rec, r) or _final_problem(rec, r) or _address_problem(raw, digest, r)
        if problem:
            run.findings.append(Finding(problem[0], where, r.label(digest), problem[1]))
            continue
        if r.subject.stage == "gate":
            gates.append(r)
        else:
            finals.setdefault(r.subject.kind, r)
    if rec.visible_pass is None:
        return
    why = eq7_violation(str(rec.outcome), rec.flags())
    if why:
        run.findings.append(Finding(Reason.DECISION_NOT_PASS, where, "outcome", f"the record's outcome is not its verdicts': {why}"))
    _verdicts(run, rec, finals, where)
    final = _final_tree(run, rec.tree_digest_final, where) if keep_trees else None
    if rec.controller in GATED_CONTROLLERS and rec.shipped:
        if final is not None and (unread := evidence.unread_problem(final.unread)) is not None:
            run.findings.append(Finding(unread[0], where, "gate/visible", f"shipped by A4: {unread[1]}"))
        fresh = [g for g in gates if g.binding.material_hash == rec.tree_digest_final
                 and rc.passing(g)[0] is Reason.OK]
        if not fresh:
            run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, where, "gate/visible",
                                        "shipped by A4 with no passing gate receipt for its final tree"))


def _final_problem(rec: LedgerLine, r: rc.Receipt) -> tuple[Reason, str] | None:
    if r.subject.stage != "final":
        return None
    if r.binding.material_hash != rec.tree_digest_final:
        return Reason.STALE, "bound to another tree than the record's final tree"
    return _claimed(rec, r.subject.kind, r)


def verify_run(run_dir: Path, public_key_pem: bytes, *, trees: bool = True, accept_older: bool = False) -> Report:
    """Check every receipt of the run at ``run_dir`` (see the module's docstring). ``trees``: the final
    trees must be in the run's tree store (a run made with ``--no-keep-trees`` is checked with
    ``trees=False``: its bindings are then checked against the records only, and the report says so).
    ``accept_older``: an older run (hx-receipt-1, no seal) is accepted with its weaker checks, reported;
    without it, it is refused (``build_proof_missing``): a current run cut back to its older records,
    receipts and seal deleted, reads exactly as one (red team r33b), so only the reader can opt in."""
    run_dir = Path(run_dir)
    run = _Run(run_dir, trusted_key(public_key_pem), _lock_files(run_dir), {}, [])
    if run.trusted is None:
        run.findings.append(Finding(Reason.SIGNER_KEY_MISMATCH, "public key", "--public-key",
                                    "not an ed25519 public key (PEM)"))
    path = run_dir / "records.jsonl"
    if not runio.regular_or_absent(path, "records file"):  # a FIFO or a link there: NotRegular (exit 2), naming it
        return Report([Finding(Reason.MALFORMED_BUNDLE, "records", str(path), "no records.jsonl")], 0, 0)
    ins, findings = read_records(path)
    run.findings += findings
    lines = ins.lines  # each line as written, forged ones included (harness.ledger.ledger.LedgerLine)
    for rec in lines:
        _check_record(run, rec, trees)
    if run.with_plain:  # one harness made the run (one command set per task): plain receipts stripped
        run.findings += [Finding(Reason.BUILD_PROOF_MISSING, where, "final/*_plain",
                                 "no plain pytest receipts, while the run's other records have them")
                         for where in run.judge_only]
    legacy = _check_seal(run, lines)
    if legacy and not accept_older:
        run.findings.append(Finding(Reason.BUILD_PROOF_MISSING, "records", f"receipts/{SEAL_NAME}",
                                    "an older run (hx-receipt-1, no ledger seal): nothing signed covers its records "
                                    "or which cells there are; --accept-older checks it with those weaker checks"))
    return Report(run.findings, run.seen, len(ins.records), len(run.judge_only), len(ins.records) if legacy else 0)


def read_records(path: Path) -> tuple[ledger_mod.Inspection, list[Finding]]:
    """A published run's records file as every reader of its evidence reads it (``verify_run``, ``harness
    rejudge``): the ledger's lines as written (``ledger.inspect``) and what is wrong with them, each a
    finding: a problem of the chain or the head (``digest_mismatch``); a last line without its newline, or a
    head one record behind it (``digest_mismatch``): a crash state ``--resume`` repairs in a running study,
    but a published run is not mid-write, and a line appended without its newline is one no seal covers
    that a reader of complete lines may still read; a field of another type than the harness writes
    (``malformed_bundle``: the line was written by hand)."""
    ins = ledger_mod.inspect(path)
    where, what = "records", "records.jsonl"
    findings = [Finding(Reason.DIGEST_MISMATCH, where, what, problem) for problem in ins.problems]
    if ins.torn:
        findings.append(Finding(Reason.DIGEST_MISMATCH, where, what,
                                f"the last line has no newline ({len(ins.torn)} bytes after the last complete "
                                "line): a published run is not mid-write, and no seal covers that line"))
    if ins.head_behind:
        findings.append(Finding(Reason.DIGEST_MISMATCH, where, "records.head",
                                "records.head is one record behind the last line: a published run is not "
                                "mid-write, and the head does not name its last record"))
    for line in ins.lines:
        if problems := line.type_problems():
            findings.append(Finding(Reason.MALFORMED_BUNDLE, str(line.cell_key), f"record seq {line.seq}",
                                    "a field of another type than the harness writes (" + "; ".join(problems) + ")"))
    return ins, findings


def head_seal(run_dir: Path, trusted: bytes | None, records: list[LedgerLine], older: bool) -> tuple[Finding | None, bool]:
    """The run's head seal (receipts/ledger.seal) against the records: (the finding, or None when it is the
    trusted key's seal of exactly these records; whether the run is an older one, unsealed: no seal, no record
    sealed, and ``older``: the caller found only ``hx-receipt-1`` receipts). See the module's docstring."""
    where, what = "records", f"receipts/{SEAL_NAME}"
    try:
        seal = read_seal(run_dir)
    except rc.Malformed as exc:
        return Finding(Reason.MALFORMED_BUNDLE, where, what, str(exc)), False
    if seal is None:
        if records and older and not any(r.sealed for r in records):
            return None, True
        if records:
            return Finding(Reason.BUILD_PROOF_MISSING, where, what, "no ledger seal: nothing signed covers the "
                           "records' own fields or which cells there are"), False
        return None, False
    reason, why = check_seal(seal, trusted)
    if reason is Reason.OK:
        mismatch = seal_mismatch(seal, [r.raw for r in records])
        reason, why = (Reason.OK, "") if mismatch is None else (Reason.DIGEST_MISMATCH, mismatch)
    return (None if reason is Reason.OK else Finding(reason, where, what, why)), False


def _check_seal(run: _Run, records: list[LedgerLine]) -> bool:
    """The records against their own seals and the run's head seal (see the module's docstring). True
    for an older run (no seal, its receipts all ``hx-receipt-1``): not sealed, reported, not failed."""
    for rec in records:  # each record's own seal: names the cell whose fields changed
        names = rec.typed("receipts") or []
        if rec.sealed or any(isinstance(d, str) and d in run.current for d in names):
            problem = record_seal_problem(rec.raw, run.trusted)
            if problem is not None:
                run.findings.append(Finding(problem[0], str(rec.cell_key), f"record seq {rec.seq}", problem[1]))
    finding, legacy = head_seal(run.dir, run.trusted, records, run.formats == {rc.LEGACY_RECEIPT_FORMAT})
    if finding is not None:
        run.findings.append(finding)
    return legacy
