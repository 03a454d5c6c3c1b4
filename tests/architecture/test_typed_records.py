"""Records are typed from the cell to the page (issue 36): read from the AST of every module.

A cell produces a ``harness.core.record.CellRecord``; the layers above carry the object, and JSON
appears only where a file is read or written. Two rules, checked on every module of the packages:

1. **No record field read by string key.** A read of a dict by a key that is a record field's name
   (``record.FIELDS`` and the ledger's stamp) is a finding outside the serialization edge (``EDGE``:
   the modules that read or write a records file, or validate its objects before they are parsed).
   A read is a subscript load (``rec["outcome"]``), ``.get`` or ``.pop`` (``r.get("arm")``,
   ``rec.pop("outcome")``) or ``operator.itemgetter("outcome")``; its key is a literal, or a name bound
   to a field's name (``_Module``: an assignment, a ``for`` or comprehension over a literal, a
   module's tuple or an imported one such as ``record.FIELDS``, a parameter some call of the module
   passes a field's name, to a fixpoint).
2. **No outcome literal.** An outcome's value written as a string literal is a finding outside the
   enum's definition (``harness/core/outcomes.py``) where it is compared with (``==``, ``!=``, ``in``,
   ``not in``, ``isin``) or given as an outcome (``x.outcome = ...``, ``outcome=...``, a ``"outcome"``
   key of a dict literal, a positional ``outcome`` parameter of a function or dataclass of the module):
   alone, in a tuple, list, set or frozenset, or held by a name bound to one (``COMPLETION =
   ("completed", "recovered")`` compared as ``o in COMPLETION``). Code compares ``Outcome`` members,
   and a column of the file's strings is compared with values computed from the enum
   (``Outcome.VOID.value``). The edge modules are held to this rule too: their exemption is for
   reading records' objects, and none of their outcome comparisons is a literal.

A string-key read is told from an attribute read by syntax only, so a dict that is not a record
but uses a record field's name as a key (an event's ``"seq"``, an engine's usage entry) is a
finding too. Records in column form (the reader at the edge hands a records file over as columns
named by the record's fields, the form a million records are counted and joined in: compare's
columns and pairs, the analysis's tidy table) are read by a member of ``analysis.pairs.Col``, the
columns' one schema (``tidy[Col.ARM]``; ``COLUMN_ENUM``): a member of it is not a literal key (its
values are checked to be the record's fields where it is defined), while a module's plain string
constant still is. run.json is read as ``harness.core.runmeta.RunMeta``, a signed receipt as
``harness.ledger.receipts.Receipt``. Inside a module that is no edge, the one function that reads
another file or wire format (a provider's reply, a transcript, the protocol's lock, an Inspect log, B5's
host result) into its typed object is an edge function (``EDGE_FUNCTIONS``), like the tamper campaign's
forgeries, which edit raw objects on purpose. The reads left
are listed by function in ``NOT_YET`` with their count and why, each reason saying its kind
(``KINDS``): both counts are exact, so a new read fails the test and a read removed asks for its entry
to shrink (the table cannot go stale). No entry is a record's object read as a dict: none is "not
yet typed" (a test says so).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core import record
from harness.core.record import FIELDS, LEDGER_STAMP, OUTCOMES

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("harness", "analysis", "corpus", "viewer", "interop")
SKIP = ("corpus/catalogue", "corpus/examples")  # data: loops' gates and example trees, not the package's code
RECORD_KEYS = frozenset(FIELDS) | frozenset(LEDGER_STAMP)
ENUM_DEFINITION = "harness/core/outcomes.py"
OUTCOME_VALUES = frozenset(OUTCOMES)
# the modules whose computed tuples (record.FIELDS, REQUIRED, IDENTITY) a name bound to a field's name may come
# from: read as imported here, whatever else the test process has imported
COMPUTED = {"harness.core.record": record}
COLLECTIONS = ("tuple", "list", "set", "frozenset", "sorted")
# the enum records in column form are read by (compare's columns and pairs, the tidy table): its members are the
# columns' schema, each checked to be a record field's name where it is defined, not literal keys
COLUMN_ENUM = ("analysis.pairs", "Col")
READ_METHODS = ("get", "pop")  # a dict's reads by key (a Load subscript is the third)

# The serialization edge: modules that read or write a records file, or check a record's JSON
# object before it is parsed into a CellRecord. Every read outside them is a finding.
EDGE = {
    "harness/core/record.py": "CellRecord.from_json / to_json, the JSON Schema, and the checks of a record's raw object",
    "harness/ledger/ledger.py": ("the hash-chained records file: hashes, chains and anchors over the lines as written, and "
                                 "LedgerLine, the lenient view of a line that receipts verify and rejudge check"),
    "harness/ledger/seal.py": "the run key's seal over the ledger's lines as written",
    "harness/ledger/rundir.py": "run.json repaired from the records file's lines",
    "analysis/records.py": "the analysis's reader: validates every producer's record object (JSONL, CSV, Parquet) into columns",
    "analysis/fastload.py": "the analysis's columnar fast reader of a records file (a million records in seconds)",
    "harness/cli/schema_cli.py": "`harness schema records --validate`: checks records files' objects against the schema",
    "harness/core/runmeta.py": "RunMeta.from_json / to_json: run.json's object to the typed run meta and back",
    "harness/loop/rows.py": "LoopRow.from_json: a loop ledger's row (its JSON object) to the typed row the loop reads",
    "analysis/summary.py": ("the analysis summary's and the comparison's parts (a contrast, a per-scenario row, the task "
                            "concentration, a paired test, a side's token readout) parsed into their typed views"),
    "harness/run/journals.py": ("the void and requeue journals (voids.jsonl, requeues.jsonl): their lines written and "
                                "parsed into VoidLine and RequeueLine, strictly (a line without its cell key is an error)"),
    "harness/ledger/receipts.py": ("a signed receipt's object checked (its shape, its signature over the canonical "
                                   "bytes) and parsed into the typed Receipt (Receipt.from_json) its readers read"),
}

# Why a function's reads are not a typed record's. "not a record": the dict is something else that
# uses a record field's name as a key. A reason that says "not yet typed" (a record read as a dict still)
# is refused: the last ones (compare's row path, receipts verify and rejudge, the Inspect import) are typed.
WIRE = ("serialization: a provider's reply as it comes off the wire (the Chat Completions usage object), parsed into "
        "the harness's Usage in this one function")
WIRE_STATS = ("serialization: a call's wire record (the provider's raw body with the harness's status, endpoint, faults "
              "and limiter waits), as the live engine hands it over and the transcript stores it")
TRANSCRIPT = ("serialization: a transcript file's entries (transcripts/<cell>.jsonl, or a hand-written agent script): "
              "checked field by field, and parsed into EngineReply and Usage where they are read back")
ENGINE_OPTIONS = ("serialization: the run's engine options (run.json's open engine_options object, each engine reading "
                  "its own keys), parsed into the replay engine's typed ReplayOptions")
PROTOCOL = ("serialization: the protocol's lock file (.lock.json), validated key by key (read_lock) and parsed into the "
            "typed ProtocolLock that drift compares")
LOOP = ("serialization: the reviewer-discrimination study's items (a JSON list, or the task corpus's candidates as "
        "read_task_dirs hands them over), checked and parsed into Item; the bounded loop's ledger rows are read as "
        "harness.loop.rows.LoopRow")
PARSE = ("serialization: the viewer's reader of a records line checks the object's cell fields (their types, named "
         "by file and line) just before CellRecord.from_json parses it")
HOST_KILL = ("serialization: B5's killed host's result file (the arm's result, attempts, review rounds and flags its "
             "child process writes), parsed into the typed _HostResult where it is read")
ATTEST = "not an outcome: an attestation key ('completed') the corpus's attestation operator hollows"
TAMPER = ("the tamper campaign's forgeries: it edits records files' lines and receipts as JSON on purpose (a forgery "
          "is a raw object changed, which no typed view may normalise first)")
INSPECT = ("serialization: the Inspect import reads an Inspect log's sample (its metadata, scores and score metadata, "
           "where a harness export writes a cell's fields) and builds the CellRecord of it (interop.inspect_logs."
           "ImportedRecord), serialized where the records file is written")
INSPECT_USAGE = ("serialization: the Inspect export writes each of a record's usage_by_model entries (the record's JSON "
                 "object of token counts, null where a count was not exposed) as Inspect's ModelUsage")

# The serialization edge inside a module that is not one: the one function that reads a file or a wire format
# other than the records file (a provider's reply, a transcript, an Inspect log, a lock, a journal) into a typed
# object, or the tamper campaign's forgeries (tests that must edit raw objects). (module, function) -> (its
# string-key reads of record field names, why). The count is exact, like NOT_YET's; an outcome literal in one is
# a finding like anywhere else. Each reason says its kind (EDGE_KINDS).
EDGE_FUNCTIONS: dict[tuple[str, str], tuple[int, str]] = {
    ("harness/run/cellrun.py", "_HostResult.from_json"): (4, HOST_KILL),
    ("harness/core/protocol.py", "read_lock"): (1, PROTOCOL),
    ("harness/core/protocol.py", "ProtocolLock.from_json"): (1, PROTOCOL),
    ("harness/engines/openai.py", "OpenAIEngine.usage_from_wire"): (2, WIRE),
    ("harness/engines/transcript.py", "Transcript._wire_stats"): (3, WIRE_STATS),
    ("harness/engines/transcript.py", "Transcript.reload"): (1, TRANSCRIPT),
    ("harness/engines/transcript.py", "_check_entry"): (2, TRANSCRIPT),
    ("harness/engines/transcript.py", "reply_from_dict"): (2, TRANSCRIPT),
    ("harness/engines/replay.py", "ReplayOptions.of"): (2, ENGINE_OPTIONS),
    ("harness/loop/reviewer_discrimination.py", "items_from_json"): (1, LOOP),
    ("harness/loop/reviewer_discrimination.py", "items_from_tasks"): (1, LOOP),
    ("interop/inspect_logs.py", "_outcome_fields"): (7, INSPECT),
    ("interop/inspect_logs.py", "_record"): (8, INSPECT),
    ("interop/inspect_logs.py", "_record.number"): (1, INSPECT),
    ("interop/inspect_logs.py", "_sample"): (3, INSPECT_USAGE),
    ("viewer/rundir.py", "_parse"): (1, PARSE),
    ("harness/run/tamper.py", "Bundle.final_visible"): (2, TAMPER),
    ("harness/run/tamper.py", "_evidence_edit"): (2, TAMPER),
    ("harness/run/tamper.py", "_flip_code_byte"): (1, TAMPER),
    ("harness/run/tamper.py", "_verdict_swap"): (1, TAMPER),
}
EDGE_KINDS = ("serialization", "the tamper campaign's forgeries")

# (module, function) -> (string-key reads of record field names, outcome-literal comparisons, why).
NOT_YET: dict[tuple[str, str], tuple[int, int, str]] = {
    ("corpus/operators/attestation.py", "is_attest_key"): (0, 1, ATTEST),
}


@dataclass(frozen=True)
class Finding:
    path: str
    function: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function}: {self.what}"


_SOURCES: dict[tuple[Path, str], "_Module | None"] = {}


_BINDERS = (ast.Assign, ast.AnnAssign, ast.For, ast.comprehension, ast.Call)


def _scope_chain(scope: str) -> list[str]:
    """``scope`` and the scopes enclosing it, innermost first, ``<module>`` last."""
    if scope == "<module>":
        return [scope]
    parts = scope.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)] + ["<module>"]


class _Module:
    """What a module's names may hold: the strings each name is bound to, found by following, to a fixpoint,
    assignments, ``for`` and comprehension targets, parameters (from every call of a function or dataclass of the
    module, by position and keyword, and ``map(f, ...)``) and defaults. ``follow``: a name imported from a package
    module that is not a plain literal there (``record.FIELDS``) is read by importing it; else only literals
    written in the packages' source count (the outcome rule: ``OUTCOMES`` is the enum's, not a literal)."""

    def __init__(self, tree: ast.Module, root: Path, follow: bool, walked: _Module | None = None):
        self.root, self.follow = root, follow
        self.bound: dict[tuple[str, str], set[str]] = {}
        if walked is not None:  # the same module's walk, bound again with the other ``follow``
            self.scope, self.imports, self.funcs = walked.scope, walked.imports, walked.funcs
            self.locals = walked.locals
        else:
            self.scope: dict[ast.AST, str] = {}
            self.locals: dict[str, set[str]] = {}  # scope -> the names it binds (a local shadows an outer name)
            self.imports: dict[str, tuple[str, str | None]] = {}  # alias -> (module, name); None: the module
            self.funcs: dict[str, list[tuple[str, list[str], bool]]] = {}  # name -> (scope, params, a method)
            self._walk(tree, "<module>", in_class=False)
        binders = [(n, s) for n, s in self.scope.items() if isinstance(n, _BINDERS)]
        for _ in range(12):  # to a fixpoint (each pass only adds)
            before = sum(map(len, self.bound.values()))
            for node, scope in binders:
                self._bind(node, scope)
            if sum(map(len, self.bound.values())) == before:
                break

    def _walk(self, node: ast.AST, scope: str, in_class: bool) -> None:
        for child in ast.iter_child_nodes(node):
            self.scope[child] = scope
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                self.locals.setdefault(scope, set()).add(child.id)
            inner, cls = scope, False
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name if scope == "<module>" else f"{scope}.{child.name}"
                a = child.args
                params = [p.arg for p in (*a.posonlyargs, *a.args)]
                self.locals.setdefault(inner, set()).update(params, (p.arg for p in a.kwonlyargs))
                self.funcs.setdefault(child.name, []).append((inner, params + [p.arg for p in a.kwonlyargs], in_class))
                for p, d in zip(params[len(params) - len(a.defaults):], a.defaults):
                    self.scope[d] = scope
                    self._add(inner, p, d, scope)
            elif isinstance(child, ast.ClassDef):
                inner, cls = (child.name if scope == "<module>" else f"{scope}.{child.name}"), True
                fields = [s.target.id for s in child.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
                if fields:  # a dataclass's (or NamedTuple's) fields are its constructor's parameters
                    self.funcs.setdefault(child.name, []).append((inner, fields, False))
            elif isinstance(child, ast.ImportFrom) and child.module and not child.level:
                for a in child.names:
                    self.imports[a.asname or a.name] = (child.module, a.name)
            elif isinstance(child, ast.Import):
                for a in child.names:
                    self.imports[a.asname or a.name.split(".")[0]] = (a.name if a.asname else a.name.split(".")[0], None)
            self._walk(child, inner, cls)

    def _add(self, scope: str, name: str, expr: ast.expr, at: str) -> None:
        got = self.resolve(expr, at)
        if got:
            self.bound.setdefault((scope, name), set()).update(got)

    def _bind(self, node: ast.AST, scope: str) -> None:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(t, ast.Name):
                    self._add(scope, t.id, node.value, scope)
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) \
                and not isinstance(node.iter, ast.Constant):
            self._add(scope, node.target.id, node.iter, scope)
        elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Tuple) \
                and isinstance(node.iter, (ast.Tuple, ast.List)):  # for k, typ in (("arm", str), ...): by position
            for item in node.iter.elts:
                if isinstance(item, ast.Tuple) and len(item.elts) == len(node.target.elts):
                    for name, value in zip(node.target.elts, item.elts):
                        if isinstance(name, ast.Name):
                            self._add(scope, name.id, value, scope)
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else \
                node.func.attr if isinstance(node.func, ast.Attribute) else None
            if name == "map" and len(node.args) >= 2 and isinstance(node.args[0], ast.Name):
                for fscope, params, method in self.funcs.get(node.args[0].id, ()):
                    if len(params) > int(method):
                        self._add(fscope, params[int(method)], node.args[1], scope)
                return
            for fscope, params, method in self.funcs.get(name or "", ()):
                skip = int(method and isinstance(node.func, ast.Attribute))
                for p, arg in zip(params[skip:], node.args):
                    if not isinstance(arg, ast.Starred):
                        self._add(fscope, p, arg, scope)
                for kw in node.keywords:
                    if kw.arg in params:
                        self._add(fscope, kw.arg, kw.value, scope)

    def resolve(self, expr: ast.AST, scope: str, seen: frozenset = frozenset()) -> set[str]:
        """The strings ``expr`` may be, or hold (a collection's elements); empty when unknown."""
        if isinstance(expr, ast.Constant):
            return {expr.value} if isinstance(expr.value, str) else set()
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return set().union(*(self.resolve(e, scope, seen) for e in expr.elts))
        if isinstance(expr, ast.Starred):
            return self.resolve(expr.value, scope, seen)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in COLLECTIONS \
                and len(expr.args) == 1:
            return self.resolve(expr.args[0], scope, seen)
        if isinstance(expr, ast.BinOp):
            return self.resolve(expr.left, scope, seen) | self.resolve(expr.right, scope, seen)
        if isinstance(expr, ast.IfExp):
            return self.resolve(expr.body, scope, seen) | self.resolve(expr.orelse, scope, seen)
        if isinstance(expr, ast.Name):
            owner = next((s for s in _scope_chain(scope) if expr.id in self.locals.get(s, ())), None)
            got = set(self.bound.get((owner, expr.id), set())) if owner else set()
            if owner is None and expr.id in self.imports and expr.id not in seen:
                module, name = self.imports[expr.id]
                got = self._external(module, name, seen | {expr.id}) if name else set()
            return got
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in self.imports:
            module, name = self.imports[expr.value.id]
            if (module, name) == COLUMN_ENUM:  # Col.ARM: a column of the schema, not a literal key
                return set()
            return self._external(f"{module}.{name}" if name else module, expr.attr, seen)
        return set()

    def _external(self, module: str, name: str, seen: frozenset) -> set[str]:
        """A package module's module-level ``name``: its literal strings, else (``follow``) its value imported."""
        if module.split(".")[0] not in PACKAGES:
            return set()
        file = self.root / (module.replace(".", "/") + ".py")
        key = (file, str(self.follow))
        if key not in _SOURCES:
            _SOURCES[key] = None  # a cycle of imports reads nothing
            if file.is_file():
                _SOURCES[key] = _Module(ast.parse(file.read_text()), self.root, self.follow)
        other = _SOURCES[key]
        got = set(other.bound.get(("<module>", name), set())) if other else set()
        if not got and self.follow and module in COMPUTED:  # a value computed there (record.FIELDS): read from
            # the module as this test imports it (never whatever else the process has imported: the same answer
            # in any order of tests; importing more would cost seconds, and run their code)
            value = getattr(COMPUTED[module], name, None)
            if isinstance(value, str):
                got = {value}
            elif isinstance(value, (tuple, list, set, frozenset)) and all(isinstance(v, str) for v in value):
                got = set(value)
        return got


# pandas calls whose first argument (or ``by``/``subset``/``columns`` keyword) names columns: a tidy table's
# record-field columns are read there as by a subscript (``groupby("scenario")``, ``reindex(columns=[...])``)
COLUMN_METHODS = frozenset({"groupby", "sort_values", "set_index", "drop_duplicates", "reindex", "pivot_table"})
COLUMN_KEYWORDS = frozenset({"by", "subset", "columns", "keys", "index", "values"})


def _elements(e: ast.expr) -> list[ast.expr]:
    """A key expression, or each element of a list or tuple of keys (``t[["arm", *strata]]``)."""
    if isinstance(e, (ast.List, ast.Tuple)):
        return [x.value if isinstance(x, ast.Starred) else x for x in e.elts]
    return [e]


def _reads(node: ast.AST) -> tuple[list[ast.expr], str]:
    """The key expressions a node reads a dict or a table by, and how (a Load subscript, a list of columns,
    ``.get``, ``.pop``, ``itemgetter``, a pandas call naming columns). A ``Literal[...]`` annotation is no read."""
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        base = node.value
        if (base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None) == "Literal":
            return [], ""
        return _elements(node.slice), ""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in COLUMN_METHODS:
            keys = [k.value for k in node.keywords if k.arg in COLUMN_KEYWORDS]
            return [x for e in [*node.args[:1], *keys] for x in _elements(e)], f" ({f.attr})"
        if not node.args:
            return [], ""
        if isinstance(f, ast.Attribute) and f.attr in READ_METHODS:
            return [node.args[0]], "" if f.attr == "get" else f" ({f.attr})"
        if (f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None) == "itemgetter":
            return [a.value if isinstance(a, ast.Starred) else a for a in node.args], " (itemgetter)"
    return [], ""


def _named_outcome(target: ast.AST) -> bool:
    """An assignment target that holds an outcome: ``outcome``, ``x.outcome``, ``x["outcome"]``."""
    return (isinstance(target, ast.Name) and target.id == "outcome"
            or isinstance(target, ast.Attribute) and target.attr == "outcome"
            or isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant)
            and target.slice.value == "outcome")


