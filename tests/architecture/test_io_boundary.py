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

A call is found however it is spelled: a method taken as a value and called later (``w =
path.write_text``, ``w = fh.write``, ``getattr(path, "read_bytes")``), the builtin ``open`` passed
or renamed (``o = open``), the same functions imported by name (``from json import dump``,
``from shutil import copyfile``) and the other ways to open a file (``io.open``, ``codecs.open``,
``os.fdopen``, ``io.FileIO``, ``tempfile.NamedTemporaryFile``). The checker is tested on a module
that plants each of these (``test_the_checker_finds_every_spelling_of_a_hand_made_call``).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# the modules that read or write a run, loop, corpus or analysis directory on a command's behalf
SCOPE = ("harness/cli/*.py", "harness/loop/loop_runs.py", "harness/loop/loop_graph.py",
         "harness/loop/reproduce_loops.py", "harness/ledger/*.py", "harness/run/driver.py",
         "harness/run/progress.py", "harness/run/records.py", "viewer/*.py", "interop/*.py", "analysis/cli.py",
         "analysis/monitor.py", "analysis/compare.py", "analysis/compare_render.py", "analysis/pipeline.py",
         "analysis/records.py", "corpus/cli.py", "corpus/browse.py", "corpus/incremental.py")
# receivers whose methods of these names are the shared reader/writer itself
SHARED = {"runio", "statefile", "safefs"}
METHODS = {"open", "read_text", "read_bytes", "write_text", "write_bytes"}
# a file object's writers: called directly they are the file's (opened where ``open`` is caught, or
# stdout), but taken as a value (``w = fh.write``) the writing call is hidden from this test
BOUND_WRITERS = {"write", "writelines"}
# other openers of a file, by module (receiver) and attribute
OPENERS = {("io", "open"), ("codecs", "open"), ("os", "fdopen"), ("io", "FileIO"), ("tempfile", "NamedTemporaryFile")}
# functions that read or write a file whole, by module, whether called as ``json.dump`` or imported by name
BY_MODULE = {"json": {"load", "dump"}, "shutil": {"copy", "copy2", "copyfile", "copyfileobj", "copytree"}}

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
    ("analysis/compare.py", "_load_sides", "os.fdopen"):
        "the pipe between `harness compare` and its forked child that loads side B (a pickle, no file): "
        "os.pipe's two descriptors, never a path a user or a run directory could plant anything at",
    ("analysis/pipeline.py", "file_sha256", "open"):
        "hashes an input file the user named in bounded chunks (the digest written beside the results)",
}


def _calls(path: Path):
    """(qualified function, call name, line) of every hand-made file call in ``path``, however it is
    spelled (see the module docstring)."""
    tree = ast.parse(path.read_text())
    found = []
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}

    class Visit(ast.NodeVisitor):
        def __init__(self):
            self.stack: list[str] = []

        def _scope(self, node):
            self.stack.append(node.name)
            self.generic_visit(node)
            self.stack.pop()

        visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

        def _found(self, node: ast.AST, name: str) -> None:
            found.append((".".join(self.stack) or "<module>", name, node.lineno))

        def visit_Name(self, node: ast.Name):
            """The builtin ``open``, called or taken as a value (``o = open``, ``map(open, paths)``)."""
            if node.id == "open" and isinstance(node.ctx, ast.Load):
                self._found(node, "open")

        def visit_Attribute(self, node: ast.Attribute):
            recv = node.value.id if isinstance(node.value, ast.Name) else None
            if (recv, node.attr) in OPENERS:
                self._found(node, f"{recv}.{node.attr}")
            elif recv in BY_MODULE and node.attr in BY_MODULE[recv]:
                self._found(node, f"{recv}.{node.attr}")
            elif node.attr in METHODS and recv not in SHARED | {"os", "ToolChannel"}:
                self._found(node, node.attr)  # path.read_text(...) and w = path.write_text alike
            elif node.attr in BOUND_WRITERS and id(node) not in called and isinstance(node.ctx, ast.Load):
                self._found(node, f"bound {node.attr}")  # w = fh.write: the write is called elsewhere
            self.generic_visit(node)

        def visit_Call(self, node: ast.Call):
            fn = node.func
            if isinstance(fn, ast.Name) and fn.id == "getattr" and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in METHODS | BOUND_WRITERS:
                self._found(node, f"getattr {node.args[1].value}")
            self.generic_visit(node)

        def visit_ImportFrom(self, node: ast.ImportFrom):
            """``from json import dump`` and ``from shutil import copyfile``: the call is then a bare name."""
            names = BY_MODULE.get(node.module or "", set()) | {a for m, a in OPENERS if m == node.module}
            for alias in node.names:
                if alias.name in names:
                    self._found(node, f"{node.module}.{alias.name}")

    Visit().visit(tree)
    return sorted(found, key=lambda f: f[2])


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


