"""Reruns that re-judge only what an edit can change (issue 35, item 2), for pytest gates on the
fast path.

A judgment of mutant M (a verdict from running the tests the coverage map selected for it, S)
is reused on a later run when nothing M's verdict depends on changed. Three parts say what that is:

**The mutant's static key** (``static_key(..., reach=False)``, "unit3"): the operator, the text of
M's *unit* (the function or method holding the change; nested functions belong to the def around
them) before and after the change, and what runs at import, for every test (``Units.context``):
every top-level statement that is not a def or class (imports, constants, tables of functions),
each class's own body (its attributes, bases, decorators) and each def's header (decorators,
defaults, annotations) with its docstring - ``__defaults__``, ``__doc__`` and a class attribute
are read without running a body the recorder sees. The key also holds the gate's files other
than its test files (conftest.py, data files, the gate file) and the world digest
(corpus/incremental.world_digest: every other file under the project's roots, pytest's files
above them, the children's environment, the interpreter): an edit of any of them re-judges every
mutant - the conservative answer where a fixture or a data file changed.

**What the tests ran on the mutant** (``ran``): the child that judges M (the swap child or the
forked pytest, corpus/forkserver.py) records, per test, the module's lines that ran (coverage.py's
C tracer, the module's file only; lines run at collection count for every test); the judgment
stores the text hash of each unit whose body ran (a def's header and a top-level statement run at
import: the statement is in the key), with its class's own body for a method. It is reused only while each of those units has the same text. For a reject
that is what its killing test ran (and what ran outside any test); for an accept, what every
selected test ran. A recorder replaced meanwhile (a suite that sets its own tracer), code run
where it cannot see (a subprocess, ``os.system``, a fork, a tracer or profiler a test sets around
a call, the thread hook a test removes: corpus/forkserver._watch_blind_spots), or code no unit
holds (made at run time), stores nothing: judged again. This replaces the name-level reach
of the earlier "unit2" key (every function M's unit names, ``getattr`` with a computed name
reaching every method of that prefix): a mutant that diverts control into an edited function
ran it, so it is judged again; one whose tests never reached it keeps its verdict.

**Each test's fingerprint** (``TestPrints``): sha256 over the test's own function and what of
its file it reaches by name (``_reached_text``: a sibling test called through ``self``, a
module-level alias of another test, the import alias or star import binding a name it reads, in
file order; a name computed at run time reaches the whole file), what every test file does when collected (its module-level code,
fixtures and helpers; ``SuiteSplit._collected``: a new plain test adds nothing there), and the
text of every function whose body ran under the import context on the conforming artifact
(called at import, at collection, by a fixture wider than a function: what it returned may be any
test's input, and a swap child inherits it without running it). A test's fingerprint changes when
the test was edited.

**Reuse** (``FineReuse.lookup``), for an entry under the same static key whose ``ran`` units are
unchanged:
- a reject when every test that ran up to the kill (``tests_run``, in the order the child ran
  them; a test before the killer may have left the state it failed on: the tests are not taken
  as independent) is selected again with the same fingerprint;
- an accept when exactly the tests selected then are selected now, each with the same
  fingerprint: each ran this mutant and passed, and each still runs the same code. A test added,
  edited or removed (it may have set the state the others passed on) re-judges M.
- anything else (incapacity, a test file holding two tests of one name, a doctest, a selection
  that is the whole suite while a test was added) is judged again.

So after an edit of function f: M is judged again when it lies in f or the tests its verdict rests
on ran f on M (mutmut re-tests f's mutants only; a test composing f and g - ``g(f(x))`` - may kill
g's mutants once f changed, and it ran f). After a test edit or addition: only the mutants that
test covers (and the kills it made). A test reading the module's text (``inspect.getsource``)
makes the record unknown (corpus/forkserver._watch_blind_spots). What stays open: a file outside
every root read by an absolute path,
and the order the fast path runs tests in (a suite whose verdicts depend on it gets that order's
verdict, cached or not); ``--fresh`` judges everything.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from corpus.incremental import SuiteSplit, _file_bytes
from corpus.kill_history import node_key
from corpus.model import Mutant, sha256
from corpus.pyparse import parse

if TYPE_CHECKING:
    from corpus.coverage_map import CoverageMap

# names whose use means a unit can reach a function by a name computed at run time
_DYNAMIC_CALLS = frozenset({"getattr", "hasattr", "setattr", "globals", "vars", "eval", "exec", "locals",
                            "__import__", "attrgetter", "methodcaller", "import_module"})


@dataclass(frozen=True)
class Unit:
    lo: int                  # byte span in the module (decorators included)
    hi: int
    kind: str                # "def" (a function or method), "class" (a class's own body), "stmt"
    name: str | None
    defines: frozenset[str]
    reads: frozenset[str]
    cls: int | None          # the enclosing class's "class" unit
    dynamic: frozenset[str]  # prefixes of names it looks up at run time ("": any name, every unit)


class Units:
    """A module cut into units (the module doc): its defs and methods, each class's own body, its
    other top-level statements; with the reach-by-name graph between them."""

    def __init__(self, parent: bytes):
        self.parent = parent
        tree = parse(parent.decode("utf-8"))
        self._starts = [0]
        for line in parent.splitlines(keepends=True):     # \n, \r\n and \r only, as the tokenizer
            self._starts.append(self._starts[-1] + len(line))
        self.units: list[Unit] = []
        self.qual: list[str | None] = []        # each unit's qualified name, as its code's co_qualname
        self.headers: set[int] = set()          # the lines of a def's header: they run at import
        self.header_texts: list[bytes] = []     # each def's header and docstring, as text (``_header``)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                self._class(node, None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._add(node, "def", node.name, frozenset({node.name}), _reads(node), None, _dynamic(node))
            else:
                self._add(node, "stmt", None, _defines(node), _reads(node), None, _dynamic(node))
        # what runs at import, for every test, whether or not a test runs the unit's body: the
        # top-level statements, each class's own body (its attributes, bases, decorators) and each
        # def's header (decorators, defaults, annotations) with its docstring (``__defaults__``,
        # ``__doc__`` and a class attribute are read without running any body the recorder sees)
        self.context = sha256(b"\0".join([*(self.text(i) for i, u in enumerate(self.units) if u.kind in ("stmt", "class")),
                                          b"\2", *self.header_texts]))
        by_name: dict[str, list[int]] = {}
        for i, u in enumerate(self.units):
            for n in u.defines:
                by_name.setdefault(n, []).append(i)
        self._edges: list[set[int]] = []
        everything = set(range(len(self.units)))
        for i, u in enumerate(self.units):
            out = {j for n in u.reads for j in by_name.get(n, [])}
            if "" in u.dynamic:
                out = set(everything)
            elif u.dynamic:
                out.update(j for j, v in enumerate(self.units)
                           if any(n.startswith(p) for n in v.defines for p in u.dynamic))
            if u.cls is not None:
                out.add(u.cls)
            if u.kind == "class":
                out.update(j for j, v in enumerate(self.units) if v.cls == i and v.kind == "def"
                           and v.name is not None and v.name.startswith("__") and v.name.endswith("__"))
            out.discard(i)
            self._edges.append(out)

    def _span(self, node: ast.stmt) -> tuple[int, int]:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        end = node.end_lineno or node.lineno
        return self._starts[first - 1], self._starts[min(end, len(self._starts) - 1)]

    def _add(self, node: ast.stmt, kind: str, name: str | None, defines: frozenset[str],
             reads: frozenset[str], cls: int | None, dynamic: frozenset[str]) -> int:
        lo, hi = self._span(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            self.headers.update(range(first, node.body[0].lineno))
            self.header_texts.append(self._header(node, lo))
        self.units.append(Unit(lo, hi, kind, name, defines, reads, cls, dynamic))
        outer = self.qual[cls] if cls is not None else None
        self.qual.append(None if kind == "stmt" else f"{outer}.{name}" if outer else name)
        return len(self.units) - 1

    def _header(self, node: ast.FunctionDef | ast.AsyncFunctionDef, lo: int) -> bytes:
        """A def's text up to its body's first statement (decorators, name, parameters with their
        defaults, annotations), through its docstring when it has one: what the def statement
        evaluates at import, and what ``__defaults__``, ``__doc__``, ``__annotations__`` hold."""
        first = node.body[0]
        doc = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)
        if doc:
            line, col = first.end_lineno or first.lineno, first.end_col_offset or 0
        else:
            line, col = first.lineno, first.col_offset
        return self.parent[lo:self._starts[line - 1] + col]

    def _class(self, node: ast.ClassDef, outer: int | None) -> None:
        own = [n for n in node.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        header = [*node.decorator_list, *node.bases, *(k.value for k in node.keywords)]
        reads = frozenset().union(*(_reads(n) for n in [*own, *header])) if own or header else frozenset()
        c = self._add(node, "class", node.name, frozenset({node.name}), reads, outer,
                      frozenset().union(*(_dynamic(n) for n in [*own, *header])))
        for item in node.body:
            if isinstance(item, ast.ClassDef):
                self._class(item, c)
            elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._add(item, "def", item.name, frozenset({item.name}), _reads(item), c, _dynamic(item))

    def ran_units(self, names) -> dict[str, str] | None:
        """Per unit named in ``names`` (qualified names; a nested function's, a lambda's or a
        comprehension's belong to the def or class around it; the module's top-level code to
        none, it is in every key), and the classes around it, sha256 of its text; None when a
        name is no unit's (what it depends on is unknown)."""
        by_qual = {q: i for i, q in enumerate(self.qual) if q is not None}
        out: dict[str, str] = {}
        for name in names:
            q = name.split(".<locals>", 1)[0]
            parts = q.split(".")
            while parts and parts[-1].startswith("<"):
                parts.pop()
            if not parts:
                continue                # the module's top-level code: in the static key's context
            q = ".".join(parts)
            if q not in by_qual:
                return None
            i: int | None = by_qual[q]
            while i is not None:        # a method runs in its class: the class body's names, bases
                out[self.qual[i] or "?"] = sha256(self.text(i))
                i = self.units[i].cls
        return out

    def quals_of_lines(self, lines) -> set[str] | None:
        """The qualified names of the units whose code ran, given the lines that ran: a def's
        header and a top-level statement run at import (the statement is in every static key);
        None when a line is in no unit."""
        at = self.line_units()
        out: set[str] = set()
        for line in lines:
            i = at.get(line)
            if i is None:
                return None
            if line in self.headers and self.units[i].kind == "def" or self.units[i].kind == "stmt":
                continue
            out.add(self.qual[i] or "?")
        return out

    def unit_hash(self, qual: str) -> str | None:
        """sha256 of the text of the unit named ``qual`` now (None: no such unit)."""
        for i, q in enumerate(self.qual):
            if q == qual:
                return sha256(self.text(i))
        return None

    def text(self, i: int) -> bytes:
        """A unit's text; a class's own body is its text with its methods' and inner classes'
        text cut out (each is a unit of its own)."""
        u = self.units[i]
        if u.kind != "class":
            return self.parent[u.lo:u.hi]
        out, at = [], u.lo
        for v in sorted((v for v in self.units if v.cls == i), key=lambda v: v.lo):
            out.append(self.parent[at:v.lo])
            at = max(at, v.hi)
        out.append(self.parent[at:u.hi])
        return b"\1".join(out)

    def holding(self, lo: int, hi: int) -> int | None:
        """The innermost unit whose span holds bytes [lo, hi); None when none does (a change
        across two top-level statements)."""
        best = None
        for i, u in enumerate(self.units):
            if u.lo <= lo and hi <= u.hi and (best is None or u.hi - u.lo < self.units[best].hi - self.units[best].lo):
                best = i
        return best

    @functools.lru_cache(maxsize=None)
    def reach(self, i: int) -> frozenset[int]:
        """The units ``i`` reaches by name, transitively (the module doc), ``i`` left out."""
        seen, todo = {i}, [i]
        while todo:
            for j in self._edges[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        return frozenset(seen - {i})

    def line_units(self) -> dict[int, int]:
        """1-based line -> the innermost unit holding it."""
        out: dict[int, int] = {}
        for i in sorted(range(len(self.units)), key=lambda i: -(self.units[i].hi - self.units[i].lo)):
            u = self.units[i]
            first = _line_of(self._starts, u.lo)
            last = _line_of(self._starts, max(u.lo, u.hi - 1))
            for ln in range(first, last + 1):
                out[ln] = i
        return out


def _line_of(starts: list[int], offset: int) -> int:
    import bisect
    return bisect.bisect_right(starts, offset)


def _reads(node: ast.AST) -> frozenset[str]:
    return frozenset(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node)
                     if isinstance(n, (ast.Name, ast.Attribute)))


