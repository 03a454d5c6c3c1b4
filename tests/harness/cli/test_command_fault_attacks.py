"""Faults run against every command of docs/reference/cli.md by a helper that did not write the code
(issue 34's acceptance: "a helper that did not write the code runs its own faults against every
command, including the ones this issue does not list"; helper r34c).

Each case runs the command as a user does (``python -m harness.cli``, the guarded entry point) with
one fault planted and asserts issue 34's guarantee: one line naming the file (line, field), the exit
code of docs/reference/exit-codes.md (``harness.core.exits.COMMAND_EXITS``), never a traceback; and
nothing lost. Every test here is a break that still holds at the time of writing: ``xfail(strict=True)``
with what was observed; a fix turns it into a pass (and strict makes the stale mark fail). All 37 were
fixed in shared code (the one reader, the one writer, the bounded TOML loader, the typed rerun) and their
marks removed; ``xfail`` stays for the next break found.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from harness.core.exits import COMMAND_EXITS
from tests.harness.cli.test_command_faults import ROOT, _problem_lines, assert_one_line, harness
from tests.harness.cli.test_command_faults import full_disk as full_disk  # a fixture (a small filled tmpfs)

CMD_TIMEOUT = 120  # the bound on a hang, not a timing check
DEEP_TOML = "a = " + "[" * 100_000 + "]" * 100_000 + "\n"


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return harness(*args, cwd=cwd, timeout=CMD_TIMEOUT)


def no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr and "Aborted" not in p.stderr, p.stderr[-2000:]


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"red team r34c: {reason}")


def _rewrite_record(run: Path, index: int, **fields) -> None:
    """Set ``fields`` in the record on line ``index + 1`` (the chain then no longer verifies)."""
    lines = (run / "records.jsonl").read_text().splitlines()
    rec = json.loads(lines[index])
    rec.update(fields)
    lines[index] = json.dumps(rec)
    (run / "records.jsonl").write_text("\n".join(lines) + "\n")


# -- a wrong type or a null in a record field -----------------------------------------------------------
def test_export_inspect_names_a_wrong_typed_repeat_field(tmp_path, run_copy):
    _rewrite_record(run_copy, 1, repeat="two")
    p = run_cli("export", "inspect", str(run_copy), "--out", str(tmp_path / "logs"))
    assert_one_line(p, "export inspect", "bad input")
    assert "records.jsonl:2" in p.stderr and "repeat" in p.stderr, p.stderr[-2000:]
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize("command", ["view", "export inspect"])
def test_a_null_cell_key_is_one_line_naming_the_field(tmp_path, run_copy, command):
    """monitor, analyze and compare name records.jsonl:2 field 'cell_key' (exit 2); these two did not."""
    _rewrite_record(run_copy, 1, cell_key=None, arm=None)
    out = tmp_path / "out"
    p = run_cli(*command.split(), str(run_copy), "--out", str(out))
    assert_one_line(p, command, "bad input")
    assert "records.jsonl:2" in p.stderr and ("cell_key" in p.stderr or "arm" in p.stderr), p.stderr[-2000:]
    assert not out.exists()


# -- a ledger that is gone while its head remains --------------------------------------------------------
def test_monitor_warns_when_the_ledger_is_gone_and_its_head_remains(run_copy):
    (run_copy / "records.jsonl").unlink()
    p = run_cli("monitor", str(run_copy))
    assert "does not verify" in p.stderr, (p.returncode, p.stdout[-500:], p.stderr[-2000:])
    strict = run_cli("monitor", str(run_copy), "--strict")
    assert_one_line(strict, "monitor", "bad input")


def test_export_bundle_refuses_under_strict_a_run_whose_ledger_is_gone(tmp_path, run_copy):
    (run_copy / "records.jsonl").unlink()
    bundle = tmp_path / "b.tar.gz"
    p = run_cli("export", "bundle", str(run_copy), "--bundle", str(bundle))
    no_traceback(p)
    assert "does not verify" in p.stderr or p.returncode == 2, (p.returncode, p.stderr[-2000:])
    bundle.unlink(missing_ok=True)
    strict = run_cli("export", "bundle", str(run_copy), "--bundle", str(bundle), "--strict")
    assert_one_line(strict, "other", "bad input")
    assert not bundle.exists()


# -- a TOML nested 100,000 deep --------------------------------------------------------------------------
USER_GATE = ROOT / "corpus" / "examples" / "user-gate"
TOML_READERS = {
    "run": lambda f, o: ["run", str(f), "--out", str(o)],
    "plan": lambda f, o: ["plan", str(f)],
    "protocol check": lambda f, o: ["protocol", "check", str(f)],
    "protocol freeze": lambda f, o: ["protocol", "freeze", str(f)],
    "analyze --protocol": lambda f, o: ["analyze", "RECORDS", "--protocol", str(f), "--out", str(o), "--no-figures"],
    "loop plan": lambda f, o: ["loop", "plan", str(f)],
    "loop run": lambda f, o: ["loop", "run", str(f), "--out", str(o)],
    "corpus measure --gate": lambda f, o: ["corpus", "measure", "--gate", str(f), "--artifact",
                                           str(USER_GATE / "release-notes.md"), "--out", str(o)],
    "corpus measure --hints": lambda f, o: ["corpus", "measure", "--gate", str(USER_GATE / "gate.toml"), "--artifact",
                                            str(USER_GATE / "release-notes.md"), "--hints", str(f), "--out", str(o)],
    "corpus measure --config": lambda f, o: ["corpus", "measure", "--loop", "changelog-entry", "--config", str(f),
                                             "--out", str(o)],
}
TOML_TABLE = {"run": "run", "loop run": "loop run", "analyze --protocol": "analyze"}


@pytest.mark.parametrize("command", [
    pytest.param(name) for name in TOML_READERS])
def test_a_toml_nested_100000_deep_is_one_line_naming_the_file(tmp_path, small_run, command):
    toml = tmp_path / "deep.toml"
    toml.write_text(DEEP_TOML)
    out = tmp_path / "out"
    argv = [str(small_run / "records.jsonl") if a == "RECORDS" else a for a in TOML_READERS[command](toml, out)]
    p = run_cli(*argv)
    assert "RecursionError" not in p.stderr and "Traceback" not in p.stderr, p.stderr[-1500:]
    table = TOML_TABLE.get(command, "corpus measure" if command.startswith("corpus") else "other")
    assert p.returncode == 2 and p.returncode in COMMAND_EXITS[table].codes, (p.returncode, p.stderr[-2000:])
    assert str(toml) in p.stderr, p.stderr[-2000:]
    assert not out.exists()


# -- a full disk: the line names the command to rerun ----------------------------------------------------
def _rerun_named(stderr: str) -> str:
    found = re.findall(r"then rerun `([^`]*)`", stderr)
    assert len(found) == 1, stderr[-2000:]
    return found[0]


DISK_RERUNS = {
    "analyze": lambda m, run: ["analyze", str(run / "records.jsonl"), "--protocol",
                               str(ROOT / "protocols" / "quickstart.toml"), "--seed", "7", "--B", "20", "--no-figures",
                               "--out", str(m / "a")],
    "compare": lambda m, run: ["compare", str(run), str(run), "--key", "arm,task,scenario,repeat,factors",
                               "--no-figures", "--out", str(m / "cmp")],
    "ledger anchor": lambda m, run: ["ledger", "anchor", str(run), "--sign-key", str(m.parent / "sk.pem"),
                                     "--out", str(m / "anchor.json")],
    "power": lambda m, run: ["power", "--rate", "A4=0.9", "--rate", "A2p=0.5", "--sims", "5", "--json-out",
                             str(m / "p.json")],
}


@pytest.mark.parametrize("command", [
    pytest.param(name) for name in DISK_RERUNS])
def test_a_full_disk_line_names_the_command_that_was_run(full_disk, small_run, command):
    mnt, fill = full_disk
    if command == "ledger anchor":
        assert run_cli("ledger", "keygen", "--out", str(mnt.parent / "sk.pem")).returncode == 0
    argv = DISK_RERUNS[command](mnt, small_run)
    fill()
    p = run_cli(*argv)
    assert_one_line(p, "other" if command in ("ledger anchor", "power") else command, "disk")
    rerun = _rerun_named(p.stderr).split()
    assert rerun[0] == "harness" and sorted(rerun[1:]) == sorted(argv), (rerun, argv)


def test_a_fresh_run_on_a_full_disk_names_a_rerun_that_works(full_disk):
    mnt, fill = full_disk
    out = mnt / "run"
    fill()
    p = run_cli("run", str(ROOT / "protocols" / "quickstart.toml"), "--limit-cells", "1", "--out", str(out))
    no_traceback(p)
    assert p.returncode in (2, 4) and len(_problem_lines(p.stderr)) == 1, (p.returncode, p.stderr[-2000:])
    (mnt / "filler").unlink()
    named = re.findall(r"`(harness run [^`]*)`", p.stderr)
    assert named, p.stderr[-2000:]
    if "--resume" in named[0]:  # the line says to resume: there must be a run to resume
        assert (out / "run.json").is_file(), (p.stderr[-2000:], sorted(os.listdir(out)) if out.exists() else None)


# -- import inspect: a log it cannot read among the logs --------------------------------------------------
@pytest.fixture(scope="module")
def eval_logs(tmp_path_factory, small_run) -> Path:
    logs = tmp_path_factory.mktemp("evals") / "logs"
    p = run_cli("export", "inspect", str(small_run), "--out", str(logs))
    assert p.returncode == 0, p.stderr[-2000:]
    return logs


def test_import_inspect_names_a_fifo_among_the_logs(tmp_path, eval_logs):
    logs = Path(shutil.copytree(eval_logs, tmp_path / "logs"))
    victim = sorted(logs.glob("*.eval"))[0]
    victim.unlink()
    os.mkfifo(victim)
    out = tmp_path / "imported.jsonl"
    p = run_cli("import", "inspect", str(logs), "--arm-from", "task", "--out", str(out))
    assert_one_line(p, "other", "fifo")
    assert victim.name in p.stderr and "FIFO" in p.stderr, p.stderr[-2000:]
    assert not out.exists()


# -- a file the user names, through a link ----------------------------------------------------------------
@pytest.mark.parametrize("option", [
    "--anchor", "--public-key", "--sign-key",
])
def test_a_user_named_key_or_anchor_is_read_through_a_link(tmp_path, small_run, option):
    keys = tmp_path / "keys"
    keys.mkdir()
    assert run_cli("ledger", "keygen", "--out", str(keys / "sk.pem")).returncode == 0
    (tmp_path / "sk-link.pem").symlink_to(keys / "sk.pem")
    (tmp_path / "pub-link.pem").symlink_to(keys / "sk.pem.pub")
    anchor = tmp_path / "anchor.json"
    assert run_cli("ledger", "anchor", str(small_run), "--sign-key", str(keys / "sk.pem"), "--out",
                   str(anchor)).returncode == 0
    (tmp_path / "anchor-link.json").symlink_to(anchor)
    argv = {"--anchor": ["ledger", "verify", str(small_run), "--anchor", str(tmp_path / "anchor-link.json")],
            "--public-key": ["ledger", "verify", str(small_run), "--anchor", str(anchor), "--public-key",
                             str(tmp_path / "pub-link.pem")],
            "--sign-key": ["ledger", "anchor", str(small_run), "--sign-key", str(tmp_path / "sk-link.pem"),
                           "--out", str(tmp_path / "anchor2.json")]}[option]
    p = run_cli(*argv)
    assert p.returncode == 0 and "symbolic link" not in p.stderr, (p.returncode, p.stderr[-2000:])


# -- receipts verify: a key that is not a key -------------------------------------------------------------
def test_receipts_verify_names_an_unreadable_public_key_as_bad_input(tmp_path, small_run):
    key = tmp_path / "key.pem"
    key.write_text("not a key\n")
    p = run_cli("receipts", "verify", str(small_run), "--public-key", str(key))
    assert_one_line(p, "other", "bad input")
    assert str(key) in p.stderr, p.stderr[-2000:]


def test_the_bundle_of_an_intact_run_holds_its_ledger(tmp_path, small_run):
    """The control of the bundle case above: an intact run's bundle carries records.jsonl."""
    bundle = tmp_path / "b.tar.gz"
    p = run_cli("export", "bundle", str(small_run), "--bundle", str(bundle))
    assert p.returncode == 0, p.stderr[-2000:]
    with tarfile.open(bundle) as tar:
        assert any(n.endswith("records.jsonl") for n in tar.getnames())


