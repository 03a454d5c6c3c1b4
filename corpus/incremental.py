"""Incremental measurement: a judgment is reused while what it depends on is unchanged.

A judgment's key (``JudgmentCache.key``) is (loop, the gate's digest - its files, the test suite
included -, the mutant's *unit key*). The unit key of a Python mutant confined to one top-level
statement (a function or a class) is sha256 over the operator, that statement's text before and
after the change, and the text of every top-level statement that is not a def or class (imports,
constants): an edit elsewhere in the module - another function - keeps it, so only the mutants of
the edited function (or of every function, when the module's top-level code or the suite
changed) are judged again. Any other mutant (another kind, a deletion, a change across
statements) keys on its exact bytes and its parent's. The control keys on the artifact's exact bytes.
The unit key also holds the text of every top-level def or class the mutated statement reaches by
name, transitively (``_callees``): a mutant of ``f`` is judged through the ``helper`` it calls, so
editing ``helper`` re-judges it. Every key also holds ``context_digest``: the artifact directory's
other files (a context directory's sibling modules, data files) and the pytest configuration beside
the gate (conftest.py, pytest.ini, pyproject.toml less its [tool.proof-harness] table, ...).

The key holds its *callers* too (``_related``): every top-level def or class that reaches the
mutated statement by name, transitively, and each one's callees: a test reaching the mutant
through an edited caller may now kill it (or no longer reach it), so that edit re-judges it.

This is mutmut's rule (a mutant is re-tested when its function changed) widened to the call graph
around it, by name. What a name-level graph cannot see (a function passed as a value and called
elsewhere under another name, ``getattr`` by a computed string) is why ``--fresh`` ignores the
cache, and the cache is never shared across gates or loops.

A suite edit changes every key above (the gate's digest holds its test files). A pytest gate on
the fast path keys on the module's exact bytes too (a test composing two functions, ``g(f(x))``,
may kill a mutant of ``g`` once ``f`` was edited, and a name-level graph cannot see that): any
edit of the module or of the suite goes through corpus/rerun.py instead, where a judgment is
reused while the mutant's unit, what it reaches by name, and the fingerprints of the tests its
verdict rests on are unchanged. The unit key serves the other gates (and ``--cold``).

``changed_units(text, lines)`` gives, for ``--since GIT_REF``, the top-level statements that hold a
line changed since REF (``git diff -U0``); mutants elsewhere are not judged.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
import subprocess
import threading
from dataclasses import asdict
from pathlib import Path

from corpus.model import Mutant, sha256
from corpus.pyparse import parse
from harness.core import runio, statefile


@functools.lru_cache(maxsize=16)
def _units(parent: bytes) -> tuple[list[tuple[int, int]], str] | None:
    """(byte spans of the top-level statements, sha256 of the non-def top-level code) of a Python
    module; None when it does not parse."""
    graph = _unit_graph(parent)
    return None if graph is None else (graph[0], graph[1])


@functools.lru_cache(maxsize=16)
def _unit_graph(parent: bytes) -> tuple[list[tuple[int, int]], str, list[str | None], list[frozenset[str]]] | None:
    """``_units`` plus, per top-level statement, the name it defines (a def or class; else None)
    and the names its code reads (``ast.Name`` ids and attribute names), for ``_callees``."""
    try:
        tree = parse(parent.decode("utf-8"))
    except (UnicodeDecodeError, SyntaxError, ValueError):
        return None
    starts = [0]
    for line in parent.splitlines(keepends=True):    # bytes: \n, \r\n and \r only, as the tokenizer
        starts.append(starts[-1] + len(line))
    spans, context, names, reads = [], [], [], []
    for node in tree.body:
        end_line = node.end_lineno or node.lineno
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        lo, hi = starts[first - 1], starts[min(end_line, len(starts) - 1)]
        spans.append((lo, hi))
        is_def = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        names.append(node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else None)
        reads.append(frozenset(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                               if isinstance(n, (ast.Name, ast.Attribute))))
        if not is_def:
            context.append(parent[lo:hi])
    return spans, sha256(b"\0".join(context)), names, reads


def _callees(parent: bytes, unit: int) -> list[int]:
    """The top-level defs and classes that statement ``unit`` can reach by name, transitively
    (a name it reads that a top-level def or class of the module defines): a mutant of ``unit``
    is judged through them, so an edit of one of them must change its key."""
    graph = _unit_graph(parent)
    if graph is None:
        return []
    _, _, names, reads = graph
    by_name: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        if name is not None:
            by_name.setdefault(name, []).append(i)
    seen, todo = {unit}, [unit]
    while todo:
        for name in reads[todo.pop()]:
            for j in by_name.get(name, []):
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
    return sorted(seen - {unit})


def _callers(parent: bytes, unit: int) -> list[int]:
    """The top-level defs and classes that reach statement ``unit`` by name, transitively (the
    reverse of ``_callees``)."""
    graph = _unit_graph(parent)
    if graph is None:
        return []
    _, _, names, reads = graph
    seen, todo = {unit}, [unit]
    while todo:
        name = names[todo.pop()]
        if name is None:
            continue
        for j, r in enumerate(reads):
            if j not in seen and names[j] is not None and name in r:
                seen.add(j)
                todo.append(j)
    return sorted(seen - {unit})


def _related(parent: bytes, unit: int) -> list[int]:
    """What a judgment of a mutant in ``unit`` can depend on, by name: its callees, its callers
    (a test reaching the mutant through an edited caller may now kill it, or no longer reach
    it) and their callees (a caller's other callee computes what the caller passes on)."""
    out = set(_callees(parent, unit))
    for c in _callers(parent, unit):
        out.add(c)
        out.update(_callees(parent, c))
    out.discard(unit)
    return sorted(out)


def _changed_span(parent: bytes, child: bytes) -> tuple[int, int, bytes]:
    from corpus.browse import splice
    return splice(parent, child)


def unit_key(parent: bytes, mutant: Mutant) -> str:
    """The mutant's unit key (module docstring)."""
    exact = f"exact:{sha256(parent)}:{mutant.digest or 'deleted'}:{mutant.operator}"
    if mutant.content is None:
        return exact
    units = _units(parent)
    if units is None:
        return exact
    spans, context = units
    lo, hi, rep = _changed_span(parent, mutant.content)
    for i, (a, b) in enumerate(spans):
        if a <= lo and hi <= b:
            after = parent[a:lo] + rep + parent[hi:b]
            reached = [parent[spans[j][0]:spans[j][1]] for j in _related(parent, i)]
            return "unit:" + sha256(b"\0".join([mutant.operator.encode(), parent[a:b], after, context.encode(),
                                                *reached]))
    return exact


def changed_units(parent: bytes, lines: set[int]) -> list[tuple[int, int]] | None:
    """The byte spans of the top-level statements holding one of ``lines`` (1-based); None when
    the module does not parse (then nothing can be left out)."""
    units = _units(parent)
    if units is None:
        return None
    starts = [0]
    for line in parent.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    offsets = {starts[min(n - 1, len(starts) - 1)] for n in lines}
    return [(a, b) for a, b in units[0] if any(a <= o < b for o in offsets)]


def in_changed(parent: bytes, mutant: Mutant, spans: list[tuple[int, int]] | None) -> bool:
    """Does the mutant change text inside one of ``spans`` (or can that not be decided)?"""
    if spans is None or mutant.content is None:
        return True
    lo, hi, _ = _changed_span(parent, mutant.content)
    units = _units(parent)
    inside_any = units is not None and any(a <= lo and hi <= b for a, b in units[0])
    return not inside_any or any(a <= lo and hi <= b for a, b in spans)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


def lines_changed_since(ref: str, path: Path) -> set[int]:
    """Lines of ``path`` (as it is now) added or changed since git revision ``ref``; a deletion
    marks the line after it. Raises ValueError with git's one-line complaint."""
    try:
        r = subprocess.run(["git", "diff", "-U0", "--no-color", "--no-ext-diff", ref, "--", path.name],
                           cwd=path.parent, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"--since {ref}: git diff failed: {exc}") from None
    if r.returncode != 0:
        raise ValueError(f"--since {ref}: git diff failed: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    out: set[int] = set()
    for m in _HUNK.finditer(r.stdout):
        start, count = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
        out.update(range(start, start + count) if count else (max(start, 1), start + 1))
    return out


def is_test_file(p: Path) -> bool:
    """pytest's default ``python_files``: test_*.py and *_test.py."""
    return p.suffix == ".py" and (p.name.startswith("test_") or p.stem.endswith("_test"))


class SuiteSplit:
    """A gate's files split for the fine reuse (corpus/rerun.py): ``rest`` is the sha256 over
    every file the gate depends on except its test files (conftest.py, helpers, data and the gate
    file stay in it), ``tests`` its test files by base name, ``_collected`` what each test file
    does when collected beside other tests."""

    def __init__(self, files: list[Path], module: str | None = None):
        # ``module``: the artifact's top-level module name; a test file's import of it (or of
        # pytest) does nothing at collection that the selected tests do not do themselves
        self.harmless = frozenset({"pytest", *([module] if module else [])})
        h = hashlib.sha256()
        self._others: list[Path] = []
        self._lock = threading.Lock()
        self._kept: dict[str, list[bytes]] | None = None
        self.tests: dict[str, list[Path]] = {}
        for p in sorted(files):
            if is_test_file(p):
                self.tests.setdefault(p.name, []).append(p)
            else:
                if p.suffix == ".py":
                    self._others.append(p)
                h.update(str(p).encode() + b"\0" + _file_bytes(p) + b"\0")
        self.rest = h.hexdigest()

    def _collected(self) -> dict[str, list[bytes]]:
        """Per test file base name, what each file of that name does when collected beside other
        tests: its module-level code (a global patch of the artifact at import), fixtures and
        helpers (``_without_tests``), the whole file when a test file imports it by name. Read
        and parsed once per run, not once per mutant."""
        with self._lock:
            if self._kept is None:
                imported = self._imported_names()
                self._kept = {f: [_file_bytes(p) if Path(f).stem in imported else
                                  _without_tests(_file_bytes(p), self.harmless) for p in found]
                              for f, found in self.tests.items()}
            return self._kept

    def _imported_names(self) -> set[str]:
        """Every name an import statement of a Python file of the gate mentions (modules, their
        dotted parts and the names imported) and every string of a ``pytest_plugins``: a test file
        named so is a helper or a plugin some test reads, whole."""
        out: set[str] = set()
        for p in [*self._others, *(q for found in self.tests.values() for q in found)]:
            try:
                tree = parse(_file_bytes(p))
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    out.update(part for a in node.names for part in a.name.split("."))
                elif isinstance(node, ast.ImportFrom):
                    out.update((node.module or "").split("."))
                    out.update(a.name for a in node.names)
                elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytest_plugins"
                                                          for t in node.targets):
                    out.update(part for c in ast.walk(node.value) if isinstance(c, ast.Constant)
                               and isinstance(c.value, str) for part in c.value.split("."))
        return out


def _without_tests(data: bytes, harmless: frozenset[str] = frozenset()) -> bytes:
    """A test file's text less what runs only when one of its tests is selected: the bodies of
    its test functions (``test*`` at module level, and methods of ``Test*`` classes), a test without
    decorators or defaults dropped whole (adding one changes nothing at collection). Module-level
    code, fixtures, helpers, decorators (parametrize ids) and defaults stay: they run when the file
    is collected, with every selected test. Imports of a ``harmless`` module (the artifact, pytest)
    go too; b"" when nothing is left (a new file of plain tests), ``data`` itself when it does
    not parse."""
    try:
        tree = parse(data)
    except (SyntaxError, ValueError):
        return data
    body = _strip_tests(tree.body)
    # an import of a harmless module binds names: it goes only when nothing else kept reads one
    # of them (a test reading one has the import in its own print: corpus/rerun._reached_text)
    kept_reads: set[str] = set()
    for n in body:
        if not _imports_only(n, harmless):
            kept_reads.update(x.id if isinstance(x, ast.Name) else x.attr for x in ast.walk(n)
                              if isinstance(x, (ast.Name, ast.Attribute)))
    tree.body = [n for n in body if not _imports_only(n, harmless) or _bound_names(n) & (kept_reads | {"*"})]
    if not tree.body:
        return b""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            node.body = _strip_tests(node.body) or [ast.Pass()]
    return ast.dump(tree).encode()


def _bound_names(node: ast.stmt) -> set[str]:
    """The names an import statement binds."""
    names = node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else []
    return {(a.asname or a.name).split(".")[0] for a in names}


def _imports_only(node: ast.stmt, modules: frozenset[str]) -> bool:
    """Is ``node`` an import of ``modules`` only (``import calc``, ``from calc import add``)?"""
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in modules for a in node.names)
    return isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in modules