def _defines(node: ast.stmt) -> frozenset[str]:
    out = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for n in ast.walk(node):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
    return frozenset(out)


def _dynamic(node: ast.AST) -> frozenset[str]:
    """The prefixes of the names ``node`` looks up at run time: ``getattr(x, "bump_" + part)``
    gives "bump_", a computed name with no constant prefix, ``globals()``, ``vars()``, ``eval``,
    ``exec`` or ``__dict__`` give "" (any name); empty when it looks up none."""
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and n.attr == "__dict__":
            out.add("")
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name not in _DYNAMIC_CALLS:
                continue
            at = 1 if name in ("getattr", "hasattr", "setattr") else 0
            if name in ("getattr", "hasattr", "setattr", "attrgetter", "methodcaller") and len(n.args) > at:
                out.add(_prefix(n.args[at]))
            else:
                out.add("")
    return frozenset(out)


def _prefix(arg: ast.expr) -> str:
    """The constant text a computed name starts with ("" when none is known)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value            # getattr(x, "name"): that name (and longer ones: harmless)
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
        return _prefix(arg.left)
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value)
    return ""


@functools.lru_cache(maxsize=8)
def units_of(parent: bytes) -> Units | None:
    try:
        return Units(parent)
    except (UnicodeDecodeError, SyntaxError, ValueError):
        return None


def static_key(parent: bytes, mutant: Mutant, reach: bool = True) -> str:
    """The mutant's static key (the module doc); its exact bytes and its parent's when it is not
    one unit's change (a deletion, a change across statements, a module that does not parse)."""
    exact = f"exact:{sha256(parent)}:{mutant.digest or 'deleted'}:{mutant.operator}"
    if mutant.content is None:
        return exact
    units = units_of(parent)
    if units is None:
        return exact
    from corpus.browse import splice
    lo, hi, rep = splice(parent, mutant.content)
    i = units.holding(lo, hi)
    if i is None:
        return exact
    u = units.units[i]
    before = parent[u.lo:u.hi]
    after = parent[u.lo:lo] + rep + parent[hi:u.hi]
    if not reach:           # what the tests ran on the mutant is checked apart (FineReuse: "ran")
        return "unit3:" + sha256(b"\0".join([mutant.operator.encode(), (mutant.label or "").encode(), before, after,
                                            units.context.encode()]))
    reached = [units.text(j) for j in sorted(units.reach(i))]
    return "unit2:" + sha256(b"\0".join([mutant.operator.encode(), (mutant.label or "").encode(), before, after,
                                        units.context.encode(), *reached]))