def _check(tmp_path: Path, source: str) -> list[tuple[str, str, int]]:
    f = tmp_path / "m.py"
    f.write_text(source)
    return _calls(f)


def test_the_checker_finds_a_hand_made_read(tmp_path):
    """The control: a module that reads a run file by hand is caught; the shared reader is not."""
    assert _check(tmp_path, "import json\ndef view(run):\n    return json.loads((run / 'records.jsonl').read_text())\n"
                            "def keep(p, runio):\n    return runio.read_text(p)\n") == [("view", "read_text", 3)]


PLANTED = {  # a hand-made call spelled so that a check of direct calls alone misses it -> what the checker names
    "def f(run):\n    w = (run / 'run.json').write_text\n    w('{}')\n": ("f", "write_text", 2),
    "def f(run):\n    fh = run.open('a')\n    w = fh.write\n    w('x')\n": ("f", "bound write", 3),
    "def f(run):\n    o = open\n    return o(run / 'spend.json').read()\n": ("f", "open", 2),
    "def f(paths):\n    return list(map(open, paths))\n": ("f", "open", 2),
    "def f(p):\n    return getattr(p, 'read_bytes')()\n": ("f", "getattr read_bytes", 2),
    "from json import dump\ndef f(o, fh):\n    dump(o, fh)\n": ("<module>", "json.dump", 1),
    "from shutil import copyfile as cp\ndef f(a, b):\n    cp(a, b)\n": ("<module>", "shutil.copyfile", 1),
    "import io\ndef f(p):\n    return io.open(p).read()\n": ("f", "io.open", 3),
    "import os\ndef f(fd):\n    return os.fdopen(fd, 'w')\n": ("f", "os.fdopen", 3),
    "import tempfile\ndef f(d):\n    return tempfile.NamedTemporaryFile(dir=d)\n": ("f", "tempfile.NamedTemporaryFile", 3),
    "def f(fh):\n    return fh.writelines\n": ("f", "bound writelines", 2),
}


@pytest.mark.parametrize("source", sorted(PLANTED))
def test_the_checker_finds_every_spelling_of_a_hand_made_call(tmp_path, source):
    """A test of the test: each planted violation is named (function, call, line), so the
    architecture test fails on it; before, only direct calls (``path.write_text(...)``) were."""
    assert PLANTED[source] in _check(tmp_path, source), _check(tmp_path, source)


def test_direct_writes_to_an_open_stream_and_the_shared_modules_are_not_flagged(tmp_path):
    """``fh.write(...)`` called directly is the file's own writer (its ``open`` is what is caught),
    ``sys.stdout.write`` is not a file, and the shared reader and writer are the sanctioned route."""
    assert _check(tmp_path, "import sys\ndef f(runio, statefile, p):\n    sys.stdout.write('x')\n"
                            "    runio.write_atomic(p, 'x', 'r')\n    statefile.write_atomic(p, 'x')\n"
                            "    return runio.read_bytes(p)\n") == []
