"""Residuals a red team found after issue 34's fixes (helper i34res): lines that named the wrong
fault, and the link rule of the one safe reader.

Each command case runs the command as a user does (``python -m harness.cli``) on a small run with
one file replaced, and asserts one line naming the file and what it is, with a non-zero exit (the
README's code for bad input, 2), never the misleading reason the command gave before: a FIFO in
place of ``run.json`` was "missing or torn", a FIFO ``records.jsonl`` was ``malformed_bundle``
with exit 1, a FIFO public key made every cell DIFFERENT with ``signer_key_mismatch``, and ``loop
run``'s hints said "harness loop run TARGET" instead of the target given.

Formerly ``tests/harness/test_faults_r34c.py``, named after its origin."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from harness.core import runio
from tests.harness.cli.test_command_faults import ROOT, assert_one_line

CMD_TIMEOUT = 120  # a FIFO opened for reading never returns: the bound, not a timing check


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=CMD_TIMEOUT, env={**os.environ, "HARNESS_WARM": "0"})


def _fifo_in_place_of(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _says_fifo(p: subprocess.CompletedProcess, name: str) -> None:
    """One ``error:`` line naming ``name`` and saying it is a FIFO, not a regular file."""
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, p.stderr[-2000:]
    assert name in errors[0] and "is a FIFO, not a regular" in errors[0], errors[0]


# -- residual 1: one clear line naming the file and the reason -------------------------------------------
@pytest.mark.parametrize("how", ["resume", "out"])
def test_a_fifo_in_place_of_run_json_is_named_not_called_missing_or_torn(run_copy, how):
    """``--resume`` said "run.json: missing or torn (a kill or a full disk ...)" and sent the user
    to repair it with ``--out``, which would have written over the FIFO. Both now say what it is."""
    _fifo_in_place_of(run_copy / "run.json")
    proto = str(ROOT / "protocols" / "quickstart.toml")
    p = run_cli("run", "--resume", str(run_copy)) if how == "resume" else run_cli("run", proto, "--out", str(run_copy))
    assert_one_line(p, "run", "fifo")
    _says_fifo(p, "run.json")
    assert "missing or torn" not in p.stderr
    assert (run_copy / "run.json").is_fifo()  # left as it was: nothing repaired over it


def test_monitor_names_a_fifo_run_json_as_a_fifo_not_as_unreadable_json(run_copy):
    _fifo_in_place_of(run_copy / "run.json")
    p = run_cli("monitor", str(run_copy))
    assert_one_line(p, "monitor", "fifo")
    _says_fifo(p, "run.json")
    assert "not readable JSON" not in p.stderr


def test_receipts_verify_names_a_fifo_records_file_instead_of_a_malformed_bundle(run_copy, small_run):
    _fifo_in_place_of(run_copy / "records.jsonl")
    p = run_cli("receipts", "verify", str(run_copy), "--public-key", str(small_run / "receipts" / "public_key.pem"))
    assert_one_line(p, "other", "fifo")
    _says_fifo(p, "records.jsonl")
    assert "malformed_bundle" not in p.stdout + p.stderr


def test_receipts_verify_names_a_fifo_planted_as_a_receipt(run_copy, small_run):
    """A receipt the records name, replaced by a FIFO: a failure naming what it is, not "the named
    receipt is not in the run" (it is there; it is not a file)."""
    victim = sorted((run_copy / "receipts").glob("*.json"))[0]
    _fifo_in_place_of(victim)
    p = run_cli("receipts", "verify", str(run_copy), "--public-key", str(small_run / "receipts" / "public_key.pem"))
    assert p.returncode == 1, p.stderr[-2000:]  # a receipt failed: the documented check-failed code
    line = next(ln for ln in p.stdout.splitlines() if victim.stem[:16] in ln)
    assert "is a FIFO, not a regular receipt" in line and "not in the run" not in line, line


def test_rejudge_names_a_fifo_in_place_of_the_published_key(run_copy):
    """Every cell was DIFFERENT with ``signer_key_mismatch (no trusted key ...)``, exit 1: the wrong
    fault (no key mismatches; the key file is not a file). Now one line, exit 2, nothing judged."""
    _fifo_in_place_of(run_copy / "receipts" / "public_key.pem")
    p = run_cli("rejudge", str(run_copy))
    assert_one_line(p, "other", "fifo")
    _says_fifo(p, "public_key.pem")
    assert "signer_key_mismatch" not in p.stdout + p.stderr and "DIFFERENT" not in p.stdout


