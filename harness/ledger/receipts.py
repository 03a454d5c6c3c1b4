"""Signed evidence receipts (Proof-or-Stop §3, Eq. 1-2; Table 5's verifier reasons): their canonical
form, the run's signing key, signing, and the checks a receipt passes on its own.

A receipt is a JSON object with exactly these keys (``SCHEMA``):

- ``binding`` β(E) = ⟨materialHash, headHash, storyFilesHash, policyHash, commandSetHash⟩;
- ``identity`` ρ(E) = ⟨cmd, args, cwd, exit, outputDigest⟩;
- ``subject`` (run, cell, stage ``gate``/``final``, kind, seq): what it is about. The kind is the
  run: ``visible``/``hidden`` (the judged runs) or ``visible_plain``/``hidden_plain`` (the final
  adjudication's plain pytest runs of the same two tests, which a test must pass too);
- ``outcome``: the run's structured ``verdict`` and its ``decision`` (``pass``/``fail``);
- ``producer`` (harness, version, key id, actor ``judge``), ``time``, ``format``;
- ``signature``: ed25519 over the canonical JSON of every other key.

**Canonical JSON** (``canonical_bytes``): keys sorted, no whitespace (``,`` and ``:``), ASCII only
(``ensure_ascii=True``: every non-ASCII character, a lone surrogate included, is a ``\\uXXXX``
escape, so one object has exactly one byte string whatever escapes the file used), nulls kept
(a canonicalizer that dropped null let a mutation after signing go unnoticed: paper §8), no
floats (a float has more than one spelling; receipts carry integers and strings), NaN and
Infinity refused, keys strings only. A file is read by ``strict_loads``: a duplicate key, a NaN,
a float, a non-UTF-8 byte or an object past the size bound is a malformed receipt, never
"the last key wins".

**Typed** (issue 36): ``Receipt`` (its ``Subject``, ``Binding``, ``Identity``, ``ReceiptOutcome`` and
``Producer``) is a receipt read by attribute; this module is where a receipt's JSON object is checked
and parsed into one (``verified``, ``Receipt.from_json``), and a receipt keeps the object it was
parsed from (``raw``), whose canonical bytes its signature and its content address are over.

**Reason codes** (``Reason``): ``ok`` and the paper's ten non-ok codes, a closed set. Checks run in
a fixed order and the first failure names the receipt's reason (``check_receipt``); the checks
against records and trees (stale, not passing, decision) are the caller's.

Trust model (local-key scope): a receipt proves tamper evidence and freshness under a key the run
holds; it is not an independent multi-host quorum and not execution truth against a compromised
runner.
"""
from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError

RECEIPT_FORMAT = "hx-receipt-2"  # materialHash/headHash are hx-tree-digest-2 digests; the run's records are sealed
LEGACY_RECEIPT_FORMAT = "hx-receipt-1"  # an older run's: its tree digests are the older (path, text) encoding
RECEIPT_FORMATS = (RECEIPT_FORMAT, LEGACY_RECEIPT_FORMAT)
MAX_RECEIPT_BYTES = 1 << 20
HEX64 = re.compile(r"[0-9a-f]{64}")
PRIVATE_KEY_NAME = "receipt-signing.pem"  # in the run's keys/ (mode 600), never exported
PUBLIC_KEY_NAME = "public_key.pem"  # in the run's receipts/, published


class Reason(StrEnum):
    """The verifier's closed set of reasons (paper Table 5): ``ok`` and ten non-ok codes."""
    OK = "ok"
    STALE = "stale"  # bound to another tree (or cell) than the one it is offered for
    BINDING_INCOMPLETE = "binding_incomplete"  # a binding hash missing, or not the run's policy/command set
    SIGNATURE_INVALID = "signature_invalid"  # the signature does not match the content
    SIGNATURE_MISSING = "signature_missing"  # no signature
    SIGNER_KEY_MISMATCH = "signer_key_mismatch"  # signed by (or naming) a key other than the trusted one
    MALFORMED_BUNDLE = "malformed_bundle"  # not a receipt: keys, types, nulls, duplicate keys, floats
    DIGEST_MISMATCH = "digest_mismatch"  # a digest that is not a sha256 or not the digest of what it names
    RECEIPT_NOT_PASSING = "receipt_not_passing"  # offered as a pass, but its execution did not pass
    BUILD_PROOF_MISSING = "build_proof_missing"  # a claim with no receipt behind it
    DECISION_NOT_PASS = "decision_not_pass"  # the judge's decision is not the one claimed