# -- a hand-written transcript with a bad line in the middle ----------------------------------------------
def test_a_bad_transcript_line_is_named_by_its_line_in_the_file(tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"role": "worker", "reply": {"text": "a"}}\n'
                          '{"role": "worker", "reply": {"text": "b"}}\n'
                          '{"role": bad\n'
                          '{"role": "worker", "reply": {"text": "c"}}\n')
    out = tmp_path / "run"
    p = run_cli("run", str(ROOT / "protocols" / "quickstart.toml"), "--engine", "replay", "--transcript",
                str(transcript), "--limit-cells", "1", "--out", str(out))
    assert_one_line(p, "run", "bad input")
    assert f"{transcript}:3" in p.stderr, p.stderr[-2000:]


# -- corpus reviewer: an item with a wrong-typed field ----------------------------------------------------
def test_corpus_reviewer_names_a_wrong_typed_item_field(tmp_path):
    items = tmp_path / "items.json"
    items.write_text(json.dumps([{"prompt": "p", "diff": 5, "is_defective": "yes"}]))
    p = run_cli("corpus", "reviewer", "--items", str(items))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1, (p.returncode, p.stdout[-500:], p.stderr[-2000:])
    assert str(items) in p.stderr and ("is_defective" in p.stderr or "diff" in p.stderr), p.stderr[-2000:]