def findings_in(source: str, path: str, root: Path = REPO) -> list[Finding]:
    """Every read of a record field by a string key (a literal, or a name bound to a field's name) and every
    outcome literal compared with, or given as, an outcome in ``source``, each with the function it is in
    (``<module>`` at the top level; ``Class.method`` in a class)."""
    tree = ast.parse(source)
    keys = _Module(tree, root, follow=True)
    lits = _Module(tree, root, follow=False, walked=keys)
    out: list[Finding] = []

    def outcome(node: ast.AST, expr: ast.AST, scope: str, how: str) -> None:
        held = f" (held by `{ast.unparse(expr)}`)" if isinstance(expr, (ast.Name, ast.Attribute)) else ""
        for value in sorted(lits.resolve(expr, scope) & OUTCOME_VALUES):
            out.append(Finding(path, scope, node.lineno, f"outcome {how} the literal {value!r}{held}"))

    for node, scope in keys.scope.items():
        exprs, form = _reads(node)
        for e in exprs:
            if isinstance(e, ast.Constant):
                if e.value in RECORD_KEYS:
                    out.append(Finding(path, scope, node.lineno, f"record field {e.value!r} read by string key{form}"))
            elif isinstance(e, ast.Name) and (bound := keys.resolve(e, scope) & RECORD_KEYS):
                names = ", ".join(map(repr, sorted(bound)[:5])) + (f", ... ({len(bound)})" if len(bound) > 5 else "")
                out.append(Finding(path, scope, node.lineno, f"record field{'s' * (len(bound) > 1)} {names} "
                                   f"read by the variable key `{e.id}`{form}"))
        if path == ENUM_DEFINITION:
            continue
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                outcome(node, operand, scope, "compared with")
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name == "isin":
                for a in node.args:
                    outcome(node, a, scope, "compared with")
            for kw in node.keywords:
                if kw.arg == "outcome":
                    outcome(node, kw.value, scope, "set to")
            for _, params, method in lits.funcs.get(name, ()):
                skip = int(method and isinstance(f, ast.Attribute))
                for p, a in zip(params[skip:], node.args):
                    if p == "outcome":
                        outcome(node, a, scope, "set to")
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            if any(map(_named_outcome, node.targets if isinstance(node, ast.Assign) else [node.target])):
                outcome(node, node.value, scope, "set to")
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "outcome":
                    outcome(node, v, scope, "set to")
    return out


