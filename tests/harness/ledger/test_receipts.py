"""Signed receipts on their own (harness.ledger.receipts): one canonical byte string per object, the
run's key, and the checks in Table 5's order, each reason reachable and none reached by an honest
receipt."""
from __future__ import annotations

import base64
import copy
import json

import pytest

from harness.ledger import receipts as rc
from harness.ledger.ledger import generate_key
from harness.ledger.receipts import Reason


def _body(verdict=None) -> dict:
    verdict = verdict or {"passed": True, "tests": 3, "failures": 0, "errors": 0, "skipped": 0, "returncode": 0,
                          "timed_out": False, "subverted": False}
    h = "a" * 64
    return {"format": rc.RECEIPT_FORMAT,
            "binding": {k: h for k in rc.BINDING_KEYS},
            "identity": {"cmd": "python", "args": ["-q"], "cwd": "<work>", "exit": 0,
                         "outputDigest": rc.output_digest(verdict)},
            "subject": {"run_id": "r", "cell_key": "A4|t|null|1", "stage": "final", "kind": "visible", "seq": 0},
            "outcome": {"verdict": verdict, "decision": "pass"},
            "producer": {"harness": "proof-harness", "version": "1", "key_id": "", "actor": "judge"},
            "time": "2026-12-04T00:00:00Z", "signature": None}


@pytest.fixture(scope="module")
def signer():
    return rc.Signer(generate_key()[0])


def signed(signer, change=None):
    b = _body()
    b["producer"]["key_id"] = signer.key_id
    if change:
        change(b)
    return signer.sign(b)


def test_canonical_bytes_sort_keys_keep_nulls_and_escape_every_non_ascii_character():
    assert rc.canonical_bytes({"b": None, "a": "é\ud800"}) == b'{"a":"\\u00e9\\ud800","b":null}'
    assert rc.canonical_bytes({"a": None}) != rc.canonical_bytes({})  # a dropped null is a different object


@pytest.mark.parametrize("obj", [{"x": 1.0}, {"x": float("nan")}, {1: "a"}], ids=["float", "nan", "int-key"])
def test_canonical_bytes_refuse_what_has_more_than_one_spelling(obj):
    with pytest.raises(rc.Malformed):
        rc.canonical_bytes(obj)


@pytest.mark.parametrize("raw", [b'{"a":1,"a":2}', b'{"a":NaN}', b'{"a":1.5}', b'{"a":"\xff"}'],
                         ids=["duplicate-key", "nan", "float", "not-utf8"])
def test_strict_loads_refuses_ambiguous_json(raw):
    with pytest.raises(rc.Malformed):
        rc.strict_loads(raw)


def test_escapes_and_key_order_in_the_file_do_not_change_what_is_signed(signer):
    r = signed(signer)
    reordered = dict(reversed(list(r.items())))
    respelled = json.dumps(reordered, indent=2).replace('"python"', '"\\u0070ython"')
    assert respelled.encode() != rc.canonical_bytes(r) and '\\u0070' in respelled
    assert rc.check_receipt(rc.strict_loads(respelled.encode()), signer.public_raw) == (Reason.OK, "")


def test_an_honest_receipt_is_ok_and_its_key_id_names_its_key(signer):
    r = signed(signer)
    assert rc.check_receipt(r, signer.public_raw) == (Reason.OK, "")
    assert rc.passing(r) == (Reason.OK, "")
    assert r["producer"]["key_id"] == rc.key_id(signer.public_raw) == rc.key_id(rc.public_raw_of_pem(signer.public_pem))


def _forge_other_key(r):
    other = rc.Signer(generate_key()[0])
    r["signature"] = other.sign(r)["signature"]


