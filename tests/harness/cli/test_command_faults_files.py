"""Faults a fresh review found (issue 34, helper r34b): commands and files the first campaign
(tests/harness/cli/test_command_faults.py) did not reach.

Each case runs the command as a user does (``python -m harness.cli``, the guarded entry point) on a
small input with one fault planted, and asserts the guarantee of issue 34: one line naming the file
(and line) with the exit code of docs/reference/exit-codes.md (``harness.core.exits.COMMAND_EXITS``), never a hang, a
traceback, a ``RecursionError`` or ``Aborted!``; and nothing lost or left partial.

Formerly ``tests/harness/test_faults_r34b.py``, named after its origin.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.harness.cli.test_command_faults import DEEP, ROOT, _problem_lines, assert_one_line, harness
from tests.harness.cli.test_command_faults import full_disk as full_disk  # a fixture (a small filled tmpfs)

CMD_TIMEOUT = 120  # a hang (a FIFO opened for reading or writing) never returns: the bound, not a timing check


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return harness(*args, timeout=CMD_TIMEOUT)


def no_traceback(p: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in p.stderr and "RecursionError" not in p.stderr and "Aborted" not in p.stderr, \
        p.stderr[-2000:]


# -- fixtures: one small corpus measurement, one small run (built once, copied per case) ---------------
@pytest.fixture(scope="module")
def corpus_out(tmp_path_factory) -> Path:
    """A finished `harness corpus measure` of one small catalogue loop (changelog-entry: 9 judgments)."""
    out = tmp_path_factory.mktemp("corpus") / "out"
    p = run_cli("corpus", "measure", "--loop", "changelog-entry", "--out", str(out))
    assert p.returncode == 0, p.stderr[-2000:]
    return out


@pytest.fixture
def corpus_copy(tmp_path, corpus_out) -> Path:
    return Path(shutil.copytree(corpus_out, tmp_path / "out", symlinks=True))


# -- the corpus measurement's own files ----------------------------------------------------------------
def test_a_fifo_in_place_of_the_judgment_cache_is_one_line_never_a_hang(corpus_copy):
    """`corpus measure` reads and appends judgment-cache.jsonl: a FIFO there was skipped by the
    reader (not a file) and then opened for appending, which waits for a reader forever."""
    cache = corpus_copy / "judgment-cache.jsonl"
    cache.unlink()
    os.mkfifo(cache)
    p = run_cli("corpus", "measure", "--loop", "changelog-entry", "--out", str(corpus_copy))
    assert_one_line(p, "corpus measure", "fifo")
    assert "judgment-cache.jsonl" in p.stderr and "FIFO" in p.stderr


@pytest.mark.parametrize("name", ["judgment-cache.jsonl", "judgments.partial.jsonl"])
def test_a_line_nested_100000_deep_in_the_cache_or_journal_is_skipped_never_a_recursion_error(corpus_copy, name):
    """The cache and the journal skip a line they cannot use (a torn line after a kill); a line
    nested 100,000 deep is such a line, not a RecursionError traceback. The measurement finishes."""
    from corpus.cli import CACHE, JOURNAL
    assert name in (CACHE, JOURNAL)
    with (corpus_copy / name).open("a") as f:
        f.write(DEEP + "\n")
    p = run_cli("corpus", "measure", "--loop", "changelog-entry", "--out", str(corpus_copy))
    no_traceback(p)
    assert p.returncode == 0, p.stderr[-2000:]


@pytest.mark.parametrize("command", ["results", "show", "retest"])
def test_a_line_nested_100000_deep_in_mutants_jsonl_names_the_file_and_line(corpus_copy, command):
    lines = (corpus_copy / "mutants.jsonl").read_text().splitlines()
    (corpus_copy / "mutants.jsonl").write_text("\n".join([*lines[:2], DEEP, *lines[2:]]) + "\n")
    mutant = lines[1].split('"id": "')[1].split('"')[0]
    argv = {"results": ["results", "--all"], "show": ["show", mutant], "retest": ["retest", mutant]}[command]
    p = run_cli("corpus", *argv, "--out", str(corpus_copy))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1, p.stderr[-2000:]
    assert f"{corpus_copy / 'mutants.jsonl'}:3" in p.stderr


@pytest.mark.parametrize("fault", ["not-utf8", "huge-field", "fifo", "symlink"])
@pytest.mark.parametrize("command", ["results", "show"])
def test_a_bad_judgments_csv_is_one_line_naming_it(corpus_copy, command, fault):
    """judgments.csv was read with the csv module by hand: a non-UTF-8 byte or a field over csv's
    field limit was a traceback, and a link planted in its place was followed."""
    path = corpus_copy / "judgments.csv"
    if fault == "not-utf8":
        path.write_bytes(b"\xff\xfe" + path.read_bytes())
    elif fault == "huge-field":
        path.write_text(path.read_text() + '"' + "x" * 200_000 + '"\n')
    elif fault == "fifo":
        path.unlink()
        os.mkfifo(path)
    else:
        real = corpus_copy.parent / "elsewhere.csv"
        path.rename(real)
        path.symlink_to(real)
    argv = {"results": ["results", "--all"], "show": ["show", "changelog-entry/v1/empty/0"]}[command]
    p = run_cli("corpus", *argv, "--out", str(corpus_copy))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1, p.stderr[-2000:]
    assert "judgments.csv" in p.stderr


# -- a run's receipt key ---------------------------------------------------------------------------------
@pytest.mark.parametrize("damage", [b"not a key\n", b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
def test_a_damaged_receipt_key_is_one_line_naming_it_on_resume(run_copy, damage):
    """`run --resume` signs with DIR/keys/receipt-signing.pem: an unreadable PEM there was a
    ValueError traceback with exit 1 (not in docs/reference/exit-codes.md's table for run)."""
    key = run_copy / "keys" / "receipt-signing.pem"
    key.write_bytes(damage)
    before = (run_copy / "records.jsonl").read_bytes()
    p = run_cli("run", "--resume", str(run_copy), "--limit-cells", "1")
    assert_one_line(p, "run", "bad input")
    assert str(key) in p.stderr
    assert (run_copy / "records.jsonl").read_bytes() == before


# -- loop run's TARGET -----------------------------------------------------------------------------------
def test_a_fifo_as_the_loop_target_is_one_line(tmp_path):
    """TARGET is a graph TOML, a loop directory or a catalogue: a FIFO (click's exists=True lets
    it through) was taken for a directory and listed: a NotADirectoryError traceback."""
    fifo = tmp_path / "graph.toml"
    os.mkfifo(fifo)
    p = run_cli("loop", "run", str(fifo), "--out", str(tmp_path / "out"))
    assert_one_line(p, "loop run", "fifo")
    assert str(fifo) in p.stderr and "FIFO" in p.stderr
    assert not (tmp_path / "out").exists()


# -- ledger readers that did not verify ----------------------------------------------------------------
def _edit_a_record(run: Path) -> None:
    """Change one recorded outcome in place (the chain no longer verifies)."""
    text = (run / "records.jsonl").read_text()
    edited = text.replace('"acceptance_edited":false', '"acceptance_edited":true', 1)
    assert edited != text
    (run / "records.jsonl").write_text(edited)


@pytest.mark.parametrize("command", ["export bundle", "rejudge"])
def test_an_edited_ledger_is_warned_about_and_strict_refuses(tmp_path, run_copy, command):
    """`export bundle` published an edited ledger as evidence, and `rejudge` said "identical" over
    one, without a word; every other ledger reader warns (issue 34, item 7)."""
    _edit_a_record(run_copy)
    argv = {"export bundle": ["export", "bundle", str(run_copy), "--bundle", str(tmp_path / "b.tar.gz")],
            "rejudge": ["rejudge", str(run_copy), "--sample", "1"]}[command]
    p = run_cli(*argv)
    no_traceback(p)
    assert "does not verify" in p.stderr, p.stderr[-2000:]
    (tmp_path / "b.tar.gz").unlink(missing_ok=True)
    strict = run_cli(*argv, "--strict")
    assert strict.returncode == 2 and len(_problem_lines(strict.stderr)) == 1, strict.stderr[-2000:]
    assert "--strict refuses" in strict.stderr and not (tmp_path / "b.tar.gz").exists()


# -- schema records --validate ---------------------------------------------------------------------------
def test_a_fifo_given_to_schema_validate_is_one_line_never_a_hang(tmp_path):
    """click's ``Path(exists=True)`` lets a FIFO through, and open() on it waits for a writer forever."""
    fifo = tmp_path / "records.jsonl"
    os.mkfifo(fifo)
    p = run_cli("schema", "records", "--validate", str(fifo))
    assert_one_line(p, "other", "fifo")
    assert str(fifo) in p.stderr and "FIFO" in p.stderr


# -- a full disk under the commands that wrote by hand -------------------------------------------------
@pytest.fixture(scope="module")
def eval_logs(tmp_path_factory, small_run) -> Path:
    logs = tmp_path_factory.mktemp("evals") / "logs"
    p = run_cli("export", "inspect", str(small_run), "--out", str(logs))
    assert p.returncode == 0, p.stderr[-2000:]
    return logs


def _outputs(mnt: Path) -> list[Path]:
    """Every output file the command left on the filled file system (the filler apart, and a
    single-writer lock file: it holds no output, only its holder's PID when there is room for it)."""
    return [f for f in mnt.rglob("*") if f.is_file() and f.name != "filler" and f.suffix != ".lock"]


DISK_WRITERS = {
    "import inspect": lambda m, run, logs: ["import", "inspect", str(logs), "--arm-from", "task", "--out",
                                            str(m / "imported.jsonl")],
    "reproduce paper": lambda m, run, logs: ["reproduce", "paper", "--records", str(run / "records.jsonl"),
                                             "--out", str(m / "rp"), "--B", "20"],
    "reproduce bounded-loops": lambda m, run, logs: ["reproduce", "bounded-loops", "--out", str(m / "bl")],
    "reproduce synth-paper": lambda m, run, logs: ["reproduce", "synth-paper", "--out", str(m / "s.jsonl")],
    "reproduce synth-paired": lambda m, run, logs: ["reproduce", "synth-paired", "--out-a", str(m / "a.jsonl"),
                                                    "--out-b", str(m / "b.jsonl")],
    "ledger keygen": lambda m, run, logs: ["ledger", "keygen", "--out", str(m / "key.pem")],
    "power --monitor": lambda m, run, logs: ["power", "--monitor", "--rate", "A4=0.9", "--rate", "A2p=0.5",
                                             "--sims", "5", "--max-units", "20", "--json-out", str(m / "pw.json")],
}


@pytest.mark.parametrize("command", list(DISK_WRITERS))
def test_a_full_disk_leaves_nothing_under_a_final_name(full_disk, small_run, eval_logs, command):
    """Each of these wrote its output in place: a full disk left an empty file under its final name
    (an empty private key, which a rerun then refused to overwrite; an empty records file; an empty
    analysis table), while the one line said nothing was written. Now: one line, exit 2, nothing there."""
    mnt, fill = full_disk
    fill()
    p = run_cli(*DISK_WRITERS[command](mnt, small_run, eval_logs))
    assert_one_line(p, command.split()[0] if command.startswith("reproduce") else "other", "disk")
    assert "disk is full" in p.stderr and "then rerun" in p.stderr, p.stderr[-2000:]
    assert _outputs(mnt) == [], _outputs(mnt)
    assert not [n for n in os.listdir(mnt) if "staging" in n]


# -- a signal in the exit path -----------------------------------------------------------------------------
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("point,code", [("returned", 4), ("finished", 0)])
def test_a_signal_at_the_end_of_a_command_is_its_stopped_line_or_leaves_its_exit_code(small_run, sig, point, code):
    """The signal is sent by the harness itself at an exact instruction (``HARNESS_TEST_SIGNAL``,
    harness.cli.startup.signal_point), not by racing a sleep against the command's last line.
    ``returned``: the command has returned, its finish not yet stored: the command's STOPPED line
    and exit 4; it was click's "Aborted!" and exit 1 (the signal raised outside the command's own
    handlers, in 1 test-all run of 3). ``finished``: the exit path: the command's own code (0) stands,
    nothing more is printed; before the exit handler it was an "Exception ignored in
    threading._shutdown" traceback with exit 0, or a KeyboardInterrupt out of the top level (-2)."""
    p = subprocess.run([sys.executable, "-m", "harness.cli", "ledger", "verify", str(small_run)], cwd=ROOT,
                       capture_output=True, text=True, timeout=CMD_TIMEOUT,
                       env={**os.environ, "HARNESS_TEST_SIGNAL": f"{point}:{sig}"})
    no_traceback(p)
    assert "intact" in p.stdout, p.stdout  # the command ran to its end either way
    assert p.returncode == code, (p.returncode, p.stderr[-2000:])
    if code == 4:
        assert_one_line(p, "ledger verify", "signal")
        assert p.stderr.startswith(f"STOPPED: {sig} during `harness ledger verify`"), p.stderr
    else:
        assert p.stderr == "", p.stderr


@pytest.mark.parametrize("point,code", [("returned", 4), ("finished", 0)])
def test_export_inspect_answers_sigterm_at_its_end_with_the_documented_line(tmp_path, small_run, point, code):
    """`harness export inspect` (the red team: its SIGTERM wording differed from the table's): at the
    same two points, the table's STOPPED line and exit 4, or its own exit 0 and nothing printed."""
    p = subprocess.run([sys.executable, "-m", "harness.cli", "export", "inspect", str(small_run), "--out",
                        str(tmp_path / "logs")], cwd=ROOT, capture_output=True, text=True, timeout=CMD_TIMEOUT,
                       env={**os.environ, "HARNESS_TEST_SIGNAL": f"{point}:SIGTERM"})
    no_traceback(p)
    assert p.returncode == code, (p.returncode, p.stderr[-2000:])
    problems = _problem_lines(p.stderr)
    if code == 4:
        assert_one_line(p, "export inspect", "signal")
        assert problems[0].startswith("STOPPED: SIGTERM during `harness export inspect`: stopped before it finished")
    else:
        assert problems == [] and "eval log(s)" in p.stdout, p.stderr[-2000:]


def test_a_second_signal_in_the_exit_path_exits_at_once_with_the_commands_code(small_run):
    """The first signal after the finish is let go; a second ends the process at once with the
    command's code, never the signal's default (-15) or a traceback."""
    code = ("import os, signal, sys\n"
            "from harness.cli import startup\n"
            "startup.mark_program()\n"
            "startup.arm_command('harness x')\n"
            "startup.finish_command(3)\n"
            "signal.raise_signal(signal.SIGTERM)\n"  # let go
            "print('still here', flush=True)\n"
            "signal.raise_signal(signal.SIGTERM)\n"  # exits with 3
            "print('not reached', flush=True)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=CMD_TIMEOUT)
    assert (p.returncode, p.stdout, p.stderr) == (3, "still here\n", "")


def test_view_of_a_compare_folder_on_a_full_disk_is_one_line_naming_what_to_rerun(full_disk, tmp_path, small_run):
    """`harness view DIR` on a `harness compare --out DIR` redraws the page in DIR itself: a full disk
    there was "error: [Errno 28] No space left on device" (no file, no rerun), and its stylesheet was
    written in place (a partial file under its final name)."""
    mnt, fill = full_disk
    cmp = mnt / "cmp"
    p = run_cli("compare", str(small_run), str(small_run), "--out", str(cmp), "--no-figures", "--key",
                "arm,task,scenario,repeat,factors")
    assert p.returncode == 0, p.stderr[-2000:]
    fill()
    p = run_cli("view", str(cmp))
    assert_one_line(p, "view", "disk")
    assert "disk is full" in p.stderr and f"harness view {cmp}" in p.stderr, p.stderr[-2000:]
    assert not [f for f in cmp.rglob("*") if f.is_file() and f.stat().st_size == 0]


# -- two writers at once ---------------------------------------------------------------------------------
def _at_once(argvs: list[list[str]]) -> list[tuple[int, str]]:
    procs = [subprocess.Popen([sys.executable, "-m", "harness.cli", *a], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for a in argvs]
    return [(p.wait(timeout=CMD_TIMEOUT), p.stderr.read() if p.stderr else "") for p in procs]


def test_two_bounded_loops_reproductions_into_one_out_leave_one_verified_ledger(tmp_path):
    """Both appended to one ledger.jsonl and both exited 0: 150-290 chain problems. Now one writer
    holds reproduce.lock; another is refused naming it (exit 2), or runs after it."""
    from harness.ledger.ledger import inspect
    out = tmp_path / "bl"
    results = _at_once([["reproduce", "bounded-loops", "--out", str(out)]] * 3)
    codes = sorted(code for code, _ in results)
    assert codes[0] == 0 and set(codes) <= {0, 2}, results
    assert all("reproduce.lock" in err and "PID" in err for code, err in results if code == 2)
    ins = inspect(out / "ledger.jsonl")
    assert not ins.problems, ins.problems[:3]


def test_a_new_records_file_is_never_written_over_another(tmp_path):
    """`import inspect --out FILE` checks FILE is new, then writes it: a second import finishing
    in between appended to the same ledger (an interleaved chain). write_records now links the
    whole ledger into place, never over a file: the loser gets FileExistsError (one line in the
    command) and the first file is as it was."""
    from harness.ledger.ledger import inspect
    from harness.run.records import write_records
    out = tmp_path / "imported.jsonl"
    assert write_records(out, [{"cell_key": "a|t|s|1", "arm": "a"}]) == 1
    before = out.read_bytes(), out.with_suffix(".head").read_bytes()
    with pytest.raises(FileExistsError):
        write_records(out, [{"cell_key": "b|t|s|1", "arm": "b"}])
    assert (out.read_bytes(), out.with_suffix(".head").read_bytes()) == before
    assert not inspect(out).problems
    assert not [n for n in os.listdir(tmp_path) if "staging" in n]


# -- the files a user names to corpus measure --------------------------------------------------------------
USER_GATE = ROOT / "corpus" / "examples" / "user-gate"


@pytest.mark.parametrize("option", ["--gate", "--hints", "--config", "--frozen"])
def test_a_fifo_named_to_corpus_measure_is_one_line_never_a_hang(tmp_path, option):
    """--gate, --hints, --config (TOML) and --frozen (JSON) were read with read_bytes/read_text:
    a FIFO named there (click's exists=True lets it through) hung the measurement before it began."""
    fifo = tmp_path / "named"
    os.mkfifo(fifo)
    base = {"--gate": ["--gate", str(fifo), "--artifact", str(USER_GATE / "release-notes.md")],
            "--hints": ["--gate", str(USER_GATE / "gate.toml"), "--artifact", str(USER_GATE / "release-notes.md"),
                        "--hints", str(fifo)],
            "--config": ["--loop", "changelog-entry", "--config", str(fifo)],
            "--frozen": ["--loop", "changelog-entry", "--frozen", str(fifo)]}[option]
    p = run_cli("corpus", "measure", *base, "--out", str(tmp_path / "out"))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1, p.stderr[-2000:]
    assert str(fifo) in p.stderr and "FIFO" in p.stderr


def test_a_freeze_file_nested_100000_deep_is_one_line(tmp_path):
    frozen = tmp_path / "freeze.json"
    frozen.write_text(DEEP)
    p = run_cli("corpus", "measure", "--loop", "changelog-entry", "--frozen", str(frozen), "--out", str(tmp_path / "o"))
    no_traceback(p)
    assert p.returncode == 2 and len(_problem_lines(p.stderr)) == 1 and str(frozen) in p.stderr, p.stderr[-2000:]


def test_ledger_verify_names_a_fifo_in_place_of_the_ledger(run_copy):
    """It said "no records.jsonl here" of a run whose records.jsonl is a FIFO (a file check that a
    FIFO fails); the safe reader names what is there."""
    (run_copy / "records.jsonl").unlink()
    os.mkfifo(run_copy / "records.jsonl")
    p = run_cli("ledger", "verify", str(run_copy))
    assert_one_line(p, "ledger verify", "fifo")
    assert "FIFO" in p.stderr and "no records.jsonl" not in p.stderr, p.stderr[-2000:]