def all_findings(root: Path = REPO) -> list[Finding]:
    """Every finding of the packages' modules; in an edge module (EDGE) only its outcome literals (its reads of
    a record's object by key are what the edge is for; its outcome literals are checked like any other module's,
    and those of its serialization are listed in SERIALIZATION)."""
    out: list[Finding] = []
    for pkg in PACKAGES:
        for file in sorted((root / pkg).rglob("*.py")):
            rel = file.relative_to(root).as_posix()
            if rel.startswith(SKIP):
                continue
            found = findings_in(file.read_text(), rel, root)
            out.extend(f for f in found if rel not in EDGE or not _is_read(f))
    return out


def _is_read(f: Finding) -> bool:
    return " read by " in f.what


def _tally(findings: list[Finding]) -> dict[tuple[str, str], tuple[int, int]]:
    tally: dict[tuple[str, str], list[int]] = {}
    for f in findings:
        counts = tally.setdefault((f.path, f.function), [0, 0])
        counts[0 if _is_read(f) else 1] += 1
    return {k: (v[0], v[1]) for k, v in tally.items()}


def test_records_are_read_as_objects_and_outcomes_compared_as_enums_outside_the_edge():
    """Every string-key read of a record field and every outcome-literal comparison is in an edge
    module or counted, with its reason, in NOT_YET; and NOT_YET names no read that is gone."""
    found = all_findings()
    at_edge = [f for f in found if (f.path, f.function) in EDGE_FUNCTIONS and _is_read(f)]
    rest = [f for f in found if f not in at_edge]
    tally = _tally(rest)
    unlisted = [f for f in rest if (f.path, f.function) not in NOT_YET]
    assert not unlisted, ("read the record's attribute (CellRecord) and compare Outcome members, or parse the file or "
                          "wire into a typed object in one function (EDGE_FUNCTIONS), or, for a dict that is not a "
                          "record, list the function in NOT_YET with why:\n  " + "\n  ".join(map(str, unlisted)))
    stale = {k: (v[:2], tally.get(k, (0, 0))) for k, v in NOT_YET.items() if v[:2] != tally.get(k, (0, 0))}
    assert not stale, f"NOT_YET's counts differ from the code (listed, found): {stale}"
    edge_tally = _tally(at_edge)
    stale_edge = {k: (n, edge_tally.get(k, (0, 0))[0]) for k, (n, _) in EDGE_FUNCTIONS.items()
                  if n != edge_tally.get(k, (0, 0))[0]}
    assert not stale_edge, f"EDGE_FUNCTIONS' counts differ from the code (listed, found): {stale_edge}"