CASES = {  # name: (change, re-sign, reason)
    "extra key": (lambda r: r.update(note="x"), True, Reason.MALFORMED_BUNDLE),
    "null verdict": (lambda r: r["outcome"].update(verdict=None), True, Reason.MALFORMED_BUNDLE),
    "bool exit": (lambda r: r["identity"].update(exit=False), True, Reason.MALFORMED_BUNDLE),
    "null binding": (lambda r: r["binding"].update(policyHash=None), True, Reason.BINDING_INCOMPLETE),
    "empty signature": (lambda r: r.update(signature=""), False, Reason.SIGNATURE_MISSING),
    "other key id": (lambda r: r["producer"].update(key_id="ed25519:" + "0" * 32), True, Reason.SIGNER_KEY_MISMATCH),
    "edited verdict": (lambda r: r["outcome"]["verdict"].update(tests=4), False, Reason.SIGNATURE_INVALID),
    "null dropped": (lambda r: r["subject"].update(run_id=None), False, Reason.SIGNATURE_INVALID),
    "forged": (_forge_other_key, False, Reason.SIGNATURE_INVALID),
    "non-sha256 digest": (lambda r: r["identity"].update(outputDigest="md5:00"), True, Reason.DIGEST_MISMATCH),
    "digest of another verdict": (lambda r: r["identity"].update(outputDigest="b" * 64), True, Reason.DIGEST_MISMATCH),
}


@pytest.mark.parametrize("name", CASES)
def test_check_receipt_gives_each_tamper_its_reason(signer, name):
    change, resign, want = CASES[name]
    r = copy.deepcopy(signed(signer))
    change(r)
    if resign:
        r = signer.sign(r)
    assert rc.check_receipt(r, signer.public_raw)[0] is want


def test_a_signed_failing_receipt_offered_as_a_pass_is_refused(signer):
    assert rc.passing(signed(signer, lambda b: b["identity"].update(exit=1)))[0] is Reason.RECEIPT_NOT_PASSING
    assert rc.passing(signed(signer, lambda b: b["identity"].update(cmd="")))[0] is Reason.RECEIPT_NOT_PASSING
    assert rc.passing(signed(signer, lambda b: b["outcome"].update(decision="fail")))[0] is Reason.DECISION_NOT_PASS


def test_no_trusted_key_is_a_signer_mismatch(signer):
    assert rc.check_receipt(signed(signer), None)[0] is Reason.SIGNER_KEY_MISMATCH


def test_the_run_key_is_made_once_with_mode_600_and_its_public_half_published(tmp_path):
    a, b = rc.run_signer(tmp_path), rc.run_signer(tmp_path)
    assert a.key_id == b.key_id
    assert (tmp_path / "keys" / rc.PRIVATE_KEY_NAME).stat().st_mode & 0o777 == 0o600
    assert rc.public_raw_of_pem((tmp_path / "receipts" / rc.PUBLIC_KEY_NAME).read_bytes()) == a.public_raw
    assert base64.b64decode(a.sign({"x": 1})["signature"])


def test_any_one_character_of_the_public_key_changed_is_refused_or_another_key(signer):
    """A damaged PEM may not parse, parse as another algorithm (cryptography's UnsupportedAlgorithm) or
    be another ed25519 key: never the signer's key, never an exception other than ValueError."""
    import base64
    pem = signer.public_pem
    start = pem.index(b"\n") + 1
    end = pem.index(b"\n", start)
    for i in range(start, end):
        bad = pem[:i] + (b"A" if pem[i:i + 1] != b"A" else b"B") + pem[i + 1:]
        if base64.b64decode(bad[start:end]) == base64.b64decode(pem[start:end]):
            continue  # only the last character's unused low bits changed ('A' -> 'B' there): the same bytes
        try:
            assert rc.public_raw_of_pem(bad) != signer.public_raw
        except ValueError:
            pass


def test_an_integer_past_pythons_digit_limit_is_malformed_not_a_traceback():
    """red team r33: a receipt whose ``seq`` had 5,000 digits made json's int() raise ValueError, which
    ``verify`` did not catch (a traceback, not a reason code)."""
    with pytest.raises(rc.Malformed):
        rc.strict_loads(b'{"seq":' + b"9" * 5000 + b"}")


@pytest.mark.parametrize("fmt, ok", [(rc.RECEIPT_FORMAT, True), (rc.LEGACY_RECEIPT_FORMAT, True),
                                     ("hx-receipt-3", False), (None, False)])
def test_a_receipts_format_is_the_current_or_an_older_runs_and_nothing_else(signer, fmt, ok):
    """hx-receipt-2 (tree digests hx-tree-digest-2, records sealed) and an older run's hx-receipt-1 are
    receipts; the format is under the signature, so a reader knows which tree digest a materialHash is."""
    r = signed(signer, lambda b: b.update(format=fmt))
    assert (rc.check_receipt(r, signer.public_raw)[0] is Reason.OK) is ok
    if not ok:
        assert rc.check_receipt(r, signer.public_raw)[0] is Reason.MALFORMED_BUNDLE