class TestPrints:
    """Each test's fingerprint (the module doc) for one run: this run's coverage map, the module
    as it is now, and the gate's test files. Computed once per run, not per mutant."""

    def __init__(self, cmap: CoverageMap, split: SuiteSplit):
        self.split = split
        parent = cmap.source.encode("utf-8")
        units = units_of(parent)
        collected = split._collected()
        h = hashlib.sha256()
        for f in sorted(collected):
            for kept in collected[f]:
                if kept:            # a file of plain tests only adds nothing at collection
                    h.update(f.encode() + b"\0" + kept + b"\0")
        self._ran: dict[tuple[str, str], set[int]] = {}     # by node_key: pytest and coverage name a test apart
        line_unit = units.line_units() if units is not None else {}
        # a function body run under the import context (by the module's top level, by a test
        # file at collection, by a fixture wider than a function) serves every test: what it
        # returned may be any test's input, so its text is in every fingerprint
        shared: set[int] = set()
        for line, tests in cmap.contexts.items():
            for t in tests:
                if t:
                    self._ran.setdefault(node_key(t), set()).add(line_unit.get(line, -1))
                elif line in cmap._in_function:
                    shared.add(line_unit.get(line, -1))
        h.update(b"\3" + b"\0".join(units.text(i) if units is not None and i >= 0 else b"?" for i in sorted(shared)))
        self._suite = h.hexdigest()
        self._units = units
        self._prints: dict[tuple[str, str], str | None] = {}
        self._trees: dict[Path, ast.Module | None] = {}
        self._lock = threading.Lock()

    def of(self, nodeid: str) -> str | None:
        """The test's fingerprint; None when its function cannot be found (then it never matches)."""
        key = node_key(nodeid)
        with self._lock:
            if key not in self._prints:
                self._prints[key] = self._print(key)
            return self._prints[key]

    def _print(self, key: tuple[str, str]) -> str | None:
        if self._units is None:
            return None
        code = self._test_code(*key)
        if code is None:
            return None
        ran = sorted(self._ran.get(key, set()))
        if -1 in ran:
            return None             # a line outside every unit: cannot say what it ran
        # the module's code the test runs is not in its fingerprint: each judgment keeps what the
        # tests ran on its mutant (FineReuse, "ran"), which is what its verdict depends on
        h = hashlib.sha256(self._suite.encode() + b"\0" + key[0].encode() + b"\0" + code)
        return h.hexdigest()[:32]

    def _test_code(self, file: str, rest: str) -> bytes | None:
        """The test's own text and every part of its file it reaches by name (``_reached_text``);
        None when it is not one def of one file."""
        found = self.split.tests.get(file, [])
        if len(found) != 1:
            return None
        path = found[0]
        if path not in self._trees:
            try:
                self._trees[path] = parse(_file_bytes(path))
            except (OSError, SyntaxError, ValueError):
                self._trees[path] = None
        tree = self._trees[path]
        if tree is None:
            return None
        names = rest.split("[", 1)[0].split("::")
        scope: list[ast.stmt] = tree.body
        node: ast.AST | None = None
        for i, name in enumerate(names):
            want = (ast.FunctionDef, ast.AsyncFunctionDef) if i == len(names) - 1 else ast.ClassDef
            hits = [n for n in scope if isinstance(n, want) and n.name == name]
            if len(hits) != 1:
                return None
            node = hits[0]
            if isinstance(node, ast.ClassDef):
                scope = node.body
        if node is None:
            return None
        return _reached_text(tree, node, names[:-1])