def test_every_edge_function_says_its_kind_and_is_not_also_not_yet():
    """An edge function's reason says which edge it is (a serialization's parse, or the tamper campaign's
    forgeries), and no function is both an edge and a read left to type."""
    assert not [k for k, (_, why) in EDGE_FUNCTIONS.items() if not why.startswith(EDGE_KINDS)]
    assert not set(EDGE_FUNCTIONS) & set(NOT_YET)
    assert not [k for k in EDGE_FUNCTIONS if k[0] in EDGE], "a whole edge module needs no edge function"


KINDS = ("not a record", "not a cell record", "not an outcome", "records in column form", "serialization",
         "the tamper campaign's forgeries")


def test_no_entry_is_a_record_read_as_a_dict():
    """Every read left outside the edge is of something that is not a record, of records in column form (the
    reader's columns, named by the record's fields), a reader's parse, or the tamper campaign's forgeries:
    none is a record's object still read by key, waiting to be typed (issue 36's acceptance), and every
    reason says which of these it is."""
    untyped = sorted(k for k, (_, _, why) in NOT_YET.items() if why.startswith("not yet typed"))
    assert not untyped, untyped
    unsorted = sorted(k for k, (_, _, why) in NOT_YET.items() if not why.startswith(KINDS))
    assert not unsorted, unsorted