def _strip_tests(body: list[ast.stmt]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test") \
                and not any("fixture" in ast.dump(d) for d in node.decorator_list):     # a fixture's body runs
            a = node.args
            if not node.decorator_list and not a.defaults and not any(d is not None for d in a.kw_defaults):
                continue
            node.body = [ast.Pass()]
        out.append(node)
    return out


class JudgmentCache:
    """``--out``/judgment-cache.jsonl: one line per judgment, keyed as the module doc says. Kept
    across runs (rewritten at the end with only the judgments of the last run)."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self.entries: dict[str, dict] = {}
        if path.exists() or path.is_symlink():
            # the safe reader: a FIFO or a link in the cache's place is one line (exit 2), never a
            # hang; a line it cannot use (torn by a kill, nested past the bound) is skipped
            for _, d in runio.read_jsonl(path, "judgment cache", skip_bad=True):
                try:
                    self.entries[d["key"]] = d["row"]
                except (KeyError, TypeError):
                    continue

    @staticmethod
    def key(loop: str, gate_digest: str, parent: bytes, mutant: Mutant | None, exact: bool = False) -> str:
        """The main key; ``exact``: the mutant by its own bytes, not its unit (the caller put the
        module's exact bytes in ``gate_digest``: a pytest gate on the fast path)."""
        if mutant is None:
            unit = f"control:{sha256(parent)}"
        else:
            unit = f"exact:{mutant.digest or 'deleted'}:{mutant.operator}" if exact else unit_key(parent, mutant)
        return sha256(f"{loop}\0{gate_digest}\0{unit}\0{mutant.label if mutant else ''}".encode())

    def get(self, key: str) -> dict | None:
        return self.entries.get(key)

    def put(self, key: str, row, extra: dict | None = None) -> None:
        d = {**asdict(row), **(extra or {})}
        line = json.dumps({"key": key, "row": d})
        with self._lock:
            self.entries[key] = d
            runio.append_line(self.path, line)  # one write per line; a FIFO or a link there is refused

    def compact(self, keep: set[str]) -> None:
        """Rewrite the file with only ``keep`` (the keys of the run just finished)."""
        statefile.write_atomic(self.path, "".join(json.dumps({"key": k, "row": self.entries[k]}) + "\n"
                                                  for k in sorted(keep) if k in self.entries))


_NOT_INPUTS = (".pyc", ".pyo")      # the interpreter's caches: never something a test or the module reads
_PYTEST_CONFIG = ("conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")


def _skip_dir(d: Path) -> bool:
    return d.name.startswith(".") or d.name in ("__pycache__", "site-packages", "node_modules") or \
        (d / "pyvenv.cfg").is_file()


def _source_files(root: Path, skip: Path | None) -> list[Path]:
    """The files under ``root``: sources, configuration and data alike (a test or the module
    may read a .json or .csv beside it: issue 35's rerun must see that file change). Hidden
    directories, virtualenvs, caches and ``skip`` - the --out directory - are left out."""
    out: list[Path] = []
    todo = [root]
    while todo:
        d = todo.pop()
        try:
            entries = sorted(d.iterdir())
        except OSError:
            continue
        for p in entries:
            if p.is_dir() and not p.is_symlink():
                if not _skip_dir(p) and (skip is None or p.resolve() != skip):
                    todo.append(p)
            elif p.is_file() and p.suffix not in _NOT_INPUTS:
                out.append(p)
    return out


def _file_bytes(p: Path) -> bytes:
    """A file's bytes for ``context_digest``; pyproject.toml without its [tool.proof-harness]
    table (the corpus's own settings - workers, out - do not change a verdict; pytest's do). Read by
    the one safe reader: a file of the user's own source tree, found by walking it (a link there is
    the user's, followed; a FIFO swapped in after the walk's ``is_file`` is refused, never waited on)."""
    data = runio.read_bytes(p, "source file", follow=True)
    if p.name != "pyproject.toml":
        return data
    from harness.core.errors import InputError
    from harness.core.tomlfile import parse_toml
    try:
        doc = parse_toml(data.decode("utf-8"), str(p))
    except (UnicodeDecodeError, InputError):
        return data
    doc.get("tool", {}).pop("proof-harness", None)
    return json.dumps(doc, sort_keys=True, default=str).encode()


def context_digest(artifact_dir: Path, target: Path, gate_dir: Path, skip: Path | None) -> str:
    """sha256 over what a judgment depends on besides the artifact and the gate's own files: the
    other files of the artifact's directory (a context directory's sibling modules the artifact
    imports, the data files it or a test reads) and the pytest configuration beside the gate
    (conftest.py, pytest.ini, pyproject.toml, setup.cfg, tox.ini). Part of every cache key, so
    an edit of a sibling module re-judges the loop instead of reusing its old verdicts."""
    skip = skip.resolve() if skip is not None else None
    named = [("artifact", p.relative_to(artifact_dir), p) for p in _source_files(artifact_dir, skip)
             if p.resolve() != target.resolve()]
    named += [("gate", Path(n), gate_dir / n) for n in _PYTEST_CONFIG if (gate_dir / n).is_file()]
    h = hashlib.sha256()
    for side, rel, p in sorted(named):
        try:
            data = _file_bytes(p)
        except (OSError, runio.UnsafeFile):
            data = b"?"
        h.update(f"{side}:{rel}".encode() + b"\0" + data + b"\0")
    return h.hexdigest()


# ----------------------------------------------------------------------------- the run's world
#
# The rule (issue 35's rerun soundness): a judgment is reused only when everything its run could
# read is provably unchanged. What a run reads, and how each part is made certain:
#
# | what the run can read                                    | how a rerun sees it change            |
# |----------------------------------------------------------|---------------------------------------|
# | the module under test                                    | its exact bytes, or rerun.py's units  |
# | the gate's test files                                    | the gate digest, or rerun.py's prints |
# | every other file under the project's roots (the artifact | ``world_digest``: content of each,    |
# | directory, the gate's directory, its tests directory and | links followed, hidden directories    |
# | that directory's parent), linked or hidden directories   | kept but a VCS's and tool caches      |
# | conftest.py, __init__.py and pytest's configuration in   | ``world_digest``: each one's content  |
# | every directory above those roots (pytest loads them)    | (or its absence)                      |
# | the environment the judging children get                 | ``world_digest``: ``scrubbed_env()``  |
# | the interpreter and what is installed beside it          | ``world_digest``: executable, version,|
# |                                                          | each sys.path directory's listing     |
# | anything else (a subprocess, a tracer switched off)      | the child's recorder fails closed:    |
# |                                                          | what ran is unknown, never reused     |
#
# A file outside every root read by absolute path is not keyed: ``--fresh`` judges everything.

_NOT_WORLD_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "__pycache__", ".pytest_cache", ".mypy_cache",
                             ".ruff_cache", ".tox", ".nox", "node_modules", "site-packages"})
