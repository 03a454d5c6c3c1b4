"""``harness reproduce receipts``: the Proof-or-Stop paper's Table 5 (offline receipt-bundle
adversarial contract) as a reproducible check over a real run.

An authentic run is made (one A4 cell, simulated engine: real test runs, real receipts), exported
as a bundle, and each of the 18 tamper classes of Table 5's seven families is applied to a fresh
copy; ``harness receipts verify`` (``verify_run``) must accept the authentic copy (``ok``) and reject
each tampered one with the class's reason. The table gives each class, the reason reached, and
false-accept (a tampered copy accepted) / false-reject (the authentic copy rejected, or a class
rejected with another reason than Table 5's).

Classes that re-sign use the run's own key: within local-key scope an attacker holding the key
can sign anything, and the verifier must still refuse evidence that is stale, incomplete, not
passing or not a pass decision (the paper's "failing-receipt acceptance" finding).
"""
from __future__ import annotations

import io
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from harness.ledger import receipts as rc
from harness.ledger.receipts import Reason
from harness.run.receipts_verify import verify_run

TAMPER_PROTOCOL = """
[protocol]
name = "receipts-contract"
seed = 5
repeats = 1
tasks_dir = "{tasks}"
tasks = ["{task}"]
scenarios = ["null"]
engine = "simulated"

[arms.A4]
controller = "A4"
"""


@dataclass(frozen=True)
class TamperClass:
    family: str
    name: str
    expected: Reason
    doc: str
    apply: Callable[["Bundle"], None]


@dataclass
class Bundle:
    """A copy of an authentic run being tampered with, and the key the verifier trusts."""
    dir: Path
    public_pem: bytes
    private_pem: bytes

    def final_visible(self) -> Path:
        """The final visible receipt of a record that claims the visible test passed."""
        import json
        for line in (self.dir / "records.jsonl").read_text().split("\n")[:-1]:  # "\n" only: the ledger's line end
            rec = json.loads(line)
            if not rec.get("visible_pass"):
                continue
            for d in rec["receipts"]:
                r = json.loads((self.dir / "receipts" / f"{d}.json").read_bytes())
                if r["subject"]["stage"] == "final" and r["subject"]["kind"] == "visible":
                    return self.dir / "receipts" / f"{d}.json"
        raise LookupError("the authentic run has no passing final visible receipt")

    def edit(self, change: Callable[[dict], None], resign: bool = False) -> None:
        """Change the final visible receipt in place (re-signed with the run's key when asked)."""
        path = self.final_visible()
        r = rc.strict_loads(path.read_bytes())
        change(r)
        if resign:
            r = rc.Signer(self.private_pem).sign(r)
        path.write_bytes(rc.canonical_bytes(r))


def _flip_code_byte(b: Bundle) -> None:
    import json
    rec = json.loads((b.dir / "records.jsonl").read_text().split("\n", 1)[0])
    manifest = json.loads((b.dir / "trees" / f"{rec['tree_digest_final']}.json").read_text())
    for rel, entry in sorted(manifest["entries"].items()):
        blob = b.dir / "trees" / "blobs" / str(entry.get("blob"))
        data = blob.read_bytes() if entry.get("kind") == "text" else b""
        i = next((i for i, c in enumerate(data) if 0x61 <= c <= 0x79), None)  # a lowercase letter: stays UTF-8
        if i is not None:
            blob.write_bytes(data[:i] + bytes([data[i] + 1]) + data[i + 1:])
            return
    raise LookupError("no text file to flip a byte of")


def _stale_material(r: dict) -> None:
    r["binding"]["materialHash"] = r["binding"]["headHash"]  # the tree before the work: an earlier state


def _incomplete(r: dict) -> None:
    r["binding"]["storyFilesHash"] = None


def _evidence_edit(r: dict) -> None:
    r["outcome"]["verdict"]["tests"] = int(r["outcome"]["verdict"]["tests"] or 0) + 1


def _verdict_swap(r: dict) -> None:
    v = r["outcome"]
    v["verdict"]["passed"] = not v["verdict"]["passed"]
    v["decision"] = "fail" if v["decision"] == "pass" else "pass"


def _command_set(r: dict) -> None:
    r["binding"]["commandSetHash"] = rc.sha256_hex(b"pytest -p no:judge")