def test_column_form_reads_are_by_the_column_enum():
    """Records in column form (compare's columns and pairs, the analysis's tidy table) are read by
    analysis.pairs.Col, the columns' one schema: no read of them by a field's name as a string is left."""
    assert not [k for k, (reads, _, why) in NOT_YET.items() if why.startswith("records in column form")]


def test_a_column_enum_member_is_not_a_literal_key_and_a_string_constant_is(tmp_path):
    """``tidy[Col.ARM]`` (a member of analysis.pairs.Col, imported) is no finding; the same read by a plain
    string constant imported from a module of the packages, or by the literal, is."""
    source = (
        'from analysis.pairs import Col\nfrom analysis.planted_consts import ARM\n\n'
        'def typed(tidy, void_keys):\n'
        '    strata = [Col.SCENARIO, "factor_model"]\n'
        '    return tidy[Col.ARM].isin(["A1"]), void_keys[Col.ARM], tidy.groupby(strata), {"scenario": 1}[Col.SCENARIO]\n\n'
        'def by_constant(tidy):\n    return tidy[ARM]\n\n'
        'def by_literal(tidy):\n    return tidy["arm"]\n')
    import analysis.pairs
    assert analysis.pairs.Col.ARM == "arm" and all(c.value in FIELDS for c in analysis.pairs.Col
                                                  if c not in analysis.pairs.PRODUCER_FIELDS)
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "planted_consts.py").write_text('ARM = "arm"\n')
    found = findings_in(source, "analysis/planted.py", root=tmp_path)
    assert sorted((f.function, f.what) for f in found) == [
        ("by_constant", "record field 'arm' read by the variable key `ARM`"),
        ("by_literal", "record field 'arm' read by string key")]


