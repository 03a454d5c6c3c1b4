"""Split a harness-owned pytest file into a *probe* and a *judge plan* (the judge of issue 10).

A verdict computed inside the process that imports model-written code can be forged by that
code (it can patch pytest, rewrite the report, or read the test file and answer exactly its
asserts). So a harness-owned test never decides anything in the sandbox:

- the **probe** is the test file with every expectation taken out. It keeps the setup and the
  calls into the code under test, and turns each ``assert`` into an observation of the values
  it compares (``_hx.check(site, lambda: leaf0, ...)``), each ``pytest.raises`` /
  ``pytest.warns`` into an observation of what was raised or warned, and reports when each test
  starts and when it returns. It runs confined, under pytest (for fixtures and parametrize), and
  writes raw observations to a file.
- the **plan** stays with the harness (harness.judge.judge): for every assertion site the
  comparison and its expected values (the literal side of ``==``, the exception class of
  ``pytest.raises``, the ``match`` pattern, parametrize values and module or local constants
  used only as expectations), and for every test the cases it must run and the sites it must
  reach. The judge, in the harness process, compares the observations with the plan.

What counts as an expectation: an expression the judge can evaluate by itself, built only from
literals, judge-known names (module constants, parametrize values, single-assignment local
constants whose values are such expressions) and a fixed set of pure functions (``JUDGE_CALLABLES``:
builtins such as ``sorted`` and ``len``, ``math``, ``json.loads``, ``re``, ``decimal``,
``fractions``, ``datetime``, ``pytest.approx``). Everything else is a *leaf*: evaluated in the
sandbox and observed. A name used only in expectations is removed from the probe.

Limits (what the probe still shows): inputs, and expectations written as calls into the code
under test (``Reading("a", 1)``) or computed by sandbox code, which cannot be evaluated without
it. A test author keeps an expectation out of the sandbox by writing it as a literal.
"""
from __future__ import annotations

import ast
import hashlib
import itertools
from dataclasses import dataclass, field

from harness.core.errors import HarnessError

VERSION = "hx-probe-v2"  # part of the verdict cache key (with this module's source)

JUDGE_STATE_RULE = """An expectation the judge computes in its own process is one a fresh interpreter computes alike from its
operands: literals, judge-known names and ``JUDGE_MODULES``' pure functions. A call that also reads the process's state
(the clock, the time zone, the C library's locale, ``_strptime``'s caches, the codec registry:
``STATE_READING_METHODS``, ``BUILTIN_CODECS``, a ``%`` format spec, an error handler's name) is a leaf: observed in the
driver, whose state the subject's sync rules keep the tree's, as plain pytest's one process computes it. So the judge's
evaluation imports nothing (``harness.judge.judge._import``). A binding or entry the tree set in a module the judge
computes with (subject_rpc ``JUDGE_STATE_MODULES``: a rebound ``string.digits``, ``fractions``' pattern, ``json``'s
decoder tables) comes with the observation and fails closed an assertion the judge computes with more than observed
values and literals (harness.judge.judge ``_computes``). Open: a library instance's attribute the judge's function
reads (``json._default_decoder``'s; red team atk14)."""


# Names the judge can evaluate, by the module they are imported from. "*" admits every public
# attribute of the module (math), otherwise only the listed ones.
JUDGE_MODULES: dict[str, tuple[str, ...]] = {
    "math": ("*",), "json": ("loads",), "re": ("search", "match", "fullmatch", "findall", "compile", "escape",
                                                "IGNORECASE", "MULTILINE", "DOTALL", "I", "M", "S"),
    "decimal": ("Decimal", "ROUND_HALF_UP", "ROUND_HALF_EVEN", "ROUND_DOWN", "ROUND_UP", "ROUND_CEILING",
                "ROUND_FLOOR", "ROUND_HALF_DOWN", "InvalidOperation"),
    "fractions": ("Fraction",), "datetime": ("date", "datetime", "time", "timedelta", "timezone"),
    "pytest": ("approx",), "string": ("ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits",
                                      "punctuation", "whitespace"),
}
JUDGE_BUILTINS = frozenset({
    "abs", "all", "any", "bool", "bytes", "chr", "dict", "divmod", "enumerate", "float", "frozenset", "int", "len",
    "list", "max", "min", "ord", "range", "repr", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
    "zip", "isinstance", "type", "None", "True", "False", "Ellipsis",
    "ArithmeticError", "AssertionError", "AttributeError", "Exception", "BaseException", "FileNotFoundError",
    "ImportError", "IndexError", "KeyError", "LookupError", "ModuleNotFoundError", "NotImplementedError",
    "OSError", "OverflowError", "PermissionError", "RuntimeError", "StopIteration", "SystemExit", "TypeError",
    "UnicodeDecodeError", "UnicodeError", "ValueError", "ZeroDivisionError", "DeprecationWarning",
    "UserWarning", "Warning", "FutureWarning", "PendingDeprecationWarning", "RuntimeWarning",
})


class ProbeError(HarnessError):
    """The test file uses a form the probe transform does not support (names the line)."""


@dataclass(frozen=True)
class Site:
    """One observation point: an assert, or a pytest.raises / pytest.warns block."""
    id: int
    kind: str  # "assert" | "raises" | "warns"
    expr: str  # assert: the skeleton over _v[i]; raises/warns: the expected class(es), or "" when local
    leaves: int
    line: int
    source: str  # the original statement (shown in the visible test's report, never the oracle's)
    match: str = ""  # raises(match=...): the pattern expression
    func: str = ""  # the enclosing function (for its local constants)