def _bindings(tree: ast.Module, classes: list[str]) -> dict[str, list[tuple[int, ast.AST]]]:
    """What a name can mean in a test: per name, the test file's top-level statements binding it
    (a def, a class, an assignment, one alias of an import) and the members of the test's
    enclosing classes (``self.test_a()`` reaches the sibling method), each with its place in the
    file (a later binding wins). A star import binds any name: it is under every name (key "*")."""
    out: dict[str, list[tuple[int, ast.AST]]] = {}

    def bind(body: list[ast.stmt], base: int) -> None:
        for i, n in enumerate(body):
            at = base + i
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:           # one alias: a new name imported leaves the others' prints
                    one = ast.ImportFrom(module=n.module, names=[a], level=n.level) \
                        if isinstance(n, ast.ImportFrom) else ast.Import(names=[a])
                    out.setdefault((a.asname or a.name).split(".")[0], []).append((at, one))
                continue
            for name in _defines(n) if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                    else {n.name}:
                out.setdefault(name, []).append((at, n))

    bind(tree.body, 0)
    scope = tree.body
    for depth, cname in enumerate(classes, 1):
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == cname), None)
        if cls is None:
            break
        bind(cls.body, depth << 20)
        scope = cls.body
    return out


def _reached_text(tree: ast.Module, node: ast.AST, classes: list[str]) -> bytes:
    """ast.dump of the test's function and, transitively, of everything of its file it reaches by
    name (``_bindings``: a test function or method it calls, a helper, the import alias binding a
    name it reads, a star import, a module-level alias of another test), each with its place in
    the file; a name looked up at run time reaches every binding of its prefix
    (``getattr(self, "check_" + x)``), one with no constant prefix (``globals()``, ``eval``) the
    whole file. The enclosing classes' own bodies (bases, attributes, decorators) are in it too."""
    bound = _bindings(tree, classes)
    stars = bound.get("*", [])
    parts, seen, todo = [ast.dump(node)], {id(node)}, [node]
    scope = tree.body
    for cname in classes:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == cname), None)
        if cls is None:
            break
        own: list[ast.AST] = [n for n in cls.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                           ast.ClassDef))]
        own += [*cls.bases, *cls.decorator_list, *(k.value for k in cls.keywords)]
        parts += [ast.dump(n) for n in own]
        todo += own             # what they name is reached too (a base class)
        scope = cls.body
    while todo:
        cur = todo.pop()
        dyn = _dynamic(cur)
        if "" in dyn:
            return ast.dump(tree).encode()          # any name of the file: all of it
        reached = [b for name, bs in bound.items() if any(name.startswith(p) for p in dyn) for b in bs]
        for name in sorted(_reads(cur)):
            reached += sorted(bound.get(name, []) + stars, key=lambda b: b[0])
        for at, b in reached:
            if id(b) not in seen:
                seen.add(id(b))
                parts.append(f"{at}:{ast.dump(b)}")
                todo.append(b)
    return "\0".join(parts).encode()