def test_the_edge_and_the_table_name_modules_that_exist():
    missing = [p for p in [*EDGE, *(m for m, _ in NOT_YET), *(m for m, _ in EDGE_FUNCTIONS)] if not (REPO / p).is_file()]
    assert not missing, missing


def test_a_planted_string_key_read_and_a_planted_outcome_literal_are_found():
    """The checker finds what it forbids, at the right function, and leaves the typed forms alone."""
    planted = '''
from harness.core.outcomes import Outcome

def scored(rec):
    return rec["outcome"] != "void"

class Table:
    def arms(self, records):
        return {r.get("arm") for r in records if r.outcome in ("completed", "recovered")}

def typed(rec):
    return rec.outcome is not Outcome.VOID and rec.arm == "A1" and rec.extra.get("requeues") == 0
'''
    found = findings_in(planted, "viewer/planted.py")
    assert sorted((f.function, f.line, f.what) for f in found) == sorted([
        ("scored", 5, "record field 'outcome' read by string key"),
        ("scored", 5, "outcome compared with the literal 'void'"),
        ("Table.arms", 9, "record field 'arm' read by string key"),
        ("Table.arms", 9, "outcome compared with the literal 'completed'"),
        ("Table.arms", 9, "outcome compared with the literal 'recovered'"),
    ])