# -- a published key is its exact encoding (public_raw_of_pem) ----------------------------------------------------
def _der(signer) -> bytes:
    return base64.b64decode(b"".join(signer.public_pem.splitlines()[1:-1]))


def _pem(der: bytes, tag: bytes = b"PUBLIC KEY") -> bytes:
    return b"-----BEGIN " + tag + b"-----\n" + base64.b64encode(der) + b"\n-----END " + tag + b"-----\n"


def _accepted_as(data: bytes) -> bytes | None:
    """The raw key ``public_raw_of_pem`` reads from ``data``, None when it refuses it (ValueError only)."""
    try:
        return rc.public_raw_of_pem(data)
    except ValueError:
        return None


def _other_pem() -> bytes:
    return rc.Signer(generate_key()[0]).public_pem


_ED25519_SPKI_HEAD = bytes.fromhex("302a300506032b6570032100")  # SEQUENCE { AlgorithmIdentifier { Ed25519 }, BIT STRING


@pytest.mark.parametrize("damage", [
    "unused-bits-1", "a-trailing-der-byte", "long-form-length", "null-parameters", "x25519-oid", "ed448-oid",
    "certificate", "private-key", "rsa-public-key-tag", "lowercase-tag"])
def test_a_key_in_any_other_encoding_or_container_is_refused(signer, damage):
    """What holds of the exact-DER rule (review r36): a BER variant of the SubjectPublicKeyInfo, another
    algorithm's OID, the key in a certificate or as its private half, or another PEM label is refused
    (ValueError, never another exception), never read as the signer's key."""
    der = _der(signer)
    assert der[:12] == _ED25519_SPKI_HEAD
    data = {"unused-bits-1": lambda: _pem(der[:11] + b"\x01" + der[12:]),
            "a-trailing-der-byte": lambda: _pem(der + b"\x00"),
            "long-form-length": lambda: _pem(b"\x30\x81\x2a" + der[2:]),
            "null-parameters": lambda: _pem(bytes.fromhex("302c300706032b65700500") + der[9:]),
            "x25519-oid": lambda: _pem(der[:8] + b"\x6e" + der[9:]),
            "ed448-oid": lambda: _pem(der[:8] + b"\x71" + der[9:]),
            "certificate": lambda: _pem(der, b"CERTIFICATE"),
            "private-key": lambda: generate_key()[0],
            "rsa-public-key-tag": lambda: _pem(der, b"RSA PUBLIC KEY"),
            "lowercase-tag": lambda: _pem(der, b"public key")}[damage]()
    assert _accepted_as(data) is None


def test_a_key_file_with_another_key_before_the_runs_key_is_refused(signer):
    assert _accepted_as(_other_pem() + signer.public_pem) is None


FRAMINGS = {
    "the-same-block-twice": lambda pem: pem + pem,
    "another-key-after-it": lambda pem: pem + _other_pem(),
    "a-punctuation-line-before-it": lambda pem: b"!!!\n" + pem,
    "text-after-its-end-line": lambda pem: pem + b"trailing text\n",
    "a-punctuation-header": lambda pem: pem.replace(b"-----\n", b"-----\n!: *\n\n", 1),
    "a-space-inside-the-base64": lambda pem: pem[:40] + b" " + pem[40:],
}


@pytest.mark.parametrize("framing", sorted(FRAMINGS))
def test_a_key_file_that_is_not_exactly_one_canonical_pem_block_is_refused(signer, framing):
    data = FRAMINGS[framing](signer.public_pem)
    assert rc.public_raw_of_pem(signer.public_pem) == signer.public_raw
    assert _accepted_as(data) is None


@pytest.mark.parametrize("variant", ["crlf", "no-final-newline", "crlf-no-final-newline"])
def test_a_canonical_key_with_crlf_line_ends_or_without_its_final_newline_is_read(signer, variant):
    """The only latitude of the exact-PEM rule: what a text editor or a copy from a web page does to the file."""
    pem = signer.public_pem
    data = {"crlf": pem.replace(b"\n", b"\r\n"), "no-final-newline": pem.rstrip(b"\n"),
            "crlf-no-final-newline": pem.replace(b"\n", b"\r\n").rstrip(b"\r\n")}[variant]
    assert rc.public_raw_of_pem(data) == signer.public_raw