def _forge(b: Bundle) -> None:
    from harness.ledger.ledger import generate_key
    other = rc.Signer(generate_key()[0])

    def change(r: dict) -> None:
        r["signature"] = other.sign(r)["signature"]  # a valid signature, by another key, under the run's key id
    b.edit(change)


def _swap_trusted_key(b: Bundle) -> None:
    from harness.ledger.ledger import generate_key
    b.public_pem = generate_key()[1]


def _set(path: tuple[str, ...], value) -> Callable[[dict], None]:
    def change(r: dict) -> None:
        target = r
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
    return change


def _remove_receipts(b: Bundle) -> None:
    for p in (b.dir / "receipts").glob("*.json"):
        p.unlink()


def _classes() -> list[TamperClass]:
    e = Bundle.edit
    T = TamperClass
    return [
        T("Freshness / binding drift", "code_byte_flip", Reason.STALE,
          "one byte of a file in the stored final tree changed", _flip_code_byte),
        T("Freshness / binding drift", "stale_material_hash", Reason.STALE,
          "a signed receipt bound to an earlier tree", lambda b: e(b, _stale_material, resign=True)),
        T("Freshness / binding drift", "incomplete_binding", Reason.BINDING_INCOMPLETE,
          "a signed receipt with a binding hash null", lambda b: e(b, _incomplete, resign=True)),
        T("Signature tamper", "evidence_edit", Reason.SIGNATURE_INVALID,
          "the verdict's test count edited after signing", lambda b: e(b, _evidence_edit)),
        T("Signature tamper", "host_verdict_swap", Reason.SIGNATURE_INVALID,
          "the judge's verdict and decision swapped after signing", lambda b: e(b, _verdict_swap)),
        T("Signature tamper", "command_set_change", Reason.SIGNATURE_INVALID,
          "the commandSetHash replaced after signing", lambda b: e(b, _command_set)),
        T("Signature tamper", "forged_signature", Reason.SIGNATURE_INVALID,
          "signed by another key, under the run key's id", _forge),
        T("Missing / wrong signer", "empty_signature", Reason.SIGNATURE_MISSING,
          "the signature emptied", lambda b: e(b, _set(("signature",), ""))),
        T("Missing / wrong signer", "signer_key_differs", Reason.SIGNER_KEY_MISMATCH,
          "the trusted public key is not the run's key", _swap_trusted_key),
        T("Malformed structure", "null_host_verdict", Reason.MALFORMED_BUNDLE,
          "the judge's verdict null", lambda b: e(b, _set(("outcome", "verdict"), None), resign=True)),
        T("Malformed structure", "null_decision", Reason.MALFORMED_BUNDLE,
          "the decision null", lambda b: e(b, _set(("outcome", "decision"), None), resign=True)),
        T("Malformed structure", "extra_top_level_key", Reason.MALFORMED_BUNDLE,
          "an extra top-level key", lambda b: e(b, _set(("note",), "trust me"), resign=True)),
        T("Receipt identity malformed", "non_sha256_output_digest", Reason.DIGEST_MISMATCH,
          "outputDigest not a sha256", lambda b: e(b, _set(("identity", "outputDigest"), "md5:0f0f"), resign=True)),
        T("Receipt did not pass", "exit_code_1", Reason.RECEIPT_NOT_PASSING,
          "a signed receipt with exit 1 offered as a pass", lambda b: e(b, _set(("identity", "exit"), 1), resign=True)),
        T("Receipt did not pass", "exit_code_minus_1", Reason.RECEIPT_NOT_PASSING,
          "a signed receipt with exit -1 offered as a pass", lambda b: e(b, _set(("identity", "exit"), -1), resign=True)),
        T("Receipt did not pass", "empty_command", Reason.RECEIPT_NOT_PASSING,
          "a signed receipt with an empty command", lambda b: e(b, _set(("identity", "cmd"), ""), resign=True)),
        T("Missing proof / bad decision", "no_receipts", Reason.BUILD_PROOF_MISSING,
          "every receipt removed", _remove_receipts),
        T("Missing proof / bad decision", "decision_fail", Reason.DECISION_NOT_PASS,
          "a signed receipt whose decision is fail offered as a pass",
          lambda b: e(b, _set(("outcome", "decision"), "fail"), resign=True)),
    ]