@dataclass(frozen=True)
class Group:
    """One parametrize decorator: its case count and, per judge-known argument, each case's value."""
    n: int
    values: dict[str, list[str]]  # argname -> [expression source per case]


@dataclass(frozen=True)
class TestSpec:
    name: str
    groups: tuple[Group, ...]
    must: tuple[int, ...]  # sites that a completed run of this test has observed

    def cases(self) -> list[tuple[int, ...]]:
        out: list[tuple[int, ...]] = [()]
        for g in self.groups:
            out = [c + (i,) for c in out for i in range(g.n)]
        return out


@dataclass
class Plan:
    """What the judge holds: module constants, imports, per-function local constants, sites, tests."""
    constants: list[tuple[str, str]] = field(default_factory=list)
    imports: list[tuple[str, str, str]] = field(default_factory=list)  # (local name, module, attribute or "")
    locals: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # function -> [(name, expr)]
    sites: dict[int, Site] = field(default_factory=dict)
    tests: list[TestSpec] = field(default_factory=list)


@dataclass(frozen=True)
class Probe:
    source: str  # the probe module (imports the runtime as ``_hx``: see RUNTIME_NAME)
    plan: Plan


RUNTIME_NAME = "{runtime}"  # placeholder for the per-run random runtime module name


def _is_pytest_attr(node: ast.AST, *attrs: str) -> bool:
    """``pytest.<attrs...>`` (e.g. pytest.mark.parametrize)."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    return isinstance(node, ast.Name) and node.id == "pytest" and tuple(reversed(names)) == attrs


def _stores(node: ast.AST) -> list[str]:
    """Names bound in a function body (not descending into nested scopes' own bindings)."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.append(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n is not node:
            out.append(n.name)
        elif isinstance(n, ast.arg):
            out.append(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out += [(a.asname or a.name).split(".")[0] for a in n.names]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.append(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out += list(n.names)
    return out


class _Env:
    """Which names the judge can evaluate at a point of the file."""

    def __init__(self, modules: dict[str, str], attrs: dict[str, tuple[str, str]], consts: set[str],
                 shadow: set[str] | frozenset[str] = frozenset()):
        self.modules = modules  # local name -> judge module ("math")
        self.attrs = attrs  # local name -> (module, attribute) imported by name ("Decimal")
        self.consts = set(consts)  # judge-known constant names
        self.shadow = set(shadow)  # names bound by the file itself: never the builtin of that name
        self.frozen: set[str] = set()  # constants whose values are immutable (``_immutable``)

    def child(self, hidden: set[str], extra: set[str]) -> "_Env":
        env = _Env({k: v for k, v in self.modules.items() if k not in hidden},
                   {k: v for k, v in self.attrs.items() if k not in hidden}, (self.consts - hidden) | extra,
                   (self.shadow | hidden) - extra)
        env.frozen = self.frozen - hidden - extra
        return env

    def evaluable(self, node: ast.AST, bound: frozenset[str] = frozenset()) -> bool:
        """Whether the judge can compute node by itself (no sandbox value involved)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, ast.Name):
            return (node.id in bound or node.id in self.consts or node.id in self.attrs or
                    (node.id in JUDGE_BUILTINS and node.id not in self.modules and node.id not in self.shadow))
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_"):
                return False
            if isinstance(node.value, ast.Name) and node.value.id in self.modules:
                allowed = JUDGE_MODULES[self.modules[node.value.id]]
                return "*" in allowed or node.attr in allowed
            return self.evaluable(node.value, bound)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return all(self.evaluable(e, bound) for e in node.elts)
        if isinstance(node, ast.Starred):
            return self.evaluable(node.value, bound)
        if isinstance(node, ast.Dict):
            return all((k is None or self.evaluable(k, bound)) and self.evaluable(v, bound)
                       for k, v in zip(node.keys, node.values))
        if isinstance(node, ast.BinOp):
            return self.evaluable(node.left, bound) and self.evaluable(node.right, bound)
        if isinstance(node, ast.UnaryOp):
            return self.evaluable(node.operand, bound)
        if isinstance(node, ast.BoolOp):
            return all(self.evaluable(v, bound) for v in node.values)
        if isinstance(node, ast.Compare):
            return self.evaluable(node.left, bound) and all(self.evaluable(c, bound) for c in node.comparators)
        if isinstance(node, ast.IfExp):
            return all(self.evaluable(n, bound) for n in (node.test, node.body, node.orelse))
        if isinstance(node, ast.Subscript):
            return self.evaluable(node.value, bound) and self.evaluable(node.slice, bound)
        if isinstance(node, ast.Slice):
            return all(p is None or self.evaluable(p, bound) for p in (node.lower, node.upper, node.step))
        if isinstance(node, ast.Call):
            return (self.evaluable(node.func, bound) and all(self.evaluable(a, bound) for a in node.args)
                    and all(self.evaluable(k.value, bound) for k in node.keywords) and not _reads_process_state(node))
        if isinstance(node, ast.JoinedStr):
            return all(self.evaluable(v, bound) for v in node.values)
        if isinstance(node, ast.FormattedValue):
            return self.evaluable(node.value, bound) and (node.format_spec is None or (
                self.evaluable(node.format_spec, bound) and not _spec_reads_state(node.format_spec)))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = set(bound)
            for gen in node.generators:
                if gen.is_async or not self.evaluable(gen.iter, frozenset(inner)):
                    return False
                inner |= {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
                if not all(self.evaluable(c, frozenset(inner)) for c in gen.ifs):
                    return False
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return all(self.evaluable(p, frozenset(inner)) for p in parts)
        return False


# The codec error handlers a fresh interpreter has: ``str.encode``/``bytes.decode`` with another ``errors`` name reads
# the process's registry (``codecs.register_error``, the tree's or the test's), which only the test's process holds.
BUILTIN_ERROR_HANDLERS = frozenset({"strict", "ignore", "replace", "xmlcharrefreplace", "backslashreplace",
                                    "namereplace", "surrogateescape", "surrogatepass"})


# The methods whose result reads the process's state besides their operands (datetime's and time's): the clock
# (``now``, ``today``), the time zone (``fromtimestamp``, ``astimezone``, ``timetuple``, ``timestamp``, ``ctime``), the C
# library's locale and ``_strptime``'s caches (``strptime``, ``strftime``, a format spec). Under plain pytest they read
# the tree's process (a zone, a locale, a cache the tree set); the judge's process has its own, and red teams atk13 and
# atk14 found both directions (a test's own strptime failed judged; the tree's locale or cache read as the harness's).
STATE_READING_METHODS = frozenset({"now", "today", "utcnow", "fromtimestamp", "utcfromtimestamp", "strptime", "strftime",
                                   "timetuple", "utctimetuple", "astimezone", "ctime", "timestamp", "__format__"})
# The codecs the interpreter resolves by name without its registry (``PyUnicode_AsEncodedString``'s and
# ``PyUnicode_Decode``'s fast paths, after their normalization): any other name is looked up in the codec registry and
# ``encodings.aliases``, which the tree's process may have changed.
BUILTIN_CODECS = frozenset({"utf_8", "utf8", "ascii", "us_ascii", "latin1", "latin_1", "iso_8859_1", "iso8859_1"})


def _reads_process_state(node: ast.Call) -> bool:
    """Whether a call the judge could otherwise compute reads the state of the test's process (``JUDGE_STATE_RULE``:
    an expectation is what a fresh interpreter computes alike; harness.judge.subject_rpc ``CENSUS_RULE``): one of
    ``STATE_READING_METHODS``, or an ``encode``/``decode`` whose codec is not a literal name of ``BUILTIN_CODECS`` or
    whose ``errors`` is not a literal name of a builtin handler. Such a call is a leaf, observed where the test runs
    (the driver, whose state the subject's sync rules keep the tree's), as plain pytest's one process computes it."""
    f = node.func
    if isinstance(f, ast.Name) and f.id in ("str", "bytes") and (len(node.args) > 1 or node.keywords):
        codec_at = 1  # ``bytes(s, encoding, errors)``, ``str(b, encoding, errors)``: the registry, as ``encode`` reads it
    elif isinstance(f, ast.Attribute) and f.attr == "format":  # ``str.format``: a field's spec, as an f-string's
        return not (isinstance(f.value, ast.Constant) and isinstance(f.value.value, str)) or \
            _template_reads_state(f.value.value)
    elif isinstance(f, ast.Attribute) and f.attr in STATE_READING_METHODS:
        return True
    elif isinstance(f, ast.Attribute) and f.attr in ("encode", "decode"):
        codec_at = 0
    else:
        return False
    if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
        return True
    codec = [k.value for k in node.keywords if k.arg == "encoding"] + node.args[codec_at:codec_at + 1]
    errors = [k.value for k in node.keywords if k.arg == "errors"] + node.args[codec_at + 1:codec_at + 2]
    return any(not (isinstance(c, ast.Constant) and isinstance(c.value, str) and
                    c.value.lower().replace("-", "_").replace(" ", "_") in BUILTIN_CODECS) for c in codec) or \
        any(not (isinstance(e, ast.Constant) and e.value in BUILTIN_ERROR_HANDLERS) for e in errors)


def _spec_text_reads_state(spec: str) -> bool:
    """Whether a format spec's text may read the process's state: a ``%`` directive is a date's or a time's
    ``strftime`` (the locale, ``STATE_READING_METHODS``), and the ``n`` type reads ``LC_NUMERIC`` (red team atk16)."""
    return "%" in spec or "n" in spec


def _spec_reads_state(spec: ast.expr | None) -> bool:
    """Whether an f-string field's format spec may read the process's state: its text (``_spec_text_reads_state``), or a
    spec computed at run time (``f'{d:{SPEC}}'``: any spec at all)."""
    if spec is None:
        return False
    parts = [v.value for v in spec.values if isinstance(v, ast.Constant) and isinstance(v.value, str)] \
        if isinstance(spec, ast.JoinedStr) else []
    if isinstance(spec, ast.JoinedStr) and len(parts) == len(spec.values):
        return _spec_text_reads_state("".join(parts))
    return True


def _template_reads_state(template: str) -> bool:
    """Whether a ``str.format`` template may read the process's state: a field's spec as ``_spec_text_reads_state``
    reads it, a nested field in a spec, or a template the judge cannot parse (then the call is observed)."""
    import string as _string
    try:
        fields = list(_string.Formatter().parse(template))
    except ValueError:
        return True
    return any(spec is not None and ("{" in spec or _spec_text_reads_state(spec)) for _, _, spec, _ in fields)


SINGLETONS = (None, True, False, Ellipsis)
# Calls observed whole in the sandbox when an argument is a sandbox value: they consume an iterator
# (a generator or map the judge could not iterate), reduce a value too large to observe whole
# (len of a 2 MB string) or ask about the value's real class (a subclass is encoded by its base
# value), or call the value's own method (str, repr, bool, int, float, round, abs: an IntEnum's repr or
# a Decimal subclass's __str__ is not its base value's). pytest evaluates them on the live object;
# so does the probe.
LEAF_CALLS = frozenset({"sorted", "list", "tuple", "set", "frozenset", "dict", "sum", "any", "all", "len", "min",
                        "max", "type", "isinstance", "enumerate", "zip", "reversed",
                        "str", "repr", "bool", "int", "float", "round", "abs"})


class _Splitter:
    """Split an assert's test expression into a judge skeleton over ``_v[i]`` and sandbox leaves."""

    def __init__(self, env: _Env):
        self.env = env
        self.leaves: list[ast.expr] = []

    def leaf(self, node: ast.expr) -> ast.expr:
        self.leaves.append(node)
        return ast.Subscript(value=ast.Name("_v", ast.Load()), slice=ast.Constant(len(self.leaves) - 1), ctx=ast.Load())

    def split(self, node: ast.expr) -> ast.expr:
        env = self.env
        if env.evaluable(node):
            return node
        if isinstance(node, ast.Compare):
            # two sandbox values compared with each other: only the sandbox can compare them (with
            # their own __eq__, as pytest does); the judge holds no expectation there anyway
            operands = [node.left, *node.comparators]
            if any(not env.evaluable(a) and not env.evaluable(b) for a, b in itertools.pairwise(operands)):
                return self.leaf(node)
            # identity between two computed values is only meaningful in the sandbox
            if any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
                operands = [node.left, *node.comparators]
                if not all(env.evaluable(o) or (isinstance(o, ast.Constant) and o.value in SINGLETONS)
                           for o in operands[1:]) and not (
                        len(operands) == 2 and isinstance(operands[1], ast.Constant) and operands[1].value in SINGLETONS):
                    return self.leaf(node)
            return ast.Compare(left=self.split(node.left), ops=node.ops,
                               comparators=[self.split(c) for c in node.comparators])
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(op=node.op, values=[self.split(v) for v in node.values])
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(op=node.op, operand=self.split(node.operand))
        if isinstance(node, ast.BinOp):
            if not env.evaluable(node.left) and not env.evaluable(node.right):
                # two sandbox values in one operator (an IntFlag's ``&``): computed in the sandbox by their own
                # methods, as pytest computes it, like a comparison of two (the judge's copies may not answer)
                return self.leaf(node)
            return ast.BinOp(left=self.split(node.left), op=node.op, right=self.split(node.right))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return type(node)(elts=[self.split(e) for e in node.elts], ctx=ast.Load()) if not isinstance(
                node, ast.Set) else ast.Set(elts=[self.split(e) for e in node.elts])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LEAF_CALLS and \
                env.evaluable(node.func):
            return self.leaf(node)  # not evaluable as a whole: some argument is a sandbox value
        if isinstance(node, ast.Call) and env.evaluable(node.func) and not node.keywords and not _reads_process_state(node) and all(
                not isinstance(a, (ast.Starred, ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp))
                for a in node.args):
            return ast.Call(func=node.func, args=[self.split(a) for a in node.args], keywords=[])
        return self.leaf(node)


def _lambda(expr: ast.expr) -> ast.Lambda:
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                      body=expr)


def _hx_call(fn: str, *args: ast.expr) -> ast.Expr:
    return ast.Expr(ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), fn, ast.Load()), args=list(args),
                             keywords=[]))


