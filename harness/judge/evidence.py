"""Evidence from the judge's runs: receipts issued for every judged test run, and Eq. 2 of the
Proof-or-Stop paper (``admissible``), the predicate A4's done gate evaluates over a receipt.

A ``Notary`` is held by the harness for one cell (never by the agent: its code runs in its own
confined processes and cannot reach the notary's key). ``issue`` writes one signed receipt
(harness.ledger.receipts) to ``run_dir/receipts/<digest>.json``, atomically, content-addressed,
and logs its digest in the cell's event log (type ``receipt``): the record names its receipts from
that log, so a cell rebuilt after a host kill (B5) keeps them.

What a receipt's parts are here (docs/receipts.md):

- materialHash: the tree digest of the judged tree (``tree_digest``, the record's ``tree_digest_*``);
- headHash: the digest of the tree the cell started from (the record's ``tree_digest_start``; the
  harness has no commits, the start tree is the state the work descends from);
- storyFilesHash: sha256 over the task's files as the protocol's lock digests them;
- policyHash: sha256 over the protocol digest (which covers every arm's parameters) and the arm;
- commandSetHash: sha256 over the commands of the task's visible and hidden runs, judged and plain,
  and the judge's code digest;
- identity: ``python`` + the run's arguments with the scratch paths as ``<work>`` and ``<res>``
  (the judge's driver for ``visible``/``hidden``, ``-m pytest`` with its JUnit report for
  ``visible_plain``/``hidden_plain``), cwd ``<work>``, the run's exit status, and outputDigest =
  sha256 of the canonical structured verdict (``structured_verdict``: counts, pass, exit,
  timeout, subversion; never stdout or wall time, which differ between two runs of one tree).
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core import statefile
from harness.core.events import ReceiptEvent
from harness.judge.testrun import judge_code_digest, pytest_argv
from harness.ledger import receipts as rc
from harness.ledger.receipts import Reason

HIDDEN_DEST = "tests/test_hidden_oracle.py"  # where the adjudicator places the oracle (harness.control.adjudicator)
VERDICT_KEYS = ("passed", "tests", "failures", "errors", "skipped", "returncode", "timed_out", "subverted")


def structured_verdict(summary: dict) -> dict:
    """The part of a verdict two runs of the same tree agree on (what outputDigest is over)."""
    return {k: summary.get(k) for k in VERDICT_KEYS}


def _h(obj) -> str:
    return rc.sha256_hex(rc.canonical_bytes(obj))


def _argv(dest_rel: str, *, plain: bool = False) -> list[str]:
    """A run's command with scratch paths as ``<work>``/``<res>``: the judge's driver, or (``plain``)
    plain ``python -I -m pytest`` with its JUnit report (harness.judge.testrun.pytest_argv)."""
    argv = pytest_argv(Path("<work>"), Path("<res>"), Path("<work>") / dest_rel, junit=plain)
    return ["python", *argv[1:]]


def kind_argv(kind: str, acceptance_dest: str) -> list[str]:
    """The command of a receipt ``kind`` (receipts.KINDS) for a task whose visible test is at
    ``acceptance_dest``."""
    dest = acceptance_dest if kind.startswith("visible") else HIDDEN_DEST
    return _argv(dest, plain=kind in rc.PLAIN_KINDS)


def command_set(acceptance_dest: str) -> dict:
    """The commands of a task's runs (visible and hidden, judged and plain) and the judge's code digest."""
    return {**{k: kind_argv(k, acceptance_dest) for k in rc.KINDS}, "judge": judge_code_digest()}


def command_set_hash(acceptance_dest: str) -> str:
    return _h(command_set(acceptance_dest))


def policy_hash(protocol_digest: str | None, arm: str) -> str:
    return _h({"protocol_digest": protocol_digest, "arm": arm})


def story_files_hash(task: str, files: dict) -> str:
    return _h({"task": task, "files": dict(sorted(files.items()))})


@dataclass
class Context:
    """What every receipt of one cell is bound to besides its tree."""
    run_id: str | None
    cell_key: str
    head_hash: str
    story_files_hash: str
    policy_hash: str
    command_set_hash: str
    acceptance_dest: str

    def binding(self, material_hash: str) -> dict:
        return {"materialHash": material_hash, "headHash": self.head_hash, "storyFilesHash": self.story_files_hash,
                "policyHash": self.policy_hash, "commandSetHash": self.command_set_hash}


@dataclass
class Notary:
    """Issues one cell's receipts under the run's key (see the module's docstring)."""
    signer: rc.Signer
    run_dir: Path
    ctx: Context
    log: Any = None  # the cell's EventLog: each receipt's digest is logged there
    version: str = "0"
    seq: int = 0
    issued: list = field(default_factory=list)

    def issue(self, stage: str, kind: str, material_hash: str, summary: dict) -> dict:
        """Sign and store a receipt for one run of ``kind`` (receipts.KINDS) on the tree ``material_hash``."""
        if kind not in rc.KINDS or (kind in rc.PLAIN_KINDS and stage != "final"):
            raise ValueError(f"no receipt kind {kind!r} at stage {stage!r}")
        verdict = structured_verdict(summary)
        args = kind_argv(kind, self.ctx.acceptance_dest)[1:]
        decision = "pass" if verdict["passed"] else "fail"
        body = {"format": rc.RECEIPT_FORMAT, "binding": self.ctx.binding(material_hash),
                "identity": {"cmd": "python", "args": args, "cwd": "<work>",
                             "exit": int(verdict["returncode"]), "outputDigest": rc.output_digest(verdict)},
                "subject": {"run_id": self.ctx.run_id, "cell_key": self.ctx.cell_key, "stage": stage, "kind": kind,
                            "seq": self.seq},
                "outcome": {"verdict": verdict, "decision": decision},
                "producer": {"harness": "proof-harness", "version": self.version, "key_id": self.signer.key_id,
                             "actor": rc.JUDGE_ACTOR},
                "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "signature": None}
        self.seq += 1
        receipt = self.signer.sign(body)
        digest = write_receipt(self.run_dir, receipt)
        self.issued.append(digest)
        if self.log is not None:
            self.log.emit(ReceiptEvent(digest=digest, stage=stage, kind=kind, tree_digest=material_hash,
                                       decision=decision))
        return receipt


def write_receipt(run_dir: Path, receipt: dict) -> str:
    data = rc.canonical_bytes(receipt)
    digest = rc.sha256_hex(data)
    path = Path(run_dir) / "receipts" / f"{digest}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        statefile.write_atomic(path, data)
    return digest


def unread_problem(unread: Sequence[str]) -> tuple[Reason, str] | None:
    """Fresh's precondition: the live tree's reading read every entry. An entry past the tree's limits
    (``TreeReading.unread``) is in the digest without its content, so an equal digest does not show
    the tree is the one the check ran on (red team r33b: bytecode, which the judge neither copies nor
    counts, pushed the reading past its total size, and a source file edited after the passing check
    kept the digest). ``stale`` naming them, or None."""
    if not unread:
        return None
    return Reason.STALE, (f"{len(unread)} entr(ies) of the live tree past its limits were not read "
                          f"({', '.join(unread[:3])}{', ...' if len(unread) > 3 else ''}): its digest cannot show "
                          "it is the tree the check ran on")


def admissible(receipt, *, claim: tuple[str, str], live_digest: str, ctx: Context,
               trusted_public_raw: bytes, live_unread: Sequence[str] = ()) -> tuple[Reason, str]:
    """Eq. 2, Admissible(E, c, H) = Fresh ∧ Complete ∧ IntegrityVerified ∧ ProducerAuthorized ∧
    ExecutionAttested ∧ Supports ∧ OutcomeAccepted, for the claim ``c`` = (stage, kind) "this test
    passes" at the live tree ``H``. Returns ``ok`` or the first conjunct's reason (closed enum).
    IntegrityVerified, ProducerAuthorized (the run's judge key, never the agent) and
    ExecutionAttested (a complete identity whose outputDigest is the verdict's) are
    ``check_receipt``; Complete is the binding equal to this cell's policy, task files, command set
    and start; Supports is the receipt being about this cell and claim; Fresh is the materialHash
    equal to the live tree's digest, over a reading that read every entry (``live_unread``, the live
    reading's ``unread``, is empty: ``unread_problem``); OutcomeAccepted is exit 0 and decision pass."""
    typed, reason, why = rc.verified(receipt, trusted_public_raw)
    if typed is None:
        return reason, why
    if typed.producer.actor != rc.JUDGE_ACTOR:
        return Reason.SIGNER_KEY_MISMATCH, f"produced by {typed.producer.actor!r}, not the judge"
    bound = typed.binding
    want = ctx.binding(str(bound.material_hash))
    drift = [k for k, v in bound.items() if v != want[k]]
    if drift:
        return Reason.BINDING_INCOMPLETE, f"bound to another {', '.join(drift)}"
    subj = typed.subject
    if (subj.cell_key, subj.run_id) != (ctx.cell_key, ctx.run_id) or (subj.stage, subj.kind) != claim:
        return Reason.STALE, f"about {subj.cell_key} {subj.stage}/{subj.kind}, not this claim"
    if (unread := unread_problem(live_unread)) is not None:
        return unread
    if bound.material_hash != live_digest:
        return Reason.STALE, (f"bound to tree {str(bound.material_hash)[:12]}..., the live tree is "
                              f"{live_digest[:12]}...")
    return rc.passing(typed)