_ABOVE = ("conftest.py", "__init__.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini")


def _world_files(roots: list[Path], skip: set[Path]) -> list[Path]:
    """Every file under ``roots``: linked directories followed (each real directory once), hidden
    ones kept (a module may read ``.conf/``), a VCS's, tool caches, virtualenvs and ``skip`` left out."""
    out: list[Path] = []
    seen: set[Path] = set()
    todo = [r for r in roots if r.is_dir()]
    while todo:
        d = todo.pop()
        try:
            real = d.resolve()
        except (OSError, RuntimeError):
            continue
        if real in seen or real in skip:
            continue
        seen.add(real)
        try:
            entries = sorted(d.iterdir())
        except OSError:
            continue
        for p in entries:
            try:
                is_dir = p.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if p.name not in _NOT_WORLD_DIRS and not (p / "pyvenv.cfg").is_file():
                    todo.append(p)
            elif p.suffix not in _NOT_INPUTS:
                out.append(p)       # a broken link too: its target's name is what it holds
    return out


def _interpreter() -> bytes:
    """The interpreter and what is installed beside it: executable, version, and the listing of
    every directory on sys.path (a distribution's dist-info name carries its version)."""
    import sys
    parts = [sys.executable, sys.version, sys.prefix]
    for entry in sys.path:
        try:
            names = sorted(n for n in Path(entry or ".").iterdir() if n.name != "__pycache__") \
                if Path(entry or ".").is_dir() else []
        except OSError:
            names = []
        parts.append(entry + "\1" + "\1".join(n.name for n in names))
    return "\0".join(parts).encode()


