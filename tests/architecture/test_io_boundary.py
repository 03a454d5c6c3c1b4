"""Architecture test (issue 34): a command never opens a run, loop, corpus or analysis file by hand.

Every such read goes through the one safe reader and every write through the one atomic writer
(``harness.core.runio``; ``harness.core.statefile`` underneath; ``harness.core.safefs`` for a tree the
agent touched): a FIFO, a link, an oversized or deeply nested file is refused in one line, and a
full disk leaves nothing partial under a final name. A command that reads or writes by hand
(``open()``, ``Path.open/read_text/read_bytes/write_text/write_bytes``, ``json.load/dump``,
``shutil.copy*``) re-opens the breaks this closed (``view`` hung on a FIFO, ``corpus measure`` left
empty files on a full disk), so this test fails on any such call in a command module (``SCOPE``)
that is not in ``EXCEPTIONS``, where each is named, with why it is not a run file or why the
shared reader/writer cannot serve it. A stale exception (its call is gone) fails too.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# the modules that read or write a run, loop, corpus or analysis directory on a command's behalf
SCOPE = ("harness/cli/*.py", "harness/loop/loop_runs.py", "harness/loop/loop_graph.py",
         "harness/loop/reproduce_loops.py", "harness/ledger/*.py", "harness/run/driver.py",
         "harness/run/progress.py", "harness/run/records.py", "viewer/*.py", "interop/*.py", "analysis/cli.py",
         "analysis/monitor.py", "analysis/compare.py", "analysis/compare_render.py", "analysis/pipeline.py",
         "analysis/records.py", "corpus/cli.py")
# receivers whose methods of these names are the shared reader/writer itself
SHARED = {"runio", "statefile", "safefs"}
METHODS = {"open", "read_text", "read_bytes", "write_text", "write_bytes"}

EXCEPTIONS: dict[tuple[str, str, str], str] = {
    ("harness/ledger/ledger.py", "Ledger._move_torn", "open"):
        "the ledger's own crash repair: appends the torn bytes to records.jsonl.torn and truncates the ledger "
        "in place, fsynced, under the run's single-writer lock (a rename would rewrite the chain)",
    ("harness/ledger/ledger.py", "Ledger.append", "open"):
        "the ledger's own append-only writer: one fsynced line per record under run.lock / loop.lock, then "
        "the head written atomically; rewriting the whole file per record would make a run quadratic",
    ("harness/run/driver.py", "_make_out_dir", "write_bytes"):
        "an empty write probe of --out, removed at once: it tests the directory is writable before a run",
    ("harness/loop/loop_runs.py", "MemoJudge.__call__", "read_bytes"):
        "the loop workspace's target, a harness-made scratch tree the worker changes only through authorized "
        "write calls (it cannot make a link or a FIFO there); its digest keys the gate's memo",
    ("viewer/compare_page.py", "write_page", "read_bytes"):
        "the viewer's own stylesheet, read from the installed package (importlib.resources)",
    ("corpus/cli.py", "user_loop", "read_bytes"):
        "the user's artifact named with --artifact, read to check its kind and copied for the gate to judge",
    ("corpus/cli.py", "user_loop", "write_bytes"):
        "the copy of the user's artifact into the measurement's private temporary directory (not an output)",
    ("corpus/cli.py", "_since", "read_bytes"):
        "the artifact under measurement, read to find the functions changed since a git revision",
    ("corpus/cli.py", "apply_cmd", "read_bytes"):
        "`corpus apply` reads the user's own artifact to check it is unchanged since the measurement",
    ("corpus/cli.py", "apply_cmd", "write_bytes"):
        "`corpus apply` writes a mutant into the user's own artifact on purpose (undone with their VCS)",
    ("corpus/cli.py", "retest_cmd", "read_bytes"):
        "the artifact under measurement as it is now, read to rebuild the mutants to judge again",
    ("harness/cli/validate.py", "validate_task", "read_text"):
        "`harness tasks validate` reads the task corpus in the repository (trusted input, not a run file)",
    ("viewer/site.py", "_copy_assets", "read_bytes"):
        "the viewer's own static files, read from the installed package (importlib.resources)",
    ("analysis/pipeline.py", "load_protocol", "read_text"):
        "the protocol TOML the user names (repository input, already parsed by the TOML loader before)",
    ("analysis/pipeline.py", "_located", "read_text"):
        "re-reads the protocol TOML to name the line of a bad [[hypotheses]] entry in an error message",
    ("analysis/pipeline.py", "file_sha256", "open"):
        "hashes an input file the user named in bounded chunks (the digest written beside the results)",
}


def _calls(path: Path):
    """(qualified function, call name, line) of every hand-made file call in ``path``."""
    tree = ast.parse(path.read_text())
    found = []

    class Visit(ast.NodeVisitor):
        def __init__(self):
            self.stack: list[str] = []

        def _scope(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

        def visit_Call(self, node: ast.Call):
            fn, name = node.func, None
            if isinstance(fn, ast.Name) and fn.id == "open":
                name = "open"
            elif isinstance(fn, ast.Attribute):
                recv = fn.value.id if isinstance(fn.value, ast.Name) else None
                if fn.attr in METHODS and recv not in SHARED | {"os", "ToolChannel"}:
                    name = fn.attr
                elif recv == "json" and fn.attr in ("load", "dump"):
                    name = f"json.{fn.attr}"
                elif recv == "shutil" and fn.attr.startswith("copy"):
                    name = f"shutil.{fn.attr}"
            if name:
                found.append((".".join(self.stack) or "<module>", name, node.lineno))
            self.generic_visit(node)

    Visit().visit(tree)
    return found


def _sites() -> dict[tuple[str, str, str], list[int]]:
    sites: dict[tuple[str, str, str], list[int]] = {}
    for pattern in SCOPE:
        files = sorted(ROOT.glob(pattern))
        assert files, pattern
        for f in files:
            for where, name, line in _calls(f):
                sites.setdefault((str(f.relative_to(ROOT)), where, name), []).append(line)
    return sites


def test_no_command_opens_a_run_file_by_hand():
    sites = _sites()
    unexplained = {k: v for k, v in sites.items() if k not in EXCEPTIONS}
    assert not unexplained, ("read or write these through harness.core.runio (or name them in EXCEPTIONS "
                             "with why): " + "; ".join(f"{f}:{lines} {fn} {call}"
                                                       for (f, fn, call), lines in sorted(unexplained.items())))


def test_every_exception_is_still_needed_and_says_why():
    sites = _sites()
    stale = [k for k in EXCEPTIONS if k not in sites]
    assert not stale, f"no such call any more; drop the exception: {stale}"
    assert all(len(why.split()) >= 8 for why in EXCEPTIONS.values())


def test_the_checker_finds_a_hand_made_read():
    """The control: a module that reads a run file by hand is caught."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "m.py"
        f.write_text("import json\ndef view(run):\n    return json.loads((run / 'records.jsonl').read_text())\n"
                     "def keep(p, runio):\n    return runio.read_text(p)\n")
        assert _calls(f) == [("view", "read_text", 3)]
