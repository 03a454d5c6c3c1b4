"""One exception root, one exit-code table, and the documented fault table (docs/reference/exit-codes.md, the
README's until issue 36) in agreement (issue 22)."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import harness
from harness.core.errors import ExitCode, HarnessError, InputError
from harness.core.exits import EXIT_CODES, RUN_EXIT_CODES, exit_code_for
from harness.core.outcomes import RunStop
from harness.core.registry import RegistryError

ROOT = Path(__file__).resolve().parents[3]

# Exception classes outside the root, each with its reason: these files run outside the harness
# process, standard library only, and must not import the harness package (an import there could
# load a module the agent planted in the tree under test).
OUTSIDE_THE_ROOT = {
    "harness.judge.subject_rpc.RemoteError": "subject_rpc.py is copied into the judged run's subject (stdlib only)",
    "harness.judge.subject_rpc.Closed": "subject_rpc.py is copied into the judged run's subject (stdlib only)",
    "harness.judge.subject_rpc.ProtocolFault": "subject_rpc.py is copied into the judged run's subject (stdlib only)",
    "harness.judge.judge.Undecidable": "a TypeError by design: a comparison the judge cannot decide raises it where "
                                       "Python's own undecidable comparisons raise TypeError, and the site it is "
                                       "raised at fails the test (it never leaves the judge)",
    "harness.sandbox.warm.RunLost": "warm.py is also the zygote script, run as `python -I harness/sandbox/warm.py` (stdlib only)",
    "harness.judge.probe_runtime._Unjoinable": "probe_runtime.py runs in the judged run's driver (stdlib only), and this "
                                               "is pytest's TypeError from joining an exception's notes for a match",
    "harness.cli.startup.Interrupted": "a KeyboardInterrupt (a signal, not an error): every `except Exception` lets it "
                                       "pass, and startup.py loads before the harness package (stdlib only)",
}


def _harness_exception_classes() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(harness.__path__, "harness."):
        if info.name.endswith(".__main__"):  # ``python -m`` entry points run the command when imported
            continue
        mod = importlib.import_module(info.name)
        for name, obj in vars(mod).items():
            if inspect.isclass(obj) and issubclass(obj, BaseException) and obj.__module__ == info.name:
                found[f"{info.name}.{name}"] = obj
    return found


def test_every_harness_exception_derives_from_the_one_root():
    classes = _harness_exception_classes()
    assert len(classes) >= 25  # the walk found the package's exceptions (26 when the root was added)
    outside = sorted(n for n, c in classes.items() if not issubclass(c, HarnessError))
    assert outside == sorted(OUTSIDE_THE_ROOT), outside
    # the root does not change what the old bases caught
    from harness.core.registry import UnknownPart
    from harness.engines.deadline import ReplyCut
    from harness.engines.live import MalformedReply
    assert issubclass(ReplyCut, ConnectionError) and issubclass(MalformedReply, ValueError)
    assert issubclass(UnknownPart, KeyError)


def test_exit_code_follows_the_class_hierarchy():
    class Narrower(InputError):
        pass
    assert exit_code_for(Narrower("f", "k", "m")) is ExitCode.BAD_INPUT
    assert exit_code_for(RegistryError("x")) is ExitCode.BAD_INPUT
    assert exit_code_for(FileNotFoundError(2, "gone")) is ExitCode.STOPPED  # an OSError outside a cell
    assert exit_code_for(ValueError("a bug")) is None  # not in the table: it surfaces
    assert all(issubclass(c, HarnessError) or c is OSError for c in EXIT_CODES)


EXIT_PAGE = ROOT / "docs" / "reference" / "exit-codes.md"  # the README's tables until issue 36 moved them


def _documented_fault_rows() -> list[tuple[str, str, str]]:
    text = EXIT_PAGE.read_text()
    section = text.split("## harness run: the fault table", 1)[1]
    table = section.split("| what happened | what the run does | exit |", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in table.strip().splitlines()[1:]:  # after the |---| line
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append((cells[0], cells[1], cells[-1]))
    return rows


def test_the_documented_fault_table_matches_the_code():
    rows = _documented_fault_rows()
    assert len(rows) >= 5
    codes = {int(code) for _, _, code in rows if code.isdigit()}
    assert codes == {int(c) for c in RUN_EXIT_CODES}  # no code the page has and the code lacks, or back
    by_code = {c: " ".join(w + " " + d for w, d, code in rows if code == str(int(c))).lower() for c in ExitCode}
    # each exception of the table is the page's reason for its code
    phrase = {InputError: "bad input", RegistryError: "bad input", OSError: "disk"}
    assert set(phrase) == set(EXIT_CODES)
    for cls, code in EXIT_CODES.items():
        assert phrase[cls] in by_code[code], (cls, code)
    # every way a run stops is a reason of the STOPPED row(s)
    stop_phrase = {RunStop.BUDGET_CEILING: "spend ceiling", RunStop.AUTHENTICATION: "credentials",
                   RunStop.SIGNAL: "sigint", RunStop.DISK: "disk", RunStop.EXECUTOR: "ray node"}
    assert set(stop_phrase) == set(RunStop)
    assert all(p in by_code[ExitCode.STOPPED] for p in stop_phrase.values())
    assert "void" in by_code[ExitCode.INCOMPLETE] and "scored" in by_code[ExitCode.OK]


def test_the_cli_exits_with_the_tables_code_and_one_line(tmp_path):
    """A plug-in that cannot load and bad input each end in one line and the table's code."""
    from click.testing import CliRunner

    from harness.cli.cli import main
    bad = tmp_path / "p.toml"
    bad.write_text("[protocol]\nname = 1\n")
    res = CliRunner().invoke(main, ["plan", str(bad)])
    assert res.exit_code == ExitCode.BAD_INPUT and "Traceback" not in res.output
    assert re.match(r"error: .*p\.toml", res.output)


README = ROOT / "README.md"


def _documented_command_rows(page: Path = EXIT_PAGE, heading: str = "## Exit codes of every command"
                             ) -> dict[str, tuple[set[int], int, int]]:
    text = page.read_text().split(heading, 1)[1]
    table = text.split("| command | exit codes | SIGINT / SIGTERM | full disk |", 1)[1].split("\n\n", 1)[0]
    rows = {}
    for line in table.strip().splitlines()[1:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = cells[0].split("`")[1].removeprefix("harness ") if cells[0].startswith("`") else "other"
        rows[name] = ({int(c) for c in cells[1].split(",")}, int(cells[2]), int(cells[3]))
    return rows


@pytest.mark.parametrize("page,heading", [(EXIT_PAGE, "## Exit codes of every command"), (README, "## Exit codes")],
                         ids=["reference", "readme"])
def test_the_documented_exit_table_covers_every_command_and_matches_the_code(page, heading):
    """Issue 34: the exit-code table covers every command, not only `harness run`: the reference page's and
    the README's (the front door states the contract), each equal to ``COMMAND_EXITS``."""
    from harness.cli.cli import LAZY_COMMANDS, main
    from harness.core.exits import COMMAND_EXITS
    rows = _documented_command_rows(page, heading)
    assert set(rows) == set(COMMAND_EXITS)
    for name, ex in COMMAND_EXITS.items():
        assert rows[name] == (set(ex.codes), ex.signal, ex.disk), name
    other = page.read_text().split(heading, 1)[1].split("| other commands (", 1)[1].split(")", 1)[0]
    named = {k.split()[0] for k in rows} | {w.strip("` ").split()[0] for w in other.split(",")}
    every = set(main.commands) | set(LAZY_COMMANDS)
    assert every <= named, every - named  # each command of the group has its row (or is named among the others)