BINDING_KEYS = ("materialHash", "headHash", "storyFilesHash", "policyHash", "commandSetHash")
IDENTITY_KEYS = ("cmd", "args", "cwd", "exit", "outputDigest")
SUBJECT_KEYS = ("run_id", "cell_key", "stage", "kind", "seq")
OUTCOME_KEYS = ("verdict", "decision")
PRODUCER_KEYS = ("harness", "version", "key_id", "actor")
TOP_KEYS = ("format", "binding", "identity", "subject", "outcome", "producer", "time", "signature")
STAGES = ("gate", "final")
JUDGED_KINDS = ("visible", "hidden")
PLAIN_KINDS = ("visible_plain", "hidden_plain")  # final stage only: plain pytest, no probe, no judge
KINDS = (*JUDGED_KINDS, *PLAIN_KINDS)
DECISIONS = ("pass", "fail")
JUDGE_ACTOR = "judge"


@dataclass(frozen=True)
class Subject:
    """What a receipt is about: its run, cell, stage (``gate``/``final``), kind (``KINDS``) and seq."""
    run_id: str | None
    cell_key: str
    stage: str
    kind: str
    seq: int


@dataclass(frozen=True)
class Binding:
    """β(E): the hashes a receipt is bound to (None: a hash the receipt left out, ``binding_incomplete``)."""
    material_hash: str | None
    head_hash: str | None
    story_files_hash: str | None
    policy_hash: str | None
    command_set_hash: str | None

    def items(self) -> list[tuple[str, str | None]]:
        """(key, hash) in ``BINDING_KEYS``' order, each under its name in the receipt."""
        return list(zip(BINDING_KEYS, (self.material_hash, self.head_hash, self.story_files_hash, self.policy_hash,
                                       self.command_set_hash)))


@dataclass(frozen=True)
class Identity:
    """ρ(E): the command run, its exit status and the digest of its structured verdict."""
    cmd: str
    args: tuple[str, ...]
    cwd: str
    exit: int
    output_digest: str


@dataclass(frozen=True)
class ReceiptOutcome:
    """The run's structured verdict (the judge's, harness.judge.evidence.structured_verdict) and its decision."""
    verdict: dict[str, Any]
    decision: str  # DECISIONS


@dataclass(frozen=True)
class Producer:
    harness: str
    version: str
    key_id: str
    actor: str


@dataclass(frozen=True)
class Receipt:
    """A receipt as its readers read it; ``raw``: the JSON object it was parsed from (its canonical bytes are
    what the signature and the receipt's digest are over)."""
    format: str
    binding: Binding
    identity: Identity
    subject: Subject
    outcome: ReceiptOutcome
    producer: Producer
    time: str
    signature: str | None
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Receipt:
        """A receipt's object whose shape is checked (``_shape_problem`` is None) as a Receipt."""
        b, i, s, o, p = obj["binding"], obj["identity"], obj["subject"], obj["outcome"], obj["producer"]
        return cls(format=obj["format"], binding=Binding(*(b[k] for k in BINDING_KEYS)),
                   identity=Identity(i["cmd"], tuple(i["args"]), i["cwd"], i["exit"], i["outputDigest"]),
                   subject=Subject(*(s[k] for k in SUBJECT_KEYS)), outcome=ReceiptOutcome(o["verdict"], o["decision"]),
                   producer=Producer(*(p[k] for k in PRODUCER_KEYS)), time=obj["time"], signature=obj["signature"],
                   raw=obj)

    def label(self, digest: str) -> str:
        """How a finding names the receipt: stage/kind#seq and its digest's first 12 digits."""
        return f"{self.subject.stage}/{self.subject.kind}#{self.subject.seq} {digest[:12]}"