def world_digest(roots: list[Path], leave_out: set[Path], skip: Path | None,
                 module: tuple[str, bytes] | None = None) -> str:
    """sha256 over what a judgment's run can read beyond the module and the gate's test files
    (the table above): every file under ``roots`` but ``leave_out`` (the module, the test files:
    keyed finer elsewhere) and ``skip`` (--out), pytest's files in each directory above them,
    the judging children's environment and the interpreter. ``module`` (name, bytes): a file of
    that name holding the module's very bytes (the user's original of the judging copy) counts
    by its path only - its content is the module's, keyed finer, and a test opening it while it
    runs is watched as a read of the module's text (corpus/forkserver._watch_blind_spots)."""
    from corpus.gates import scrubbed_env
    skips = {skip.resolve()} if skip is not None else set()
    roots = sorted({r.resolve() for r in roots})
    out = {p.resolve() if not p.is_symlink() else p for p in leave_out}
    h = hashlib.sha256()
    for p in _world_files(roots, skips):
        try:
            if p.resolve() in out or p in out:
                continue
            data = _file_bytes(p) if p.is_file() else b"link:" + str(p.readlink() if p.is_symlink() else "?").encode()
        except (OSError, runio.UnsafeFile, RuntimeError):
            data = b"?"
        if module is not None and p.name == module[0] and data == module[1]:
            data = b"the module"
        h.update(b"F" + str(p).encode() + b"\0" + sha256(data).encode())
    above: set[Path] = set()
    for r in roots:
        above.update(r.parents)
    for d in sorted(above):
        for n in _ABOVE:
            p = d / n
            if p.is_file():
                try:
                    data = _file_bytes(p)
                except (OSError, runio.UnsafeFile):
                    data = b"?"
                h.update(b"A" + str(p).encode() + b"\0" + sha256(data).encode())
    env = scrubbed_env()
    h.update(b"E" + json.dumps(env, sort_keys=True).encode())
    h.update(b"I" + _interpreter())
    return h.hexdigest()