class FineReuse:
    """Judgments reused on the fast path by the rules of the module doc. ``keys``: per job key,
    (the static key's cache key, the gate's ``SuiteSplit``). Thread-safe."""

    def __init__(self, store, keys: dict[tuple[str, str, str], tuple[str, SuiteSplit]]):
        self.store, self.keys = store, keys
        self._lock = threading.Lock()
        self._prints: dict[int, TestPrints] = {}
        self.reused = 0

    def prints(self, session, split: SuiteSplit) -> TestPrints | None:
        """The fingerprints of ``session``'s tests (one gate's session, its ``split``)."""
        if session.map is None:
            return None
        with self._lock:
            tp = self._prints.get(id(session))
            if tp is None:
                tp = self._prints[id(session)] = TestPrints(session.map, split)
        return tp

    def _selection(self, session, mutant: Mutant) -> list[str]:
        """The tests the fast path runs for ``mutant``: its coverage selection, or the whole suite."""
        assert session.map is not None
        sel = session.map.select(mutant.content)
        return list(session.map.order) if sel is None else sel

    def lookup(self, job_key: tuple[str, str, str], mutant: Mutant | None, session) -> dict | None:
        """The stored row to reuse for this mutant, or None (judge it)."""
        k = self.keys.get(job_key)
        if k is None or mutant is None or mutant.content is None or session.map is None:
            return None
        hit = self.store.get(k[0])
        if hit is None or not isinstance(hit.get("prints"), dict):
            return None
        tp = self.prints(session, k[1])
        if tp is None:
            return None
        selected = self._selection(session, mutant)
        stored: dict = hit["prints"]
        ran = hit.get("ran")
        units = units_of(session.map.source.encode("utf-8"))
        if not isinstance(ran, dict) or units is None or any(units.unit_hash(q) != h for q, h in ran.items()):
            return None             # code the tests ran on the mutant was edited (or is unknown)
        now = {_name(t): t for t in selected}
        if hit.get("verdict") == "reject":
            # every test that ran up to the kill (a test before it may have left the state it
            # failed on) is selected again with the same print; entries without the list: judged
            seq = hit.get("tests_run")
            ok = isinstance(seq, list) and bool(seq) and all(
                isinstance(n, str) and n in now and stored.get(n) is not None and stored.get(n) == tp.of(now[n])
                for n in seq)
        elif hit.get("verdict") == "accept":
            # the same tests, no fewer and no more: one left out may have set the state the others
            # passed on, one added may fail
            ok = set(now) == set(stored) and all(stored[n] == tp.of(t) and tp.of(t) is not None for n, t in now.items())
        else:
            ok = False
        if not ok:
            return None
        with self._lock:
            self.reused += 1
        return hit

    def remember(self, job_key: tuple[str, str, str], mutant: Mutant | None, session, row,
                 ran: dict[str, tuple[int, ...]] | None = None) -> None:
        """Store a fast-path judgment with what it rests on: the killer's fingerprint for a
        reject, every selected test's for an accept, and the text of every unit of the module
        the tests ran on the mutant (``ran``: the code objects' qualified names the child
        recorded; None - unknown - stores nothing)."""
        k = self.keys.get(job_key)
        if k is None or mutant is None or mutant.content is None or session.map is None or ran is None or \
                row.executor not in ("swap", "fork", "coverage") or row.verdict not in ("accept", "reject"):
            return
        units, on_mutant = units_of(session.map.source.encode("utf-8")), units_of(mutant.content)
        lines = _ran_lines(ran, row.killer if row.verdict == "reject" else None)
        names = on_mutant.quals_of_lines(lines) if on_mutant is not None else None
        texts = units.ran_units(names) if units is not None and names is not None else None
        if texts is None:
            return
        tp = self.prints(session, k[1])
        if tp is None:
            return
        selected = self._selection(session, mutant)
        if row.verdict == "reject":
            killer = _resolve(row.killer, selected)
            now = {_name(t): t for t in selected}
            ids = [_resolve(t, selected) for t in ran if t]     # the tests that ran, in order (-x: to the kill)
            seq = [_name(t) for t in ids if t]
            if not killer or len(seq) != len(ids) or _name(killer) not in seq or not set(seq) <= set(now):
                return
            prints = {n: tp.of(now[n]) for n in seq}
            if all(prints.values()):
                self.store.put(k[0], row, {"prints": prints, "killer": killer, "tests_run": seq, "ran": texts})
            return
        prints = {}
        for t in selected:
            fp = tp.of(t)
            if fp is None:
                return
            prints[_name(t)] = fp
        self.store.put(k[0], row, {"prints": prints, "ran": texts})