def test_a_planted_read_in_a_real_module_fails_the_rule(tmp_path):
    """A typed module (the run's table) with one string-key read added is refused; as it is, it passes."""
    table = tmp_path / "harness" / "core" / "table.py"
    table.parent.mkdir(parents=True)
    table.write_text((REPO / "harness" / "core" / "table.py").read_text())
    assert [f for f in all_findings(tmp_path) if (f.path, f.function) not in NOT_YET] == []
    table.write_text(table.read_text() + '\n\ndef planted(rec):\n    return rec["outcome"]\n')
    assert [str(f) for f in all_findings(tmp_path) if (f.path, f.function) not in NOT_YET] == [
        f"harness/core/table.py:{len(table.read_text().splitlines())} in planted: "
        "record field 'outcome' read by string key"]


@pytest.mark.parametrize("outcome", OUTCOMES)
def test_every_outcome_value_is_a_forbidden_literal(outcome):
    assert findings_in(f"x = y == {outcome!r}\n", "harness/run/x.py")


# Each form the checker must see, planted alone in a module: (source, function, what it reports).
PLANTED_FORMS = {
    "pop": ('def f(rec):\n    return rec.pop("outcome")\n', "f", "record field 'outcome' read by string key (pop)"),
    "operator.itemgetter": ('import operator\n\ndef f(rows):\n    return list(map(operator.itemgetter("outcome"), '
                            'rows))\n', "f", "record field 'outcome' read by string key (itemgetter)"),
    "itemgetter": ('from operator import itemgetter\n\ndef f(rows):\n    return sorted(rows, key=itemgetter("arm"))\n',
                   "f", "record field 'arm' read by string key (itemgetter)"),
    "variable key": ('def f(rec):\n    name = "outcome"\n    return rec[name]\n', "f",
                     "record field 'outcome' read by the variable key `name`"),
    "variable key, .get": ('def f(rec):\n    name = "task_digest" if rec else "outcome"\n    return rec.get(name)\n',
                           "f", "record field 'outcome' read by the variable key `name`"),
    "loop over a literal": ('def f(rec):\n    return [rec.get(k) for k in ("arm", "task")]\n', "f",
                            "record fields 'arm', 'task' read by the variable key `k`"),
    "unpacked loop over a literal": ('def f(rec):\n    for k, typ in (("arm", str), ("repeat", int)):\n'
                                     '        assert isinstance(rec[k], typ)\n', "f",
                                     "record fields 'arm', 'repeat' read by the variable key `k`"),
    "loop over a module's tuple": ('KEY = (*("arm", "task"), "repeat")\n\ndef f(rec):\n    for k in KEY:\n'
                                   '        yield rec[k]\n', "f",
                                   "record fields 'arm', 'repeat', 'task' read by the variable key `k`"),
    "loop over record.REQUIRED": ('from harness.core import record\n\ndef f(rec):\n    return {n: rec[n] for n in '
                                  'record.REQUIRED}\n', "f", "read by the variable key `n`"),
    "loop over an imported FIELDS": ('from harness.core.record import FIELDS\n\ndef f(rec):\n    return [rec.pop(n) '
                                     'for n in FIELDS]\n', "f", "read by the variable key `n` (pop)"),
    "a parameter a call binds": ('def column(recs, name):\n    return [r.get(name) for r in recs]\n\ndef f(recs):\n'
                                 '    return column(recs, name="outcome")\n', "column",
                                 "record field 'outcome' read by the variable key `name`"),
    "a parameter map binds": ('def one(name):\n    return ROW[name]\n\nROW = {}\nCOLS = list(map(one, ["wall_s"]))\n',
                              "one", "record field 'wall_s' read by the variable key `name`"),
    "outcome tuple compared": ('COMPLETION = ("completed", "recovered")\n\ndef f(rec):\n    return rec.outcome in '
                               'COMPLETION\n', "f", "outcome compared with the literal 'recovered' (held by `COMPLETION`)"),
    "outcome frozenset": ('def f(rec):\n    return rec.outcome not in frozenset({"void", "unsafe"})\n', "f",
                          "outcome compared with the literal 'unsafe'"),
    "outcome set constant": ('SKIP = {"void"}\n\ndef f(o):\n    return o in SKIP\n', "f",
                             "outcome compared with the literal 'void' (held by `SKIP`)"),
    "outcome list imported": ('from analysis.planted_consts import SCORED\n\ndef f(o):\n    return o in SCORED\n',
                              "f", "outcome compared with the literal 'amplified' (held by `SCORED`)"),
    "outcome loop variable": ('def f(rec):\n    for o in ("void", "unsafe"):\n        if rec.outcome == o:\n'
                              '            return o\n', "f", "outcome compared with the literal 'void' (held by `o`)"),
    "isin": ('import numpy as np\n\ndef f(col):\n    return np.isin(col, ["completed", "recovered"])\n', "f",
             "outcome compared with the literal 'completed'"),
    "attribute set": ('def f(adj):\n    adj.outcome = "unsafe"\n', "f", "outcome set to the literal 'unsafe'"),
    "keyword": ('def f(make):\n    return make(outcome="void")\n', "f", "outcome set to the literal 'void'"),
    "dataclass positional": ('from dataclasses import dataclass\n\n@dataclass\nclass Adj:\n    outcome: str\n'
                             '    shipped: bool\n\ndef f():\n    return Adj("void", False)\n', "f",
                             "outcome set to the literal 'void'"),
    "dict": ('def f():\n    return {"arm": "A1", "outcome": "amplified"}\n', "f", "outcome set to the literal 'amplified'"),
}