def test_loop_run_names_the_target_given_in_its_second_writer_line(tmp_path):
    """The lock's refusal (and the --out and full-disk lines, one function) said `harness loop run
    TARGET --resume OUT`; the user has to type the target they gave, so the line names it."""
    from harness.cli.cli import main
    from tests.harness.loop.test_loop_graph_resume import _graph
    graph, out = _graph(tmp_path), tmp_path / "loop"
    out.mkdir()
    with runio.DirLock(out, "loop.lock", "x"):  # a first writer, still running
        res = CliRunner().invoke(main, ["loop", "run", str(graph), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert f"harness loop run {graph} --resume {out}" in res.output and "TARGET" not in res.output, res.output


def test_loop_run_names_the_target_given_when_its_out_already_holds_a_ledger(tmp_path):
    from harness.cli.cli import main
    from tests.harness.loop.test_loop_graph_resume import _graph
    graph, out = _graph(tmp_path), tmp_path / "loop"
    first = CliRunner().invoke(main, ["loop", "run", str(graph), "--out", str(out)])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(main, ["loop", "run", str(graph), "--out", str(out)])
    assert again.exit_code == 2, again.output
    assert f"harness loop run {graph} --resume {out}" in again.output and "TARGET" not in again.output


# -- residual 2: one link rule, in the one reader ----------------------------------------------------------
def test_a_path_the_user_names_is_followed_and_a_file_inside_a_directory_is_not(tmp_path):
    """The rule (runio's docstring): a path named on the command line follows its links (the
    user chose it); a file found by name inside a run, loop, corpus or analysis directory never
    does. Both refuse a FIFO, whichever way they were reached."""
    (tmp_path / "real.json").write_text('{"a": 1}')
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "to-fifo").symlink_to(tmp_path / "fifo")
    assert runio.read_json(tmp_path / "link.json", "protocol", follow=True) == {"a": 1}
    with pytest.raises(runio.NotRegular, match="symbolic link, not a regular run.json; refusing to follow a link "
                                               "inside a run"):
        runio.read_json(tmp_path / "link.json", "run.json")
    for follow in (False, True):
        with pytest.raises(runio.NotRegular):
            runio.read_bytes(tmp_path / "to-fifo", "transcript", follow=follow)
    assert runio.regular_or_absent(tmp_path / "link.json", follow=True)
    assert not runio.regular_or_absent(tmp_path / "absent")
    with pytest.raises(runio.NotRegular, match="symbolic link"):
        runio.regular_or_absent(tmp_path / "link.json")
    with pytest.raises(runio.NotRegular, match="FIFO"):
        runio.regular_or_absent(tmp_path / "fifo")


def test_every_user_named_file_reader_follows_a_link_as_the_protocol_does(tmp_path):
    """The inconsistency: a protocol TOML named through a link was read, a transcript named through
    a link (``--transcript``) was refused ("is a symbolic link"). One rule now: both are read, and a
    link to a FIFO is refused by both in one line."""
    from harness.core.errors import InputError
    from harness.core.tomlfile import load_toml
    from harness.engines.transcript import load_entries
    (tmp_path / "t.jsonl").write_text('{"role": "worker", "reply": {"text": "hi"}}\n')
    (tmp_path / "p.toml").write_text('a = 1\n')
    (tmp_path / "t-link.jsonl").symlink_to(tmp_path / "t.jsonl")
    (tmp_path / "p-link.toml").symlink_to(tmp_path / "p.toml")
    assert load_toml(tmp_path / "p-link.toml") == {"a": 1}
    assert len(load_entries(tmp_path / "t-link.jsonl")) == 1
    os.mkfifo(tmp_path / "fifo")
    for name in ("t-fifo.jsonl", "p-fifo.toml"):
        (tmp_path / name).symlink_to(tmp_path / "fifo")
    with pytest.raises(InputError, match="is a FIFO, not a regular transcript"):
        load_entries(tmp_path / "t-fifo.jsonl")
    with pytest.raises(InputError, match="is a FIFO, not a regular TOML file"):
        load_toml(tmp_path / "p-fifo.toml")


def test_a_link_in_place_of_run_json_is_refused_though_it_points_at_a_valid_one(run_copy, tmp_path):
    """Inside a run directory the rule is strict even for a link to a good file: `view` names it."""
    shutil.copy(run_copy / "run.json", tmp_path / "elsewhere.json")
    (run_copy / "run.json").unlink()
    (run_copy / "run.json").symlink_to(tmp_path / "elsewhere.json")
    p = run_cli("view", str(run_copy), "--out", str(tmp_path / "report"))
    assert_one_line(p, "view", "link")
    assert "run.json" in p.stderr and "symbolic link" in p.stderr, p.stderr[-2000:]
