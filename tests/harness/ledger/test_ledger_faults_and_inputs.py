"""Independent review of issue 11 (ledger, faults, inputs): each test is a defect found and fixed.

Formerly ``tests/harness/test_review_issue11.py``, named after its origin."""
from __future__ import annotations

import json

import pytest

from harness.core.errors import InputError
from harness.core.protocol import freeze, load_protocol
from harness.run.driver import execute, prepare
from support.protocols import minimal_protocol
from support.records import as_json
from support.scripted import copy_tasks

PROTO = minimal_protocol("mini", 11, tasks=("parse-range", "median"), scenarios=("null", "B2"),
                         arms=("A1", "A2"))


@pytest.fixture
def frozen(tmp_path):
    copy_tasks(tmp_path, ("parse-range", "median"))
    p = tmp_path / "mini.toml"
    p.write_text(PROTO)
    freeze(load_protocol(p))
    return p


def test_resume_refuses_a_protocol_refrozen_after_the_run_started(frozen, tmp_path):
    """A pre-registered run is bound to the digest in its run.json. Editing the protocol and
    re-freezing it (a new pre-registration) must not let --resume run the remaining cells under the
    new protocol while their records still carry the old digest; nothing is appended."""
    run = tmp_path / "run"
    prepare(frozen, run, engine=None, reviewer_engine=None, model=None, exploratory=False)
    execute(run, limit_cells=2, log=lambda m: None)
    before = (run / "records.jsonl").read_bytes()
    frozen.write_text(PROTO + "\n[limits]\nmax_turns = 1\n")
    freeze(load_protocol(frozen))
    with pytest.raises(InputError) as exc:
        execute(run, log=lambda m: None)
    assert exc.value.field == "digest"
    assert "changed since this pre-registered run started" in str(exc.value)
    assert (run / "records.jsonl").read_bytes() == before
    assert json.loads((run / "run.json").read_text())["preregistered"] is True


def test_a_second_process_on_the_same_run_is_refused_and_the_ledger_stays_valid(frozen, tmp_path, monkeypatch):
    """Two writers on one run (a second `harness run --resume DIR` while the first is running) each
    appended with their own seq counter: duplicated seqs, a ledger that fails verify for good and
    can never be resumed. The second writer is refused (exit 2) while the first holds the run."""
    from harness.engines import simulated
    from harness.ledger.ledger import verify

    run = tmp_path / "run"
    prepare(frozen, run, engine=None, reviewer_engine=None, model=None, exploratory=False)
    orig, seen = simulated.SimulatedEngine.complete, []

    def complete(self, req):
        if not seen:  # while the first session is inside its first cell, a second one starts
            seen.append(None)
            try:
                execute(run, log=lambda m: None)
            except InputError as exc:
                seen[0] = exc
        return orig(self, req)

    monkeypatch.setattr(simulated.SimulatedEngine, "complete", complete)
    res = execute(run, workers=1, log=lambda m: None)
    assert isinstance(seen[0], InputError) and "another" in str(seen[0])
    assert verify(run / "records.jsonl") == [] and res.exit_code == 0
    assert len(as_json(res.records)) == len({r["cell_key"] for r in as_json(res.records)}) == 8