# -- run --resume: a run file whose field has the wrong type -------------------------------------------
def test_resume_names_a_wrong_typed_spend_ledger_field_before_any_cell(run_copy):
    (run_copy / "spend.json").write_text('{"spent_usd": "lots"}')
    before = (run_copy / "records.jsonl").read_bytes()
    p = run_cli("run", "--resume", str(run_copy), "--limit-cells", "1")
    assert_one_line(p, "run", "bad input")
    assert "spend.json" in p.stderr and "spent_usd" in p.stderr, p.stderr[-2000:]
    assert (run_copy / "records.jsonl").read_bytes() == before  # refused before the first cell


def test_resume_names_a_wrong_typed_run_json_field(run_copy):
    meta = json.loads((run_copy / "run.json").read_text())
    meta["protocol"] = 5
    (run_copy / "run.json").write_text(json.dumps(meta))
    p = run_cli("run", "--resume", str(run_copy), "--limit-cells", "1")
    assert_one_line(p, "run", "bad input")
    assert "run.json" in p.stderr and "protocol" in p.stderr.replace(str(run_copy), "") \
        and "missing or torn" not in p.stderr, p.stderr[-2000:]


# -- corpus apply: the one command that writes into the user's own file ----------------------------------
@pytest.fixture
def measured_user_gate(full_disk, tmp_path):
    """The example user gate copied onto a small tmpfs, measured with --out outside it."""
    mnt, fill = full_disk
    gate = Path(shutil.copytree(USER_GATE, mnt / "ug"))
    out = tmp_path / "measured"
    p = run_cli("corpus", "measure", "--gate", str(gate / "gate.toml"), "--artifact", str(gate / "release-notes.md"),
                "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    return gate / "release-notes.md", out, fill


def _set_mutant(out: Path, operator: str, **fields) -> str:
    rows = [json.loads(ln) for ln in (out / "mutants.jsonl").read_text().splitlines()]
    row = next(r for r in rows if r["operator"] == operator)
    row.update(fields)
    (out / "mutants.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return row["id"]


def test_corpus_apply_on_a_full_disk_leaves_the_artifact_as_it_was(measured_user_gate):
    artifact, out, fill = measured_user_gate
    before = artifact.read_bytes()
    mutant = _set_mutant(out, "add_comment", replacement=(b"<!-- " + b"x" * 2_000_000 + b" -->").hex())
    fill()
    p = run_cli("corpus", "apply", mutant, "--out", str(out))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1, (p.returncode, p.stderr[-2000:])
    assert artifact.read_bytes() == before, len(artifact.read_bytes())
    assert str(artifact) in p.stderr, p.stderr[-2000:]


def test_corpus_apply_names_a_malformed_mutant_field(tmp_path):
    gate = Path(shutil.copytree(USER_GATE, tmp_path / "ug"))
    out = tmp_path / "measured"
    assert run_cli("corpus", "measure", "--gate", str(gate / "gate.toml"), "--artifact",
                   str(gate / "release-notes.md"), "--out", str(out)).returncode == 0
    before = (gate / "release-notes.md").read_bytes()
    mutant = _set_mutant(out, "add_comment", replacement="not hex")
    p = run_cli("corpus", "apply", mutant, "--out", str(out))
    assert_one_line(p, "other", "bad input")
    assert "mutants.jsonl" in p.stderr and "replacement" in p.stderr, p.stderr[-2000:]
    assert (gate / "release-notes.md").read_bytes() == before


# -- view of an analysis folder whose report is a FIFO -----------------------------------------------------
def test_view_names_a_fifo_in_place_of_the_analysis_report(tmp_path, small_run):
    analysis = tmp_path / "analysis"
    assert run_cli("analyze", str(small_run / "records.jsonl"), "--no-figures", "--B", "20", "--out",
                   str(analysis)).returncode == 0
    (analysis / "report.md").unlink()
    os.mkfifo(analysis / "report.md")
    p = run_cli("view", str(small_run), "--analysis", str(analysis), "--out", str(tmp_path / "report"))
    assert_one_line(p, "view", "fifo")
    assert "report.md" in p.stderr and "FIFO" in p.stderr, p.stderr[-2000:]


# -- protocol freeze on a full disk ----------------------------------------------------------------------
def test_protocol_freeze_on_a_full_disk_names_the_lock_and_its_file_system(full_disk):
    mnt, fill = full_disk
    shutil.copytree(ROOT / "tasks", mnt / "tasks")
    (mnt / "p").mkdir()
    for name in ("quickstart.toml", "quickstart.lock.json"):
        shutil.copy(ROOT / "protocols" / name, mnt / "p" / name)
    lock = mnt / "p" / "quickstart.lock.json"
    before = lock.read_bytes()
    fill()
    p = run_cli("protocol", "freeze", str(mnt / "p" / "quickstart.toml"), "--note", "x")
    assert_one_line(p, "other", "disk")
    assert lock.read_bytes() == before
    assert str(lock) in p.stderr and "--out" not in p.stderr and f"holding {mnt}" in p.stderr, p.stderr[-2000:]


# -- loop run on a full disk: the rerun it names ----------------------------------------------------------
def test_loop_run_on_a_full_disk_names_a_rerun_that_continues(full_disk):
    mnt, fill = full_disk
    out = mnt / "loop"
    argv = ["loop", "run", str(ROOT / "corpus" / "catalogue" / "changelog-entry"), "--runs", "2", "--seed", "5",
            "--out", str(out)]
    fill()
    p = run_cli(*argv)
    assert_one_line(p, "loop run", "disk")
    rerun = _rerun_named(p.stderr).split()
    assert {"--runs", "2", "--seed", "5"} <= set(rerun), rerun
    (mnt / "filler").unlink()
    again = run_cli(*rerun[1:])
    assert again.returncode == 0, again.stderr[-2000:]


@pytest.mark.parametrize("command", ["import inspect", "ledger keygen"])
def test_a_full_disk_line_names_the_file_system_that_is_full(full_disk, eval_logs, command):
    mnt, fill = full_disk
    argv = {"import inspect": ["import", "inspect", str(eval_logs), "--arm-from", "task", "--out",
                               str(mnt / "imported.jsonl")],
            "ledger keygen": ["ledger", "keygen", "--out", str(mnt / "k.pem")]}[command]
    fill()
    p = run_cli(*argv)
    assert_one_line(p, "other", "disk")
    held = re.findall(r"free space on the file system holding (\S+?),", p.stderr)
    assert held and Path(held[0]).resolve().is_relative_to(mnt.resolve()), (held, p.stderr[-2000:])