def label(obj, digest: str) -> str:
    """A receipt's label (``Receipt.label``), also for an object that is not a receipt (its subject's stage, kind
    and seq as far as it has them, else the digest's first 12 digits): a finding names what it could read."""
    if isinstance(obj, Receipt):
        return obj.label(digest)
    try:
        return f"{obj['subject']['stage']}/{obj['subject']['kind']}#{obj['subject']['seq']} {digest[:12]}"
    except (KeyError, TypeError):
        return digest[:12]


class Malformed(HarnessError, ValueError):
    """Bytes that are not one canonical-able JSON object (duplicate key, float, NaN, bad UTF-8)."""


def _no_float(text: str):
    raise Malformed(f"a float ({text}): receipts carry integers and strings only")


def _no_constant(text: str):
    raise Malformed(f"{text} is not JSON")


def _unique(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise Malformed(f"duplicate key {k!r}")
        out[k] = v
    return out


def strict_loads(data: bytes):
    """JSON from bytes with no ambiguity: UTF-8 only, no duplicate key, no float, no NaN."""
    if len(data) > MAX_RECEIPT_BYTES:
        raise Malformed(f"larger than {MAX_RECEIPT_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Malformed(f"not UTF-8: {exc}") from None
    try:
        return json.loads(text, object_pairs_hook=_unique, parse_float=_no_float, parse_constant=_no_constant)
    except RecursionError:
        raise Malformed("nested too deep") from None
    except json.JSONDecodeError as exc:
        raise Malformed(f"not JSON: {exc}") from None
    except ValueError as exc:  # an integer past Python's digit limit (int() refuses it): not a traceback
        raise Malformed(f"not a receipt's JSON: {str(exc)[:120]}") from None


def _check_canonicalizable(obj, path: str = "$") -> None:
    if isinstance(obj, float):
        raise Malformed(f"{path}: a float")
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str):
                raise Malformed(f"{path}: a non-string key {k!r}")
            _check_canonicalizable(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_canonicalizable(v, f"{path}[{i}]")


def canonical_bytes(obj) -> bytes:
    """The one byte string of ``obj`` (see the module's docstring); Malformed for a float or a
    non-string key (json.dumps would turn ``{1: x}`` into ``{"1": x}``: two objects, one string)."""
    _check_canonicalizable(obj)
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def receipt_digest(receipt: dict) -> str:
    """A receipt's content address: sha256 of its canonical bytes (signature included)."""
    return sha256_hex(canonical_bytes(receipt))


def output_digest(verdict: dict) -> str:
    """ρ's outputDigest: sha256 of the canonical JSON of the judge's structured verdict (deterministic:
    no wall time, no cache flag, no stdout; docs/receipts.md says why)."""
    return sha256_hex(canonical_bytes(verdict))


# -- keys ---------------------------------------------------------------------------------------------
def key_id(public_raw: bytes) -> str:
    """A key's id: ``ed25519:`` + the first 32 hex digits of sha256 over its raw 32 bytes."""
    return "ed25519:" + sha256_hex(public_raw)[:32]


def public_raw_of_pem(pem: bytes) -> bytes:
    """The raw 32 bytes of an ed25519 public key in PEM; ValueError for anything else (a damaged PEM
    can also decode to an unknown algorithm, which cryptography reports as UnsupportedAlgorithm).

    A published key is exactly one PEM block, the canonical text of its SubjectPublicKeyInfo
    (``public_bytes(PEM, SubjectPublicKeyInfo)``): CRLF line ends and a missing final newline are the
    only latitude. cryptography reads more as a key (the first of two blocks, text around the block,
    blanks or headers inside it, some damaged DER such as a BIT STRING whose unused-bits count is 1):
    a file that names two keys or a look-alike encoding is refused, never read as whichever comes first."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    if not isinstance(pem, bytes):
        raise ValueError(f"a public key is bytes, not {type(pem).__name__}")
    text = pem.replace(b"\r\n", b"\n")
    if not text.endswith(b"\n"):
        text += b"\n"
    try:
        key = serialization.load_pem_public_key(text)
    except UnsupportedAlgorithm as exc:
        raise ValueError(f"not a public key this verifier knows: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"not an ed25519 public key ({type(key).__name__})")
    if text != key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo):
        raise ValueError("not the canonical encoding of an ed25519 public key (exactly one PEM block of its exact "
                         "DER, nothing before or after it)")
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def generate_key() -> tuple[bytes, bytes]:
    """(private key PEM, public key PEM) of a fresh ed25519 key (a run's receipt key, an anchor's key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    key = Ed25519PrivateKey.generate()
    priv = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
    pub = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    return priv, pub


class Signer:
    """The run's signing key (ed25519) and its id; ``sign`` adds ``signature`` to a receipt body."""

    def __init__(self, private_pem: bytes):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        key = serialization.load_pem_private_key(private_pem, password=None)
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"not an ed25519 private key ({type(key).__name__})")
        self._key = key
        self.public_raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_pem = key.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo)
        self.key_id = key_id(self.public_raw)

    def sign_bytes(self, data: bytes) -> bytes:
        """The raw ed25519 signature of ``data`` (the ledger seal, harness.ledger.seal)."""
        return self._key.sign(data)

    def sign(self, body: dict) -> dict:
        unsigned = {k: v for k, v in body.items() if k != "signature"}
        return {**unsigned, "signature": base64.b64encode(self._key.sign(canonical_bytes(unsigned))).decode()}


def run_signer(run_dir: Path) -> Signer:
    """The run's signer: its key in ``run_dir/keys`` (mode 600, created once per run, never exported),
    its public key published in ``run_dir/receipts``. Concurrent workers agree: the key is created
    with O_EXCL and a loser reads the winner's."""
    from harness.core import runio, statefile
    keys = Path(run_dir) / "keys"
    keys.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = keys / PRIVATE_KEY_NAME
    if not path.exists():  # written aside and linked: never over a key another worker made first
        runio.create_once(path, generate_key()[0], mode=0o600)
    from cryptography.exceptions import UnsupportedAlgorithm
    pem = runio.read_bytes(path, "receipt key", limit=1 << 16)  # a FIFO or link planted as the key: refused
    try:
        signer = Signer(pem)
    except (ValueError, TypeError, UnsupportedAlgorithm) as exc:  # damaged, another algorithm, or passphrase-protected (TypeError)
        raise runio.UnsafeFile(str(path), "<key>", f"not the run's ed25519 receipt key ({exc}); restore it from a "
                               "backup (receipts already signed name its key id)") from None
    pub = Path(run_dir) / "receipts" / PUBLIC_KEY_NAME
    if not pub.exists():
        pub.parent.mkdir(parents=True, exist_ok=True)
        statefile.write_atomic(pub, signer.public_pem)
    return signer


# -- a receipt's own checks --------------------------------------------------------------------------
def _shape_problem(r) -> str | None:
    """Why ``r`` is not a receipt (keys, types, nulls where a value is required), or None."""
    if not isinstance(r, dict) or set(r) != set(TOP_KEYS):
        return f"top-level keys must be exactly {sorted(TOP_KEYS)}"
    if r["format"] not in RECEIPT_FORMATS or not isinstance(r["time"], str):
        return "format or time"
    parts = (("binding", BINDING_KEYS), ("identity", IDENTITY_KEYS), ("subject", SUBJECT_KEYS),
             ("outcome", OUTCOME_KEYS), ("producer", PRODUCER_KEYS))
    for name, keys in parts:
        if not isinstance(r[name], dict) or set(r[name]) != set(keys):
            return f"{name} must have exactly {sorted(keys)}"
    if not all(v is None or isinstance(v, str) for v in r["binding"].values()):
        return "a binding hash is not a string"
    i, s, o, p = r["identity"], r["subject"], r["outcome"], r["producer"]
    if not (isinstance(i["cmd"], str) and isinstance(i["args"], list) and all(isinstance(a, str) for a in i["args"])
            and isinstance(i["cwd"], str) and type(i["exit"]) is int and isinstance(i["outputDigest"], str)):
        return "identity: cmd, args, cwd, exit (int) and outputDigest typed"
    if not (isinstance(s["cell_key"], str) and (s["run_id"] is None or isinstance(s["run_id"], str))
            and s["stage"] in STAGES and s["kind"] in KINDS and type(s["seq"]) is int
            and not (s["kind"] in PLAIN_KINDS and s["stage"] != "final")):
        return "subject (a plain run is a final-stage kind only)"
    if not isinstance(o["verdict"], dict) or o["decision"] not in DECISIONS:
        return "outcome: verdict (an object) and decision (pass/fail) are required"
    if not all(isinstance(p[k], str) for k in PRODUCER_KEYS) or r["signature"] is not None and not isinstance(r["signature"], str):
        return "producer or signature"
    return None


def check_receipt(r, trusted_public_raw: bytes | None) -> tuple[Reason, str]:
    """A receipt's own checks, in order: structure, binding complete, signature present, signer is the
    trusted key, signature valid, output digest a sha256 of the verdict. (Reason, detail)."""
    _, reason, why = verified(r, trusted_public_raw)
    return reason, why


def verified(r, trusted_public_raw: bytes | None) -> tuple[Receipt | None, Reason, str]:
    """``check_receipt``'s checks of the object ``r`` (as read); the Receipt it is, when they pass (else None)."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    why = _shape_problem(r)
    if why:
        return None, Reason.MALFORMED_BUNDLE, why
    receipt = Receipt.from_json(r)
    missing = [k for k, v in receipt.binding.items() if not v]
    if missing:
        return None, Reason.BINDING_INCOMPLETE, f"binding without {', '.join(missing)}"
    if not receipt.signature:
        return None, Reason.SIGNATURE_MISSING, "no signature"
    if trusted_public_raw is None or receipt.producer.key_id != key_id(trusted_public_raw):
        return None, Reason.SIGNER_KEY_MISMATCH, f"signed by {receipt.producer.key_id}, not the trusted key"
    try:
        sig = base64.b64decode(receipt.signature, validate=True)
        body = canonical_bytes({k: v for k, v in r.items() if k != "signature"})
        Ed25519PublicKey.from_public_bytes(trusted_public_raw).verify(sig, body)
    except (InvalidSignature, ValueError, TypeError, Malformed):
        return None, Reason.SIGNATURE_INVALID, "the signature does not match the content"
    ident = receipt.identity
    if not HEX64.fullmatch(ident.output_digest):
        return None, Reason.DIGEST_MISMATCH, f"outputDigest {ident.output_digest[:20]!r} is not a sha256"
    if ident.output_digest != output_digest(receipt.outcome.verdict):
        return None, Reason.DIGEST_MISMATCH, "outputDigest is not the digest of the verdict"
    bad = [k for k, v in receipt.binding.items() if not HEX64.fullmatch(str(v))]
    if bad:
        return None, Reason.DIGEST_MISMATCH, f"{', '.join(bad)} not a sha256"
    return receipt, Reason.OK, ""


def passing(r: Receipt | dict) -> tuple[Reason, str]:
    """OutcomeAccepted for a claim of pass: the execution passed (non-empty command, exit 0) and the
    judge decided pass. ``r``: a Receipt, or a receipt's object whose shape is checked."""
    receipt = r if isinstance(r, Receipt) else Receipt.from_json(r)
    ident = receipt.identity
    if not ident.cmd or ident.exit != 0:
        return Reason.RECEIPT_NOT_PASSING, f"exit {ident.exit}, command {ident.cmd!r}"
    if receipt.outcome.decision != "pass":
        return Reason.DECISION_NOT_PASS, f"decision {receipt.outcome.decision!r}"
    return Reason.OK, ""