class _Transformer:
    def __init__(self, source: str, filename: str):
        self.source = source
        self.filename = filename
        try:
            self.tree = ast.parse(source, filename)
        except SyntaxError as exc:
            raise ProbeError(f"{filename}:{exc.lineno}: not valid Python: {exc.msg}") from exc
        self.plan = Plan()
        self.next_site = 0
        self.env = _Env({}, {}, set())
        self.judge_only_consts: set[str] = set()

    def err(self, node: ast.AST, msg: str) -> ProbeError:
        return ProbeError(f"{self.filename}:{getattr(node, 'lineno', 0)}: {msg}")

    # -- module level ------------------------------------------------------------------------
    def run(self) -> Probe:
        body = self.tree.body
        for stmt in body:
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    if a.name in JUDGE_MODULES and "." not in a.name:
                        self.env.modules[a.asname or a.name] = a.name
                        self.plan.imports.append((a.asname or a.name, a.name, ""))
            elif isinstance(stmt, ast.ImportFrom) and stmt.module in JUDGE_MODULES and not stmt.level:
                allowed = JUDGE_MODULES[stmt.module]
                for a in stmt.names:
                    if a.name != "*" and ("*" in allowed or a.name in allowed):
                        self.env.attrs[a.asname or a.name] = (stmt.module, a.name)
                        self.plan.imports.append((a.asname or a.name, stmt.module, a.name))
            elif isinstance(stmt, ast.ClassDef) and stmt.name.startswith("Test"):
                raise self.err(stmt, "test classes are not supported by the probe transform; use test functions")
        stored = [n for s in body for n in _module_stores(s)]
        self.env.shadow = set(stored) - set(self.env.modules) - set(self.env.attrs)
        for stmt in body:
            one = _single_assignment(stmt)
            if one is None:
                continue
            target, value = one
            if stored.count(target) == 1 and self.env.evaluable(value) and (
                    _immutable(value, self.env) or not _escapes(target, self.tree, not _items_immutable(value, self.env))):
                self.env.consts.add(target)
                self.env.shadow.discard(target)
                if _immutable(value, self.env):
                    self.env.frozen.add(target)
                self.plan.constants.append((target, ast.unparse(value)))
        new_body: list[ast.stmt] = []
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                new_body.append(self.function(stmt, self.env, top=True))
            else:
                new_body.append(self.visit_block_stmt(stmt, self.env, func="", must=None))
        probe = _RemoteImports().visit(ast.Module(body=new_body, type_ignores=[]))
        # drop constants (module and local) that only expectations use, and then-unused parametrize values
        used = {n.id for n in ast.walk(probe) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        probe.body = [s for s in probe.body if not (_single_target(s) in self.env.consts and _single_target(s) not in used)]
        ast.fix_missing_locations(probe)
        text = (f"import {RUNTIME_NAME} as _hx  # the harness's probe runtime\n_hx._bind(globals())\n"
                + ast.unparse(probe) + "\n")
        return Probe(text, self.plan)

    # -- functions ---------------------------------------------------------------------------
    def function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, env: _Env, top: bool, qual: str = "") -> ast.FunctionDef:
        name = f"{qual}.{fn.name}" if qual else fn.name
        if isinstance(fn, ast.AsyncFunctionDef):
            raise self.err(fn, "async test functions are not supported")
        is_test = top and fn.name.startswith("test")
        stores = _stores(fn)
        groups: list[tuple[list[str], list, dict]] = []
        decorators: list[ast.Call] = []
        params_known: dict[str, list[str]] = {}
        if is_test:
            groups, decorators, params_known = self._test_decorators(fn, env, stores)
        elif any(isinstance(d, ast.Call) and _is_pytest_attr(d.func, "fixture") and any(k.arg == "params" for k in d.keywords)
                 for d in fn.decorator_list):
            raise self.err(fn, "parametrized fixtures are not supported (the judge counts cases from parametrize)")
        hidden = set(stores)
        local_env = env.child(hidden, set(params_known))
        # single-assignment top-level local constants
        local_consts = []
        for stmt in fn.body:
            one = _single_assignment(stmt)
            if one is None:
                continue
            target, value = one
            if stores.count(target) == 1 and target not in params_known and local_env.evaluable(value) \
                    and (_immutable(value, local_env) or not _escapes(target, fn, not _items_immutable(value, local_env))):
                local_env.consts.add(target)
                local_env.shadow.discard(target)
                if _immutable(value, local_env):
                    local_env.frozen.add(target)
                local_consts.append((target, ast.unparse(value)))
        if local_consts:
            self.plan.locals[name] = local_consts
        # the sites a test always reaches: its top-level asserts (none if it can return early)
        must: list[int] | None = [] if is_test and not _returns(fn) else None
        body = [self.visit_block_stmt(s, local_env, func=name, must=must) for s in fn.body]
        used = {n.id for s in body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        body = [s for s in body if not (_single_target(s) in dict(local_consts) and _single_target(s) not in used)]
        if is_test:
            case_names = [f"_hx_case_{i}" for i in range(len(groups))]
            kept_args = [a for a in fn.args.args]
            new_decs: list[ast.expr] = []
            for i, (dec, (argnames, cases, values)) in enumerate(zip(decorators, groups)):
                keep = [a for a in argnames if a in used]
                for a in argnames:
                    if a not in keep:
                        kept_args = [x for x in kept_args if x.arg != a]
                new_decs.append(self.rewrite_parametrize(dec, argnames, keep, cases, case_names[i]))
                spec_values = {a: values[a] for a in argnames if a in params_known}
                groups[i] = (argnames, cases, spec_values)
            fn.args.args = kept_args + [ast.arg(c) for c in case_names]
            enter = _hx_call("enter", ast.Constant(fn.name),
                             ast.List([ast.Name(c, ast.Load()) for c in case_names], ast.Load()))
            body = [enter, *self._leave_before_returns(body), _hx_call("leave")]
            fn.decorator_list = new_decs
            self.plan.tests.append(TestSpec(fn.name, tuple(Group(len(c), v) for (_, c, v) in groups), tuple(must or ())))
        fn.body = body or [ast.Pass()]
        return fn

    def _test_decorators(self, fn: ast.FunctionDef, env: _Env, stores: list[str]) -> tuple[
            list[tuple[list[str], list, dict]], list[ast.Call], dict[str, list[str]]]:
        """A test's decorators: (its parametrize groups, their decorators, rewritten once the body is
        known, and the judge-known parameters: every case's value an expectation-grade literal).
        Any other decorator, or a fixture named test*, is refused."""
        groups: list[tuple[list[str], list, dict]] = []
        decorators: list[ast.Call] = []
        params_known: dict[str, list[str]] = {}
        for dec in fn.decorator_list:
            if isinstance(dec, ast.Call) and _is_pytest_attr(dec.func, "mark", "parametrize"):
                groups.append(self.parametrize(dec, env, len(groups)))
                decorators.append(dec)  # rewritten below once the body is known
            elif _is_pytest_attr(dec, "fixture") or (isinstance(dec, ast.Call) and _is_pytest_attr(dec.func, "fixture")):
                raise self.err(dec, "a fixture named test*: rename it")
            else:
                raise self.err(dec, f"unsupported decorator on a test: {ast.unparse(dec)}")
        for argnames, _, values in groups:
            for argname in argnames:  # judge-known: every case's value is an expectation-grade literal
                if stores.count(argname) == 1 and values.get(argname) is not None and (
                        all(_immutable(ast.parse(v, mode="eval").body, env) for v in values[argname])
                        or not _escapes(argname, fn, not all(_items_immutable(ast.parse(v, mode="eval").body, env)
                                                             for v in values[argname]))):
                    params_known[argname] = values[argname]
        return groups, decorators, params_known

    def _leave_before_returns(self, body: list[ast.stmt]) -> list[ast.stmt]:
        class R(ast.NodeTransformer):
            def visit_FunctionDef(self, node):  # nested scopes keep their returns
                return node

            visit_AsyncFunctionDef = visit_FunctionDef
            visit_Lambda = visit_FunctionDef

            def visit_Return(self, node):
                return [_hx_call("leave"), node]
        return [R().visit(s) for s in body]

    def parametrize(self, dec: ast.Call, env: _Env, index: int):
        if len(dec.args) != 2 or any(k.arg not in ("ids",) for k in dec.keywords):
            raise self.err(dec, "parametrize needs exactly (argnames, argvalues) and optionally ids=")
        names_node, values_node = dec.args
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            argnames = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                                   for e in names_node.elts):
            argnames = [e.value for e in names_node.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # all are, checked above
        else:
            raise self.err(dec, "parametrize argnames must be a literal")
        rows = self._static_rows(values_node)
        if rows is None:
            raise self.err(dec, "parametrize argvalues must be a literal list (or sorted/list/tuple of a module-level "
                                "literal dict or list) so the judge knows how many cases run")
        values: dict[str, list[str] | None] = {a: [] for a in argnames}
        if rows is _COUNT_ONLY:
            return argnames, list(range(self._count_only)), {a: None for a in argnames}
        for row in rows:
            if isinstance(row, ast.Call) and _is_pytest_attr(row.func, "param"):
                if row.keywords and any(k.arg != "id" for k in row.keywords):
                    raise self.err(row, "pytest.param marks are not supported")
                elts = list(row.args)
            elif len(argnames) == 1:
                elts = [row]
            elif isinstance(row, (ast.Tuple, ast.List)):
                elts = list(row.elts)
            else:
                raise self.err(row, "a parametrize row must be a literal tuple")
            if len(elts) != len(argnames):
                raise self.err(row, f"a parametrize row has {len(elts)} values for {len(argnames)} names")
            for a, e in zip(argnames, elts):
                known = values[a]
                if known is not None:
                    values[a] = known + [ast.unparse(e)] if env.evaluable(e) else None
        return argnames, rows, values

    _count_only = 0

    def _static_rows(self, node: ast.expr):
        if isinstance(node, (ast.List, ast.Tuple)):
            return list(node.elts)
        # sorted(X) / list(X) / tuple(X) / X over a module-level literal dict or list: count only
        inner = node
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("sorted", "list", "tuple") \
                and len(node.args) == 1 and not node.keywords:
            inner = node.args[0]
        if isinstance(inner, ast.Name):
            for stmt in self.tree.body:
                one = _single_assignment(stmt)
                if one is None:
                    continue
                target, value = one
                if target == inner.id and isinstance(value, (ast.Dict, ast.List, ast.Tuple)):
                    n = len(value.keys) if isinstance(value, ast.Dict) else len(value.elts)
                    if isinstance(value, ast.Dict) and any(k is None for k in value.keys):
                        return None
                    self._count_only = n
                    return _COUNT_ONLY
        return None

    def rewrite_parametrize(self, dec: ast.Call, argnames, keep, rows, case_name) -> ast.Call:
        """The probe's decorator: the kept arguments plus a case index; expectation-only values gone."""
        new_rows: list[ast.expr] = []
        n = len(rows)
        if rows and not isinstance(rows[0], int):
            for i, row in enumerate(rows):
                if isinstance(row, ast.Call) and _is_pytest_attr(row.func, "param"):
                    elts = list(row.args)
                elif len(argnames) == 1:
                    elts = [row]
                else:
                    elts = list(row.elts)
                kept = [e for a, e in zip(argnames, elts) if a in keep]
                new_rows.append(ast.Tuple([*kept, _case(i)], ast.Load()))
            values: ast.expr = ast.List(new_rows, ast.Load())
        else:  # a counted expression: enumerate it in the sandbox; the judge checks the count
            if keep != argnames:
                raise self.err(dec, "a counted parametrize must keep all of its arguments")
            values = ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), "numbered", ast.Load()),
                              args=[dec.args[1], ast.Constant(n)], keywords=[])
        names = ",".join([*keep, case_name])
        keywords = []
        for k in dec.keywords:  # ids: a list keeps its length; a callable must not see the case index
            if isinstance(k.value, (ast.List, ast.Tuple)):
                keywords.append(k)
            else:
                keywords.append(ast.keyword("ids", ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), "ids",
                                                                                 ast.Load()), args=[k.value],
                                                            keywords=[])))
        return ast.Call(func=dec.func, args=[ast.Constant(names), values], keywords=keywords)

    # -- statements --------------------------------------------------------------------------
    def visit_block_stmt(self, stmt: ast.stmt, env: _Env, func: str, must: list[int] | None) -> ast.stmt:
        """Rewrite asserts and raises/warns blocks anywhere in stmt. ``must`` collects the sites a
        test reaches unconditionally (None outside a test's straight-line body)."""
        if isinstance(stmt, ast.Assert):
            return self.assert_(stmt, env, func, must)
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return self.function(stmt, env, top=False, qual=func)
        if isinstance(stmt, ast.ClassDef):
            stmt.body = [self.visit_block_stmt(s, env, func, None) for s in stmt.body]
            return stmt
        if isinstance(stmt, ast.With):
            kind = self._raises_kind(stmt)
            if kind:
                return self.raises_block(stmt, kind, env, func, must)
            stmt.body = [self.visit_block_stmt(s, env, func, None) for s in stmt.body]  # a manager may suppress
            self._exprs(stmt, env, func)
            return stmt
        for fld in ("body", "orelse", "finalbody"):
            if isinstance(getattr(stmt, fld, None), list):
                setattr(stmt, fld, [self.visit_block_stmt(s, env, func, None) for s in getattr(stmt, fld)])
        if isinstance(stmt, ast.Try):
            for h in stmt.handlers:
                h.body = [self.visit_block_stmt(s, env, func, None) for s in h.body]
        if isinstance(stmt, ast.Match):
            for c in stmt.cases:
                c.body = [self.visit_block_stmt(s, env, func, None) for s in c.body]
        self._exprs(stmt, env, func)
        return stmt

    def _exprs(self, stmt: ast.stmt, env: _Env, func: str) -> None:
        """Calls pytest.raises(E, f, ...) in expressions become observed calls; lambdas stay as they are."""
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and (_is_pytest_attr(node.func, "raises") or _is_pytest_attr(node.func, "warns")):
                if not node.args or len(node.args) < 2:
                    raise self.err(node, "pytest.raises/warns outside a with statement needs a callable")
                kind = "raises" if _is_pytest_attr(node.func, "raises") else "warns"
                site = self.new_site(kind, node, node.args[0], None, env, func)
                node.func = ast.Attribute(ast.Name("_hx", ast.Load()), f"{kind}_call", ast.Load())
                local = [] if site.expr else [node.args[0]]
                node.args = [ast.Constant(site.id), ast.List(local, ast.Load()), *node.args[1:]]

    def _raises_kind(self, stmt: ast.With) -> str | None:
        kinds = []
        for item in stmt.items:
            e = item.context_expr
            if isinstance(e, ast.Call) and _is_pytest_attr(e.func, "raises"):
                kinds.append("raises")
            elif isinstance(e, ast.Call) and _is_pytest_attr(e.func, "warns"):
                kinds.append("warns")
        if kinds and len(stmt.items) > 1:
            raise self.err(stmt, "pytest.raises/warns must be the only item of its with statement")
        return kinds[0] if kinds else None

    def raises_block(self, stmt: ast.With, kind: str, env: _Env, func: str, must) -> ast.With:
        call = stmt.items[0].context_expr
        if not isinstance(call, ast.Call):  # _raises_kind only names a with whose item is a call
            raise self.err(stmt, f"pytest.{kind} must be called")
        if not call.args:
            raise self.err(call, f"pytest.{kind} needs the expected class")
        match = None
        for k in call.keywords:
            if k.arg == "match":
                match = k.value
            else:
                raise self.err(call, f"pytest.{kind}({k.arg}=...) is not supported")
        site = self.new_site(kind, call, call.args[0], match, env, func)
        if must is not None:
            must.append(site.id)
        local = [] if site.expr else [call.args[0]]
        stmt.items[0].context_expr = ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), kind, ast.Load()),
                                              args=[ast.Constant(site.id), ast.List(local, ast.Load())], keywords=[])
        stmt.body = [self.visit_block_stmt(s, env, func, None) for s in stmt.body]  # after the raise: unreachable
        return stmt

    def new_site(self, kind: str, node: ast.AST, expected: ast.expr, match: ast.expr | None, env: _Env, func: str) -> Site:
        if match is not None and not env.evaluable(match):
            raise self.err(node, "pytest.raises(match=...) must be a literal pattern")
        self.next_site += 1
        site = Site(self.next_site, kind, ast.unparse(expected) if env.evaluable(expected) else "", 0,
                    getattr(node, "lineno", 0), _segment(self.source, node), ast.unparse(match) if match is not None else "",
                    func)
        self.plan.sites[site.id] = site
        return site

    def assert_(self, stmt: ast.Assert, env: _Env, func: str, must: list[int] | None) -> ast.stmt:
        sp = _Splitter(env)
        skeleton = sp.split(stmt.test)
        for leaf in sp.leaves:
            if any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(leaf)):
                raise self.err(stmt, "an assert whose operands bind names or yield is not supported")
        self.next_site += 1
        site = Site(self.next_site, "assert", ast.unparse(skeleton), len(sp.leaves), stmt.lineno,
                    _segment(self.source, stmt), "", func)
        self.plan.sites[site.id] = site
        if must is not None:
            must.append(site.id)
        return _hx_call("check", ast.Constant(site.id), *[_lambda(leaf) for leaf in sp.leaves])