CLASSES = _classes()


@dataclass(frozen=True)
class Row:
    family: str
    name: str
    expected: Reason
    reached: Reason
    doc: str

    @property
    def rejected(self) -> bool:
        return self.reached is not Reason.OK

    @property
    def false_accept(self) -> bool:
        return self.expected is not Reason.OK and self.reached is Reason.OK

    @property
    def false_reject(self) -> bool:
        return self.reached is not self.expected and not self.false_accept


def build_authentic(work: Path, tasks_dir: Path, task: str = "parse-range", protocol: str = TAMPER_PROTOCOL) -> Bundle:
    """A real run (simulated engine; by default one A4 cell) in ``work/run``; its key pair read back.
    ``protocol`` is formatted with ``tasks`` (the absolute tasks directory) and ``task``."""
    from harness.run.driver import execute, prepare
    proto = work / "receipts-contract.toml"
    proto.write_text(protocol.format(tasks=Path(tasks_dir).resolve(), task=task))
    run = work / "run"
    prepare(proto, run, engine=None, reviewer_engine=None, model=None, exploratory=True)
    execute(run, workers=1, log=lambda m: None, progress_stream=io.StringIO())  # the table is the output
    private = (run / "keys" / rc.PRIVATE_KEY_NAME).read_bytes()
    return Bundle(run, rc.Signer(private).public_pem, private)


def reached(b: Bundle) -> Reason:
    """The verifier's reason for the bundle: ``ok`` when accepted, else its first finding's reason."""
    report = verify_run(b.dir, b.public_pem)
    return Reason.OK if report.ok else report.findings[0].reason if report.findings else Reason.MALFORMED_BUNDLE


def run_contract(authentic: Bundle, work: Path, classes: list[TamperClass] | None = None) -> list[Row]:
    """The authentic control and each class, each on its own copy of the run (its keys left out)."""
    rows = [Row("Authentic control", "authentic", Reason.OK, reached(authentic), "the untampered run")]
    for cls in classes if classes is not None else CLASSES:
        copy = work / f"tamper-{cls.name}"
        shutil.copytree(authentic.dir, copy, ignore=shutil.ignore_patterns("keys"))
        b = Bundle(copy, authentic.public_pem, authentic.private_pem)
        cls.apply(b)
        rows.append(Row(cls.family, cls.name, cls.expected, reached(b), cls.doc))
    return rows


def render(rows: list[Row]) -> str:
    out = ["| family | class | expected | reason reached | result |", "|---|---|---|---|---|"]
    for r in rows:
        result = ("accepted" if not r.rejected else "rejected") + (" FALSE-ACCEPT" if r.false_accept else "") + \
                 (" FALSE-REJECT" if r.false_reject else "")
        out.append(f"| {r.family} | {r.name} | {r.expected.value} | {r.reached.value} | {result} |")
    tampered = [r for r in rows if r.expected is not Reason.OK]
    codes = {r.reached for r in rows} - {Reason.OK}
    out += ["", f"tamper classes rejected: {sum(r.rejected for r in tampered)}/{len(tampered)}; authentic accepted: "
            f"{sum(not r.rejected for r in rows if r.expected is Reason.OK)}/1",
            f"false-accept: {sum(r.false_accept for r in rows)}/{len(tampered)} tampered; false-reject: "
            f"{sum(r.false_reject for r in rows)}/{len(rows)} (authentic, or a class refused with another reason)",
            f"non-ok reason codes reached: {len(codes)}/{len(Reason) - 1} ({', '.join(sorted(c.value for c in codes))})",
            "local-key scope: tamper evidence and freshness under the run's key; not an independent multi-host "
            "quorum, not execution truth against a compromised runner"]
    return "\n".join(out)


def reproduce(tasks_dir: Path, work: Path | None = None) -> tuple[list[Row], str]:
    with tempfile.TemporaryDirectory(prefix="hx-table5-") as tmp:
        base = Path(work) if work else Path(tmp)
        base.mkdir(parents=True, exist_ok=True)
        rows = run_contract(build_authentic(base, tasks_dir), base)
        return rows, render(rows)