def _ran_lines(ran: dict[str, tuple[int, ...]], killer: str | None) -> set[int]:
    """What a verdict rests on of the code a run recorded: all of it, for a reject too (a test
    run before the killer may have set the state it failed on: the tests are not taken as
    independent)."""
    out: set[int] = set()
    for names in ran.values():
        out.update(names)
    return out


def _resolve(killer: str | None, selected: list[str]) -> str | None:
    """The selected test ``killer`` names. pytest names a test by its path from the rootdir, and
    a run given one test file as its only path reports ``::test_x`` (no file): that one is
    matched by the rest of its name, when exactly one selected test has it."""
    if not killer:
        return None
    f, rest = node_key(killer)
    if f:
        return killer
    hits = [t for t in selected if node_key(t)[1] == rest]
    return hits[0] if len(hits) == 1 else None


def _name(nodeid: str) -> str:
    f, rest = node_key(nodeid)
    return f"{f}::{rest}"


def fine_cache_key(loop: str, rest: str, parent: bytes, mutant: Mutant) -> str:
    """The cache key of a mutant's fine entry: the loop, the gate's files without its test files
    and the context digest (``rest``), and the mutant's static key."""
    return sha256(f"fine\0{loop}\0{rest}\0{static_key(parent, mutant, reach=False)}\0{mutant.label}".encode())