_COUNT_ONLY = object()

# Standard modules that run or load code they are given (doctest runs docstring examples, importlib
# executes a file, inspect looks at live functions): the probe binds the subject's module, so that
# code runs in the subject process, never in the driver (harness.judge.probe_runtime ``remote_module``).
REMOTE_MODULES = ("doctest", "inspect", "importlib", "runpy", "pkgutil")


def _remote_call(name: str, *also: str) -> ast.expr:
    return ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), "remote_module", ast.Load()),
                    args=[ast.Constant(name), *[ast.Constant(a) for a in also]], keywords=[])


class _RemoteImports(ast.NodeTransformer):
    """``import doctest`` -> ``doctest = _hx.remote_module('doctest')`` (and the from-import forms)."""

    def visit_Import(self, node: ast.Import):
        out: list[ast.stmt] = []
        keep = []
        for a in node.names:
            root = a.name.split(".")[0]
            if root not in REMOTE_MODULES:
                keep.append(a)
                continue
            if a.asname:
                value = _remote_call(a.name)
            else:
                value = _remote_call(root, a.name) if a.name != root else _remote_call(root)
            out.append(ast.Assign([ast.Name(a.asname or root, ast.Store())], value, lineno=node.lineno))
        if keep:
            out.insert(0, ast.Import(keep))
        return out or node

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level or not node.module or node.module.split(".")[0] not in REMOTE_MODULES:
            return node
        out: list[ast.stmt] = []
        for a in node.names:
            full = f"{node.module}.{a.name}"
            value = ast.Attribute(_remote_call(node.module, full) if node.module.split(".")[0] == "importlib"
                                  else _remote_call(node.module), a.name, ast.Load())
            out.append(ast.Assign([ast.Name(a.asname or a.name, ast.Store())], value, lineno=node.lineno))
        return out