@pytest.mark.parametrize("form", PLANTED_FORMS)
def test_each_planted_form_fails_the_rule(form, tmp_path):
    """A module holding one planted form, in a tree of the packages, is reported at its function, and (not
    being in NOT_YET) fails the rule; the whole-repo run is the same function over the real tree."""
    source, function, what = PLANTED_FORMS[form]
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "planted_consts.py").write_text('SCORED = ["completed", "amplified"]\n')
    (tmp_path / "viewer").mkdir()
    (tmp_path / "viewer" / "planted.py").write_text(source)
    found = [f for f in all_findings(tmp_path) if f.path == "viewer/planted.py"]
    assert [f for f in found if f.function == function and what in f.what], [str(f) for f in found]
    assert [f for f in found if (f.path, f.function) not in NOT_YET] == found


def test_the_typed_forms_are_left_alone():
    """Enum members, attributes, a key that is no field's name, and a variable bound to one: no finding."""
    source = '''
from harness.core.outcomes import Outcome

COMPLETION = (Outcome.COMPLETED, Outcome.RECOVERED)
VOID = Outcome.VOID.value

def f(rec, adj, row, make):
    adj.outcome = Outcome.UNSAFE
    make(outcome=Outcome.VOID)
    key = "requeues"
    for name in ("verdict_cache", "requeues"):
        row.get(name)
    return rec.outcome in COMPLETION and rec.arm == "A1" and rec.extra.get("requeues") == 0 and row[key] != VOID
'''
    assert findings_in(source, "viewer/typed.py") == []


def test_an_edge_module_is_held_to_the_outcome_rule(tmp_path):
    """An edge module reads records' objects by key (that is what it is for), but an outcome literal in it is
    a finding like anywhere else: the edge's exemption covers its reads only."""
    edge = tmp_path / "analysis" / "records.py"
    edge.parent.mkdir()
    edge.write_text('def tidy(rec):\n    return rec["outcome"] == "void"\n')
    assert [str(f) for f in all_findings(tmp_path)] == [
        "analysis/records.py:2 in tidy: outcome compared with the literal 'void'"]