def test_ledger_commands_turn_file_and_key_mistakes_into_one_line_errors(tmp_path):
    """keygen over an existing key or into a missing folder, anchor --out into a missing folder, a
    passphrase-protected signing key, and a records.head that is a directory each gave a Python
    traceback; each is now one line naming the file, exit 2 (and an existing key is never overwritten)."""
    from click.testing import CliRunner
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from harness.cli.cli import main
    from harness.ledger.ledger import Ledger

    led = Ledger(tmp_path / "records.jsonl")
    led.append({"cell_key": "k", "outcome": "completed", "protocol_digest": "d", "run_id": "r"})
    key = tmp_path / "k.pem"
    key.write_bytes(b"precious")
    enc = tmp_path / "enc.pem"
    enc.write_bytes(Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")))
    cases = {"keygen-exists": (["ledger", "keygen", "--out", str(key)], str(key)),
             "keygen-nodir": (["ledger", "keygen", "--out", str(tmp_path / "no" / "k.pem")], "k.pem"),
             "anchor-nodir": (["ledger", "anchor", str(tmp_path), "--out", str(tmp_path / "no" / "a.json")], "a.json"),
             "encrypted-key": (["ledger", "anchor", str(tmp_path), "--sign-key", str(enc)], str(enc))}
    for name, (argv, names) in cases.items():
        r = CliRunner().invoke(main, argv)
        assert r.exit_code == 2 and isinstance(r.exception, SystemExit), (name, r.output)
        assert r.output.startswith("error: ") and names in r.output and r.output.count("\n") == 1, (name, r.output)
    assert key.read_bytes() == b"precious"
    (tmp_path / "records.head").unlink()
    (tmp_path / "records.head").mkdir()
    r = CliRunner().invoke(main, ["ledger", "verify", str(tmp_path)])
    assert r.exit_code == 2 and "records.head" in r.output and not isinstance(r.exception, OSError), r.output


@pytest.mark.parametrize("table, key", [("[limits]\ntest_timeout_s = inf", "limits.test_timeout_s"),
                                        ("[limits]\ntest_timeout_s = 1e300", "limits.test_timeout_s"),
                                        ("[limits]\nmemory_mb = 99999999999999999", "limits.memory_mb"),
                                        ("[providers.anthropic]\nbackoff_base_s = inf", "providers.anthropic.backoff_base_s"),
                                        ("[budget]\nmax_usd = inf", "budget.max_usd")])
def test_a_limit_no_test_run_can_honour_is_an_input_error_not_a_void_in_every_cell(frozen, table, key):
    """`test_timeout_s = inf` (or 1e300) and a memory_mb whose bytes overflow RLIMIT_AS loaded, then
    every cell voided as an infrastructure fault (OverflowError inside the sandbox) after its engine
    calls were spent, was rerun, and the run exited 3. An infinite backoff would sleep for ever, and
    an infinite budget is no ceiling (omit max_usd for that). Each is refused at load, by key."""
    frozen.write_text(PROTO + "\n" + table + "\n")
    with pytest.raises(InputError) as exc:
        load_protocol(frozen)
    assert exc.value.field == key


def test_a_full_disk_while_resume_repairs_a_torn_line_stops_cleanly_and_keeps_the_ledger(frozen, tmp_path, monkeypatch):
    """The crash repair on --resume (moving a torn last line aside, catching the head up) writes
    before any cell runs; a full disk there gave a Python traceback. It is now docs/reference/exit-codes.md's disk
    stop: one STOPPED line, exit 4, the ledger byte for byte as it was."""
    import errno

    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.ledger import ledger as ledger_mod

    run = tmp_path / "run"
    prepare(frozen, run, engine=None, reviewer_engine=None, model=None, exploratory=False)
    execute(run, limit_cells=2, log=lambda m: None)
    with (run / "records.jsonl").open("ab") as f:
        f.write(b'{"cell_key": "A1|median|null|1", "outc')  # a kill mid-line
    before = (run / "records.jsonl").read_bytes()

    def full(self, torn):
        raise OSError(errno.ENOSPC, "No space left on device", str(self.path) + ".torn")

    monkeypatch.setattr(ledger_mod.Ledger, "_move_torn", full)
    r = CliRunner().invoke(main, ["run", "--resume", str(run)])
    assert r.exit_code == 4 and isinstance(r.exception, SystemExit), r.output
    assert "STOPPED" in r.output and "No space left on device" in r.output
    assert (run / "records.jsonl").read_bytes() == before


def test_an_anchor_for_another_run_is_named_as_such_and_a_negative_seq_is_not_an_anchor(tmp_path):
    """An anchor of run B checked against run A's ledger was reported as 'the chain was rewritten'
    (a false accusation of tampering for a mix-up of files); and an anchor naming seq -1 with the
    last hash passed as 'extends the anchored head (seq -1)'."""
    from harness.ledger.ledger import Ledger, check_anchor, make_anchor

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        led = Ledger(tmp_path / name / "records.jsonl")
        for i in range(2):
            led.append({"cell_key": f"k{i}", "outcome": "completed", "protocol_digest": "d", "run_id": name})
    anchor_b = make_anchor(tmp_path / "b" / "records.jsonl")
    problems, _ = check_anchor(tmp_path / "a" / "records.jsonl", anchor_b)
    assert problems and "run 'b'" in problems[0] and "run 'a'" in problems[0] and "rewritten" not in problems[0]
    a = make_anchor(tmp_path / "a" / "records.jsonl")
    problems, _ = check_anchor(tmp_path / "a" / "records.jsonl", {**a, "seq": -1})
    assert problems and "seq" in problems[0]
    assert check_anchor(tmp_path / "a" / "records.jsonl", {**a, "seq": True})[0]


def test_verify_with_an_anchor_does_not_call_a_torn_ledger_intact(tmp_path):
    """Without --anchor a torn last line makes verify exit 1 (the ledger is not exactly as written);
    with --anchor the same ledger printed 'intact' and exited 0. The verdict must not depend on
    whether an anchor was also given."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    from harness.ledger.ledger import Ledger, make_anchor

    led = Ledger(tmp_path / "records.jsonl")
    for i in range(2):
        led.append({"cell_key": f"k{i}", "outcome": "completed", "protocol_digest": "d", "run_id": "r"})
    (tmp_path / "a.json").write_text(json.dumps(make_anchor(tmp_path / "records.jsonl")))
    with (tmp_path / "records.jsonl").open("ab") as f:
        f.write(b'{"cell_key": "k2", "outc')
    plain = CliRunner().invoke(main, ["ledger", "verify", str(tmp_path)])
    anchored = CliRunner().invoke(main, ["ledger", "verify", str(tmp_path), "--anchor", str(tmp_path / "a.json")])
    assert plain.exit_code == 1
    assert anchored.exit_code == 1 and "intact" not in anchored.output, anchored.output


def test_deeply_nested_json_is_a_clear_error_in_the_ledger_records_and_transcript_loaders(tmp_path):
    """A line of 100,000 nested brackets is valid-looking JSON that overflows the parser's recursion:
    `ledger verify`, `harness analyze` and the transcript loader each died with a RecursionError
    traceback. Each now reports the line as not valid JSON."""
    from analysis.records import read_raw
    from harness.engines.transcript import load_entries
    from harness.ledger.ledger import inspect

    deep = tmp_path / "records.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    assert any(p.startswith("line 1: not a JSON record") for p in inspect(deep).problems)
    with pytest.raises(InputError):
        load_entries(deep)
    with pytest.raises((InputError, ValueError)) as exc:
        read_raw(deep)
    assert ":1:" in str(exc.value)