IMMUTABLE_CALLS = frozenset({"Decimal", "Fraction", "date", "datetime", "time", "timedelta", "str", "int", "float",
                             "bool", "complex", "frozenset", "tuple", "round", "abs", "len", "repr", "chr", "ord"})


STR_METHODS = frozenset({"replace", "format", "join", "strip", "lstrip", "rstrip", "lower", "upper", "title",
                         "casefold", "removeprefix", "removesuffix", "encode", "decode", "zfill", "center",
                         "ljust", "rjust"})


def _immutable(node: ast.expr, env: _Env) -> bool:
    """Whether an (evaluable) expression's value can never be changed by code it is passed to."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in env.attrs or node.id in env.frozen or (node.id in JUDGE_BUILTINS and node.id not in env.shadow)
    if isinstance(node, ast.Tuple):
        return all(_immutable(e, env) for e in node.elts)
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.JoinedStr)):
        return all(_immutable(c, env) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
    if isinstance(node, ast.FormattedValue):
        return True
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and env.modules.get(node.value.id) == "math"
    if isinstance(node, ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if isinstance(f, ast.Attribute) and name in STR_METHODS and _immutable(f.value, env):
            return True  # "...".replace(...): a str method of an immutable value returns a str
        return name in IMMUTABLE_CALLS and not node.keywords
    return False


def _escapes(name: str, scope: ast.AST, items_mutable: bool = True) -> bool:
    """Whether a mutable value bound to ``name`` can be changed after its assignment: it (or a
    container it is put in, or an element of it taken by subscript) is passed to a call, a method
    or attribute of it is used, it is stored into, aliased or returned; or, when its items may be
    mutable (``items_mutable``), it is iterated (the loop binds each item to a name)."""
    parents = {child: node for node in ast.walk(scope) for child in ast.iter_child_nodes(node)}
    return any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)
               and _flows_out(node, parents, items_mutable) for node in ast.walk(scope))


def _flows_out(node: ast.expr, parents: dict, items_mutable: bool) -> bool:
    """Whether the value of ``node`` (a mutable, or one inside it) reaches code that may change it
    (``_escapes``): a container literal holding it, a subscript of it or a conditional choosing it
    carries it on to whatever their own parent does with them."""
    parent = parents.get(node)
    if isinstance(parent, ast.Assign) and parent.value is node:
        return True  # an alias
    if isinstance(parent, (ast.Call, ast.Attribute, ast.keyword, ast.Starred, ast.Return, ast.Yield, ast.YieldFrom,
                           ast.withitem, ast.AugAssign, ast.NamedExpr, ast.Lambda)):
        return True
    if isinstance(parent, ast.Subscript):
        if parent.value is not node:
            return True  # an index: a tree object's __getitem__ is handed it (a list is never a plain index)
        return not isinstance(parent.ctx, ast.Load) or (items_mutable and _flows_out(parent, parents, items_mutable))
    if isinstance(parent, ast.Dict) and any(v is node and k is None for k, v in zip(parent.keys, parent.values)):
        return items_mutable and _flows_out(parent, parents, items_mutable)  # {**name}: only its items go on
    if isinstance(parent, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        return _flows_out(parent, parents, True)  # an item of this literal is the value itself
    if isinstance(parent, (ast.IfExp, ast.BoolOp)):
        return _flows_out(parent, parents, items_mutable)
    if isinstance(parent, ast.BinOp) or isinstance(parent, ast.Compare) and not all(
            isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)) for op in parent.ops):
        return True  # an operator or an ordering/``in`` with a tree object hands it over (its reflected method)
    if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and parent.iter is node:
        return items_mutable
    return False


def _items_immutable(node: ast.expr, env: "_Env") -> bool:
    """Whether every item of a container literal is immutable (iterating it exposes nothing)."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_immutable(e, env) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _immutable(k, env) and _immutable(v, env) for k, v in zip(node.keys, node.values))
    return _immutable(node, env)


def _returns(fn: ast.FunctionDef) -> bool:
    """Whether fn's own body (not nested scopes) has a return statement."""
    todo: list[ast.AST] = list(fn.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return False


def _case(i: int) -> ast.expr:
    return ast.Call(func=ast.Attribute(ast.Name("_hx", ast.Load()), "Case", ast.Load()), args=[ast.Constant(i)],
                    keywords=[])


def _single_assignment(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) of ``name = value`` or ``name: T = value``, else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None


def _single_target(stmt: ast.stmt) -> str | None:
    one = _single_assignment(stmt)
    return one[0] if one else None


def _module_stores(stmt: ast.stmt) -> list[str]:
    """Module-level bindings of a statement, and every global/Store inside functions (a reassigned
    'constant' is not a constant)."""
    out = []
    for n in ast.walk(stmt):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)) and not isinstance(stmt, (
                ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(n.id)
        elif isinstance(n, ast.Global):
            out += list(n.names)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.append(stmt.name)
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        out += [(a.asname or a.name).split(".")[0] for a in stmt.names]
    return out


def _segment(source: str, node: ast.AST) -> str:
    seg = ast.get_source_segment(source, node) or ""
    return seg if len(seg) <= 400 else seg[:400] + "..."


def transform(source: str, filename: str = "<test>") -> Probe:
    """The probe and the judge plan of one pytest file. Raises ProbeError naming the file and line
    for forms the judge cannot hold (then the file must be rewritten, never run unjudged)."""
    return _Transformer(source, filename).run()


def source_digest() -> str:
    """This module's identity, for the verdict cache key."""
    with open(__file__, "rb") as fh:
        return hashlib.sha256(fh.read() + VERSION.encode()).hexdigest()
