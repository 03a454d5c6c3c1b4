"""Type-aware equivalence rules (issue 35, item 3): mutants a reader calls equivalent, proved so.

Each rule looks at one mutant of the fine family as the change of one node of its unit (the
function or top-level statement holding it, ``_diff``) and says equivalent only with a proof
that no test can tell the two versions apart; anything it cannot prove is kept (judged). A
screened mutant is labelled *equivalent* with its rule in its note (``[equivalent: RULE: why]``),
counted per rule in the summary (``equivalent_by_rule``), never dropped silently.

- **small-int identity** (``identity``: ``E == k`` -> ``E is k``, ``!=`` -> ``is not``): k an int
  literal in [-5, 256] and E proved an *exact* int (``_ExactInt``: int literals, ``len``/``int``/
  ``ord``/``abs``, int arithmetic, a local bound only to those). CPython keeps one object per
  small int, and every int-producing path returns it, so equal values are the same object. E
  may not be a bool (``True == 1`` but ``True is not 1``), a float, or anything unproved.
- **default argument** (``drop_argument``): the trailing positional argument, or a keyword
  argument, dropped from a call of a function (or a class's ``__init__``) the module defines
  once at top level, undecorated (a class: no bases, no metaclass, no ``__new__``, decorated
  by ``total_ordering`` at most), when the argument is a literal equal (same type, same repr)
  to the parameter's literal default, and the callee never compares that parameter by identity
  (unless the value is None, True, False or ...), nor reads ``id``/``locals``/frames.
- **guarded boundary** (``comparison``: ``a < c`` <-> ``a <= c``, ``>`` <-> ``>=``): a and c
  proved ints (names or literals), and a guard on the way excludes ``a == c``: an enclosing
  ``if a != c:`` (or ``if a:`` for c = 0), an exiting ``if a == c: return/raise/continue/break``
  before it in the same block, an ``elif`` after ``if a == c``, an earlier ``a != c and ...``;
  with neither name rebound in the guarded stretch. For ints, a != c makes < and <= agree.
- **fallback member** (``string_constant``, ``number_constant``, ``string_case`` on a member of
  ``x in (...)``): the membership is followed by a fallback that gives the same answer for the
  member changed and its replacement: ``x in S or P(x)``, or ``if x in S: A`` / ``elif P(x): A``
  with the same A; x proved an int or an exact str, P comparisons of x with literals, evaluated
  on both values here.

**Closed-world rules** (read by corpus/screen_types.py's kinds; each note ends with the
assumptions it used: ``closed world: exact builtin values, the module's classes and private names
its own`` - a test hands in no int or str subclass that overrides a comparison, does not subclass
the module's classes, does not call its private helpers or set its private attributes; the
module's own values are proved from its code: literals, arithmetic, calls of its functions and
methods, properties, private attributes assigned only from checked parameters):

- **small-int identity**, also on an expression proved an exact int through the module (a method's
  return, a property, an ``isinstance``-checked parameter kept in a private attribute), and on a
  chain that pins the other side to a small int (``a is b == 0``);
- **singleton identity**: ``== None`` against a builtin value, ``== True/False`` against a value
  that is no number, an interned str literal against a str only ever bound to interned literals
  (an instance's attribute never is: ``pickle`` rebuilds it; one latin-1 character proves nothing:
  ``s[0]`` is CPython's singleton, the interned literal ``"a"`` another object);
- **default argument** through ``type(self)(...)``, ``cls(...)``, ``self.method(...)`` (the class's
  own ``__init__`` or method), and a builtin's or a str/bytes method's documented default
  (``sorted(reverse=False)``, ``s.encode("utf-8")``, ``b.decode("utf-8")``, ...);
- **non-negative boundary**: ``n == 0`` <-> ``n <= 0`` (``!=`` <-> ``>``) with n proved an int never
  below 0 (``len``, a parameter checked by ``if n < 0: raise``), also when the chain pins it;
- **finite domain**: a comparison of a parameter with literals where an exiting ``if p not in
  (...)`` left it a few literals (narrowed by the exiting ``if``s, enclosing ``if``s and
  ``and``/``or`` operands on the way), p proved of the literals' exact type (a value equal to a
  member need not be it: ``1 + 0j``, an object with its own ``__eq__``): both comparisons agree
  on each value;
- **codec name case**: ``bytes.decode``/``str.encode`` on a receiver proved exact bytes/str, the
  two names naming one codec (``codecs.lookup``) run in C (``_C_CODECS``: a codec written in
  Python has its errors wrapped naming it as the caller spelled it).

The rule every rule keeps (red team r35atk): a mutant is dropped only when it is equivalent for
every input its assumptions allow, and a name's meaning is proved only when the module cannot
change it at run time (``_rebinds_at_run_time``: ``globals()``, ``setattr``, ``exec``,
``__defaults__``/``__kwdefaults__``/``__code__``, an attribute of the callee assigned).

Measured against the semver sample's survivors read by hand (corpus/examples/semver/
survivors-read.toml; tests/corpus/test_screen_semver.py): 11 of its 20 equivalents screened, none
of its 80 killable survivors; every screened mutant of the four benchmark modules passes its
module's whole suite.

What is out of scope for every rule (stated, not checked): a test that replaces the module's
functions or their ``__defaults__``, or that runs the module under another interpreter than
CPython. tests/corpus/test_screen.py generates mutants of many small functions and checks that
every screened one gives what the original gives on every input of a battery (never a killable
one screened).
"""
from __future__ import annotations

import ast
import codecs
import functools
import re

from corpus.equivalence import _FRAME_ATTRS, _FRAME_NAMES, _const, _IntProof, _nodes, bound_names
from corpus.pyparse import parse
from corpus.screen_types import _BUILTIN_TAGS, INTS, STRS, Kinds, always_exits, interned

RULES = ("small-int identity", "singleton identity", "default argument", "guarded boundary", "fallback member",
         "non-negative boundary", "finite domain", "codec name case")
# the closed-world assumptions a rule's proof used (corpus/screen_types.py), named in its note
CLOSED = "closed world: exact builtin values, the module's classes and private names its own"
_OPERATORS = ("identity", "drop_argument", "comparison", "string_constant", "number_constant", "string_case")
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_BOUNDARY = {(ast.Lt, ast.LtE), (ast.LtE, ast.Lt), (ast.Gt, ast.GtE), (ast.GtE, ast.Gt)}
_SINGLETONS = (None, True, False, ...)


def screen(module: str, original: str, mutant: str, operator: str) -> tuple[str, str] | None:
    """(rule, why) when one rule proves the mutant equivalent, else None. ``original`` and
    ``mutant`` are the unit before and after the change (parseable alone), ``module`` the
    whole module (for what it binds)."""
    if operator not in _OPERATORS:
        return None
    try:
        tree, shadowed = _module(module)
        ta, tb = parse(original), parse(mutant)
    except (SyntaxError, ValueError):
        return None
    found = _diff(ta, tb, [])
    if found is None:
        return None
    a, b, path = found
    ctx = _Context(tree, shadowed, path)
    closed = _Closed.of(module, original, ta, tree)
    if operator == "identity":
        return _small_int_identity(a, b, path, ctx) or _closed_identity(a, b, path, closed)
    if operator == "drop_argument":
        return _default_argument(a, b, ctx, closed)
    if operator == "comparison":
        return _guarded_boundary(a, b, path, ctx) or _nonneg_boundary(a, b, path, closed) or \
            _finite_domain(a, b, path, closed)
    if operator == "string_case":
        return _fallback_member(a, b, path, ctx) or _codec_case(a, b, path, closed)
    return _fallback_member(a, b, path, ctx)


def rule_of(note: str) -> str:
    """The rule named in an equivalent mutant's note (``[equivalent: RULE: why]``; the bytecode
    and int checks of corpus/equivalence.py by their short names); "other" when none is."""
    m = re.search(r"\[equivalent: ([^:\]]+)", note or "")
    text = m.group(1).strip() if m else "other"
    if text.startswith("the residue of an int"):
        return "int residue"
    if text.startswith("an int accumulator"):
        return "int accumulator"
    return text


@functools.lru_cache(maxsize=4)
def _module(text: str) -> tuple[ast.Module, frozenset[str]]:
    """The module's tree (read, never changed) and every name it binds: parsed once per module,
    not once per mutant."""
    tree = parse(text)
    return tree, frozenset(bound_names(tree))


def _diff(a: ast.AST, b: ast.AST, path: list[ast.AST]) -> tuple[ast.AST, ast.AST, list[ast.AST]] | None:
    """The smallest pair of nodes holding every difference between ``a`` and ``b`` (positions
    ignored), with the path of ``a``'s ancestors; None when they are the same."""
    if type(a) is not type(b):
        return a, b, path
    found: list[tuple[ast.AST, ast.AST, list[ast.AST]]] = []
    for name in a._fields:
        x, y = getattr(a, name, None), getattr(b, name, None)
        if isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return a, b, path
            for p, q in zip(x, y):
                if isinstance(p, ast.AST) and isinstance(q, ast.AST):
                    d = _diff(p, q, [*path, a])
                    if d is not None:
                        found.append(d)
                elif p != q:
                    return a, b, path
        elif isinstance(x, ast.AST) and isinstance(y, ast.AST):
            d = _diff(x, y, [*path, a])
            if d is not None:
                found.append(d)
        elif type(x) is not type(y) or x != y:
            return a, b, path
        if len(found) > 1:
            return a, b, path
    return found[0] if found else None


class _Context:
    """What a rule needs about where the change is: the module, the names it binds, the
    innermost function around the change."""

    def __init__(self, module: ast.Module, shadowed: frozenset[str], path: list[ast.AST]):
        self.module, self.path = module, path
        self.shadowed = set(shadowed)
        funcs = [n for n in path if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
        self.func = funcs[-1] if funcs else None

    def exact_int(self, e: ast.AST) -> bool:
        return self.func is not None and not _frames(self.func) and _ExactInt(self.func, self.shadowed).expr(e)

    def some_int(self, e: ast.AST) -> bool:
        return self.func is not None and not _frames(self.func) and _IntProof(self.func, self.shadowed).expr(e)


class _ExactInt(_IntProof):
    """``_IntProof`` less bools: a literal True or False is not an exact int (``True is 1`` is
    False); every other form it accepts gives an exact int even from bools (True + 0 is 1)."""

    def expr(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Constant):
            return type(e.value) is int
        if isinstance(e, ast.IfExp):
            return self.expr(e.body) and self.expr(e.orelse)
        if isinstance(e, ast.Name):
            return self.name(e.id)
        return super().expr(e)

    def name(self, name: str) -> bool:
        if name in self.params or name in self.visiting:
            return False
        binds = list(self._bindings(name))
        if not binds or any(b is None for b in binds):
            return False
        self.visiting.add(name)
        try:
            return all(self.expr(v) for v in binds)
        finally:
            self.visiting.discard(name)


def _frames(func: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in _FRAME_NAMES or isinstance(n, ast.Attribute) and n.attr in _FRAME_ATTRS
               for n in _nodes(func))


# ----------------------------------------------------------------------------- small-int identity

def _small_int_identity(a, b, path, ctx: _Context) -> tuple[str, str] | None:
    if (type(a), type(b)) not in ((ast.Eq, ast.Is), (ast.NotEq, ast.IsNot)) or not path or \
            not isinstance(path[-1], ast.Compare) or len(path[-1].ops) != 1:
        return None
    sides = (path[-1].left, path[-1].comparators[0])
    for lit, other in (sides, sides[::-1]):
        if isinstance(lit, ast.Constant) and type(lit.value) is int and -5 <= lit.value <= 256 and ctx.exact_int(other):
            return ("small-int identity", f"{ast.unparse(other)} is an exact int and {lit.value} a cached small int: "
                                          f"equal means the same object")
    return None


# ----------------------------------------------------------------------------- default argument

def _default_argument(a, b, ctx: _Context, closed: _Closed | None = None) -> tuple[str, str] | None:
    if not (isinstance(a, ast.Call) and isinstance(b, ast.Call)) or ast.dump(a.func) != ast.dump(b.func):
        return None
    if any(isinstance(x, ast.Starred) for x in a.args) or any(k.arg is None for k in a.keywords):
        return None
    dropped: ast.expr | None = None
    index: int | None = None
    keyword: str | None = None
    if len(b.args) == len(a.args) - 1 and [ast.dump(x) for x in b.args] == [ast.dump(x) for x in a.args[:-1]] and \
            [ast.dump(k) for k in a.keywords] == [ast.dump(k) for k in b.keywords]:
        dropped, index = a.args[-1], len(a.args) - 1
    elif len(b.keywords) == len(a.keywords) - 1 and [ast.dump(x) for x in a.args] == [ast.dump(x) for x in b.args]:
        gone = [k for k in a.keywords if ast.dump(k) not in {ast.dump(q) for q in b.keywords}]
        if len(gone) != 1 or gone[0].arg is None:
            return None
        dropped, keyword = gone[0].value, gone[0].arg
    if dropped is None or not isinstance(dropped, ast.Constant):
        return None
    known = _builtin_default(a, index, keyword, dropped, ctx, closed)
    if known is not None:
        return known
    target, via = _callee(a, ctx, closed)
    if target is None:
        return None
    func, skip = target
    if func.decorator_list or _frames(func) or any(isinstance(n, ast.Name) and n.id == "id" for n in _nodes(func)):
        return None
    args = func.args
    positional = [*args.posonlyargs, *args.args]           # self first, for a class's __init__
    first_default = len(positional) - len(args.defaults)   # defaults belong to the last ones
    default: ast.expr | None = None
    param: str | None = None
    if index is not None:
        at = index + skip
        if at >= len(positional) or at < first_default:
            return None
        default, param = args.defaults[at - first_default], positional[at].arg
    else:
        names = [p.arg for p in args.args]
        if keyword in names[skip:]:
            at = len(args.posonlyargs) + names.index(keyword)
            default = args.defaults[at - first_default] if at >= first_default else None
        elif keyword in [p.arg for p in args.kwonlyargs]:
            default = args.kw_defaults[[p.arg for p in args.kwonlyargs].index(keyword)]
        param = keyword
    if not isinstance(default, ast.Constant) or _const(default.value) != _const(dropped.value):
        return None
    if dropped.value not in _SINGLETONS and _compared_by_identity(func, param):
        return None
    why = f"{ast.unparse(dropped)} is {param}'s default in {ast.unparse(a.func)}()"
    return ("default argument", why + (f" ({via}; {CLOSED})" if via else ""))


def _callee(a: ast.Call, ctx: _Context, closed: _Closed | None) -> tuple[tuple[ast.FunctionDef, int] | None, str]:
    """(the function a call runs and the parameters to skip, how it was found: "" by its name,
    else the closed-world resolution) - ``type(self)(...)``, ``cls(...)``, ``self.method(...)``
    resolve to the enclosing class's ``__init__`` or method under A3 (corpus/screen_types.py)."""
    if isinstance(a.func, ast.Name):
        found = _defined_once(ctx.module, a.func.id)
        if found is not None or closed is None:
            return found, ""
    if closed is None:
        return None, ""
    f = closed.m(a.func)
    if f is None:
        return None, ""
    owner = closed.kinds.kind(f.args[0]) if isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and \
        f.func.id == "type" and len(f.args) == 1 and not f.keywords and "type" not in ctx.shadowed else None
    if owner is not None and len(owner) == 1 and next(iter(owner)).startswith("inst:"):
        return _defined_once(ctx.module, next(iter(owner))[5:]), "type(self) is its class"
    k = closed.kinds.kind(f) if isinstance(f, ast.Name) else None
    if isinstance(f, ast.Name) and k is not None and len(k) == 1 and next(iter(k)).startswith("cls:"):
        return _defined_once(ctx.module, next(iter(k))[4:]), f"{f.id} is its class"
    if isinstance(f, ast.Attribute):
        owner = closed.kinds.kind(f.value)
        if owner is not None and len(owner) == 1 and next(iter(owner)).startswith("inst:"):
            m = closed.kinds.method(next(iter(owner))[5:], f.attr)
            if m is not None and not m.decorator_list:
                return (m, 1), "self is an instance of its class"
    return None, ""


# well-known defaults: builtin name -> {position or keyword: default}; str/bytes methods the same
_BUILTIN_DEFAULTS: dict[str, dict[int | str, object]] = {
    "sorted": {"key": None, "reverse": False}, "enumerate": {1: 0, "start": 0}, "sum": {1: 0, "start": 0},
    "print": {"sep": " ", "end": "\n", "flush": False, "file": None}, "zip": {"strict": False},
    "round": {1: None, "ndigits": None}, "max": {"key": None}, "min": {"key": None},
    "open": {1: "r", "mode": "r", 2: -1, "buffering": -1, 3: None, "encoding": None, 4: None, "errors": None,
             5: None, "newline": None, 6: True, "closefd": True},
}
_STR_DEFAULTS: dict[str, dict[int | str, object]] = {
    "split": {0: None, "sep": None, 1: -1, "maxsplit": -1}, "rsplit": {0: None, "sep": None, 1: -1, "maxsplit": -1},
    "strip": {0: None}, "lstrip": {0: None}, "rstrip": {0: None}, "splitlines": {0: False, "keepends": False},
    "encode": {0: "utf-8", "encoding": "utf-8", 1: "strict", "errors": "strict"},
}
_BYTES_DEFAULTS: dict[str, dict[int | str, object]] = {
    "decode": {0: "utf-8", "encoding": "utf-8", 1: "strict", "errors": "strict"},
    "split": {0: None, "sep": None, 1: -1, "maxsplit": -1}, "strip": {0: None},
}


def _builtin_default(a: ast.Call, index: int | None, keyword: str | None, dropped: ast.Constant, ctx: _Context,
                     closed: _Closed | None) -> tuple[str, str] | None:
    """A dropped argument equal to a builtin's or a str/bytes method's documented default: the
    builtin not rebound by the module; a method's receiver proved an exact str or bytes (A2)."""
    table: dict[int | str, object] | None = None
    if isinstance(a.func, ast.Name) and a.func.id in _BUILTIN_DEFAULTS and a.func.id not in ctx.shadowed \
            and "*" not in ctx.shadowed:
        table, name = _BUILTIN_DEFAULTS[a.func.id], a.func.id
    elif isinstance(a.func, ast.Attribute) and closed is not None:
        f = closed.m(a.func)
        k = closed.kinds.kind(f.value) if isinstance(f, ast.Attribute) else None
        if k is not None and k <= STRS:
            table, name = _STR_DEFAULTS.get(a.func.attr), f"str.{a.func.attr}"
        elif k is not None and k <= {"bytes"}:
            table, name = _BYTES_DEFAULTS.get(a.func.attr), f"bytes.{a.func.attr}"
    if table is None:
        return None
    where: int | str | None = keyword if keyword is not None else index
    if where is None or where not in table:
        return None
    want = table[where]
    if _const(dropped.value) != _const(want):
        return None
    return ("default argument", f"{ast.unparse(dropped)} is the default of {name}()"
            + (f" ({CLOSED})" if not isinstance(a.func, ast.Name) else ""))


def _defined_once(module: ast.Module, name: str) -> tuple[ast.FunctionDef, int] | None:
    """(the function a call of ``name`` runs, parameters to skip: 1 for a class's self) when the
    module binds ``name`` exactly once, at top level, as a plain def or a plain class."""
    binds = [n for n in _nodes(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
             and n.name == name or isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
             or isinstance(n, ast.arg) and n.arg == name
             or isinstance(n, (ast.Import, ast.ImportFrom)) and name in {(x.asname or x.name).split(".")[0] for x in n.names}
             or isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names]
    if len(binds) != 1 or binds[0] not in module.body or _rebinds_at_run_time(module, name):
        return None
    node = binds[0]
    if isinstance(node, ast.FunctionDef):
        return node, 0
    if not isinstance(node, ast.ClassDef) or node.bases or node.keywords or \
            any(ast.unparse(d) not in ("total_ordering", "functools.total_ordering") for d in node.decorator_list):
        return None
    defs = {n.name: n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    init = defs.get("__init__")
    if not isinstance(init, ast.FunctionDef) or "__new__" in defs or "__init_subclass__" in defs or \
            sum(isinstance(n, ast.FunctionDef) and n.name == "__init__" for n in node.body) != 1:
        return None
    return init, 1


# what lets a module's own code give a name another function, or a function other defaults or
# other code, without a binding ``_defined_once`` can count
_REBINDING_CALLS = frozenset({"setattr", "delattr", "globals", "vars", "exec", "eval", "__import__", "import_module"})
_FUNCTION_STATE = frozenset({"__dict__", "__defaults__", "__kwdefaults__", "__code__", "__globals__", "__init__",
                             "modules"})


def _rebinds_at_run_time(module: ast.Module, name: str) -> bool:
    """Can the module's code rebind ``name`` or change what calling it does at run time?
    ``globals()["f"] = g``, ``setattr(sys.modules[__name__], ...)``, ``exec``, ``f.__defaults__ = ...``,
    ``f.__code__ = ...``, ``C.__init__ = ...``, any attribute of ``name`` assigned or deleted."""
    for n in ast.walk(module):
        if isinstance(n, ast.Call):
            f = n.func
            called = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if called in _REBINDING_CALLS:
                return True
        elif isinstance(n, ast.Attribute):
            if n.attr in _FUNCTION_STATE and not (n.attr == "__init__" and isinstance(n.ctx, ast.Load)):
                return True
            if not isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name) and n.value.id == name:
                return True
    return False


def _compared_by_identity(func: ast.AST, param: str | None) -> bool:
    for n in _nodes(func):
        if isinstance(n, ast.Compare) and any(isinstance(o, (ast.Is, ast.IsNot)) for o in n.ops) and \
                any(isinstance(x, ast.Name) and x.id == param for x in [n.left, *n.comparators]):
            return True
    return False


# ----------------------------------------------------------------------------- guarded boundary

def _guarded_boundary(a, b, path, ctx: _Context) -> tuple[str, str] | None:
    if (type(a), type(b)) not in _BOUNDARY or not path or not isinstance(path[-1], ast.Compare):
        return None
    cmp = path[-1]
    if len(cmp.ops) != 1:
        return None
    x, y = cmp.left, cmp.comparators[0]
    if not all(isinstance(e, (ast.Name, ast.Constant)) for e in (x, y)) or not (ctx.some_int(x) and ctx.some_int(y)):
        return None
    if ctx.func is None or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in _nodes(ctx.func)):
        return None
    names = {e.id for e in (x, y) if isinstance(e, ast.Name)}
    guard = _guard(path, x, y, names)
    if guard is None:
        return None
    return ("guarded boundary", f"{guard} excludes {ast.unparse(x)} == {ast.unparse(y)}: for ints < and <= agree then")


def _same(e: ast.AST, f: ast.AST) -> bool:
    return ast.dump(e) == ast.dump(f)


def _is_test(test: ast.AST, x, y, want_equal: bool) -> bool:
    """Is ``test`` ``x == y`` (want_equal) or ``x != y``, either order; or, when one side is the
    literal 0, ``not n`` (equal) / ``n`` (not equal) for the other side n?"""
    op = ast.Eq if want_equal else ast.NotEq
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], op):
        left, right = test.left, test.comparators[0]
        if _same(left, x) and _same(right, y) or _same(left, y) and _same(right, x):
            return True
    for zero, n in ((y, x), (x, y)):
        if isinstance(zero, ast.Constant) and type(zero.value) is int and zero.value == 0:
            if want_equal and isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _same(test.operand, n):
                return True
            if not want_equal and _same(test, n):
                return True
    return False


def _stores(nodes, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load)
               for top in nodes for n in _nodes(top))


def _guard(path, x, y, names: set[str]) -> str | None:
    """The guard that excludes x == y on the way to the comparison (the last of ``path``, which
    holds its ancestors), as text; None when there is none."""
    chain = list(path)
    for depth in range(len(chain) - 1, 0, -1):
        parent, child = chain[depth - 1], chain[depth]
        if isinstance(parent, ast.If):
            if any(c is child for c in parent.body) and _is_test(parent.test, x, y, False) and \
                    not _stores(parent.body, names):
                return f"'if {ast.unparse(parent.test)}:'"
            if any(c is child for c in parent.orelse) and _is_test(parent.test, x, y, True) and \
                    not _stores(parent.orelse, names):
                return f"'if {ast.unparse(parent.test)}: ... else'"
        if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.And):
            at = next((i for i, v in enumerate(parent.values) if v is child), None)
            if at is not None and any(_is_test(v, x, y, False) for v in parent.values[:at]) and \
                    not any(isinstance(n, ast.NamedExpr) for v in parent.values for n in _nodes(v)):
                return f"'{ast.unparse(parent)}'"
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if not isinstance(block, list):
                continue
            at = next((i for i, s in enumerate(block) if s is child), None)
            if at is None:
                continue
            for i in range(at - 1, -1, -1):
                s = block[i]
                if isinstance(s, ast.If) and not s.orelse and s.body and isinstance(s.body[-1], _EXITS) and \
                        _is_test(s.test, x, y, True) and not _stores(block[i + 1:at + 1], names):
                    return f"'if {ast.unparse(s.test)}: {type(s.body[-1]).__name__.lower()}' before it"
    return None


# ----------------------------------------------------------------------------- fallback member

_CMP_OPS = {ast.Eq: lambda p, q: p == q, ast.NotEq: lambda p, q: p != q, ast.Lt: lambda p, q: p < q,
            ast.LtE: lambda p, q: p <= q, ast.Gt: lambda p, q: p > q, ast.GtE: lambda p, q: p >= q,
            ast.In: lambda p, q: p in q, ast.NotIn: lambda p, q: p not in q}


class _NoValue(Exception):
    pass


def _evaluate(e: ast.AST, x: ast.AST, value):
    """``e`` with ``x`` bound to ``value``: literals, tuples/sets/lists of literals, comparisons,
    and/or/not; anything else is _NoValue (the rule then proves nothing)."""
    if _same(e, x):
        return value
    if isinstance(e, ast.Constant):
        return e.value
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return tuple(_evaluate(v, x, value) for v in e.elts)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return not _evaluate(e.operand, x, value)
    if isinstance(e, ast.BoolOp):
        out = None
        for v in e.values:
            out = _evaluate(v, x, value)
            if isinstance(e.op, ast.And) and not out or isinstance(e.op, ast.Or) and out:
                return out
        return out
    if isinstance(e, ast.Compare):
        left = _evaluate(e.left, x, value)
        for op, right_e in zip(e.ops, e.comparators):
            right = _evaluate(right_e, x, value)
            fn = _CMP_OPS.get(type(op))
            if fn is None:
                raise _NoValue
            try:
                if not fn(left, right):
                    return False
            except TypeError:
                raise _NoValue from None
            left = right
        return True
    raise _NoValue


def _exact_str(e: ast.AST, ctx: _Context, seen: frozenset[str] = frozenset()) -> bool:
    """Is ``e`` proved an exact str: a str literal, an f-string, a slice or index of one, a str
    method returning str called on one, or a local bound only to those?"""
    if isinstance(e, ast.Constant):
        return type(e.value) is str
    if isinstance(e, ast.JoinedStr):
        return True
    if isinstance(e, ast.Subscript):
        return _exact_str(e.value, ctx, seen)
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        return _exact_str(e.left, ctx, seen) and _exact_str(e.right, ctx, seen)
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and not e.keywords and \
            e.func.attr in ("strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "replace", "join"):
        return _exact_str(e.func.value, ctx, seen)
    if isinstance(e, ast.Name) and ctx.func is not None and e.id not in seen and not _frames(ctx.func):
        proof = _IntProof(ctx.func, ctx.shadowed)
        if e.id in proof.params:
            return False
        binds = list(proof._bindings(e.id))
        return bool(binds) and all(v is not None and _exact_str(v, ctx, seen | {e.id}) for v in binds)
    return False


def _fallback_member(a, b, path, ctx: _Context) -> tuple[str, str] | None:
    if not (isinstance(a, ast.Constant) and isinstance(b, ast.Constant)) or len(path) < 2:
        return None
    members, cmp = path[-1], path[-2]
    if not isinstance(members, (ast.Tuple, ast.Set, ast.List)) or not isinstance(cmp, ast.Compare) or \
            len(cmp.ops) != 1 or not isinstance(cmp.ops[0], ast.In) or cmp.comparators[0] is not members or \
            not all(isinstance(v, ast.Constant) for v in members.elts):
        return None
    x = cmp.left
    if not isinstance(x, ast.Name):
        return None
    proved = "int" if ctx.some_int(x) else "str" if _exact_str(x, ctx) else None
    if proved is None:
        return None
    mutant_members = [b if v is a else v for v in members.elts]
    fallback = _fallback(cmp, path[:-2])
    if fallback is None:
        return None
    whole, kind = fallback
    for value in (a.value, b.value):
        if proved == "int" and type(value) not in (int, bool, float) or proved == "str" and type(value) is not str:
            continue            # x can never equal it
        try:
            before = _evaluate(whole, x, value)
            saved = members.elts
            members.elts = mutant_members
            try:
                after = _evaluate(whole, x, value)
            finally:
                members.elts = saved
        except _NoValue:
            return None
        if bool(before) != bool(after) or kind == "or" and before is not after:
            return None
    return ("fallback member", f"{kind} after '{ast.unparse(cmp)}' answers {a.value!r} and {b.value!r} alike")


def _fallback(cmp: ast.Compare, path: list[ast.AST]) -> tuple[ast.AST, str] | None:
    """(the expression to evaluate for each value, "or" / "elif") when ``cmp`` is followed by a
    fallback: ``cmp or P`` (the whole or), or ``if cmp: A elif P: A`` (evaluated as ``cmp or P``)."""
    if not path:
        return None
    parent = path[-1]
    if isinstance(parent, ast.BoolOp) and isinstance(parent.op, ast.Or) and parent.values[0] is cmp:
        return parent, "or"
    if isinstance(parent, ast.If) and parent.test is cmp and len(parent.orelse) == 1 and \
            isinstance(parent.orelse[0], ast.If):
        nxt = parent.orelse[0]
        if [ast.dump(s) for s in nxt.body] == [ast.dump(s) for s in parent.body]:
            return ast.BoolOp(op=ast.Or(), values=[cmp, nxt.test]), "elif"
    return None


# ----------------------------------------------------------------------------- closed-world rules

class _Closed:
    """The closed-world kinds (corpus/screen_types.py) of the module, with the unit's nodes mapped
    onto the module's: a rule reads the module's tree around the change (its class, its callers)."""

    def __init__(self, kinds: Kinds, mapping: dict[int, ast.AST]):
        self.kinds, self._map = kinds, mapping

    def m(self, node: ast.AST) -> ast.AST | None:
        return self._map.get(id(node))

    @staticmethod
    def of(module: str, original: str, unit: ast.Module, tree: ast.Module) -> _Closed | None:
        kinds = _kinds(module)
        top = unit.body[0] if len(unit.body) == 1 else None
        if original.startswith("if True:\n") and isinstance(top, ast.If) and len(top.body) == 1:
            top = top.body[0]
        if top is None:
            return None
        hits = _by_dump(module, type(top).__name__).get(ast.dump(top), [])
        if len(hits) != 1:
            return None
        return _Closed(kinds, {id(x): y for x, y in zip(ast.walk(top), ast.walk(hits[0]))})


@functools.lru_cache(maxsize=4)
def _kinds(text: str) -> Kinds:
    return Kinds(parse(text))


@functools.lru_cache(maxsize=16)
def _by_dump(text: str, kind: str) -> dict[str, list[ast.AST]]:
    """The module's nodes of one type (its name) by their ``ast.dump``, in ``ast.walk`` order: found once per
    module and type, not once per mutant (each mutant's unit is looked up here)."""
    out: dict[str, list[ast.AST]] = {}
    for n in ast.walk(_kinds(text).module):
        if type(n).__name__ == kind:
            out.setdefault(ast.dump(n), []).append(n)
    return out


def _compare_at(a, path, closed: _Closed | None):
    """(the module's Compare holding the changed operator, the operator's index) or None."""
    if closed is None or not path or not isinstance(path[-1], ast.Compare):
        return None
    at = next((i for i, o in enumerate(path[-1].ops) if o is a), None)
    cmp = closed.m(path[-1])
    if at is None or not isinstance(cmp, ast.Compare):
        return None
    return cmp, at


def _small(e: ast.AST) -> bool:
    return isinstance(e, ast.Constant) and type(e.value) is int and -5 <= e.value <= 256


def _closed_identity(a, b, path, closed: _Closed | None) -> tuple[str, str] | None:
    """``==`` -> ``is`` (``!=`` -> ``is not``) where equal values are the same object: a cached
    small int against an exact int, None/True/False against builtin values that equal them only
    by being them, an interned str literal against a str only ever bound to interned literals (an
    instance's attribute never is: ``_copied``), two exact ints of which the chain pins one to a
    small int (``a is b == 0``)."""
    if (type(a), type(b)) not in ((ast.Eq, ast.Is), (ast.NotEq, ast.IsNot)):
        return None
    found = _compare_at(a, path, closed)
    if found is None:
        return None
    assert closed is not None
    cmp, i = found
    ops = [cmp.left, *cmp.comparators]
    left, right = ops[i], ops[i + 1]
    k = closed.kinds.kind
    for lit, other in ((left, right), (right, left)):
        if not isinstance(lit, ast.Constant):
            continue
        ko, v = k(other), lit.value
        if ko is None:
            continue
        text = ast.unparse(other)
        if _small(lit) and ko <= INTS:
            return ("small-int identity", f"{text} is an exact int and {v!r} a cached small int ({CLOSED})")
        if v is None and ko <= _BUILTIN_TAGS:
            return ("singleton identity", f"{text} is a builtin value: equal to None only by being None ({CLOSED})")
        if type(v) is bool and ko <= {"bool", "None", "str", "istr", "bytes"}:
            return ("singleton identity", f"{text} is no number: equal to {v} only by being it ({CLOSED})")
        # (an exact str that is one latin-1 character proves nothing: ``s[0]`` is CPython's
        # one-character singleton, the literal ``"a"`` an interned object that is not it)
        if type(v) is str and interned(v) and ko <= {"istr"}:
            return ("singleton identity", f"{text} is only ever an interned literal, as {v!r} is ({CLOSED})")
    kl, kr = k(left), k(right)
    if kl is not None and kr is not None and kl <= INTS and kr <= INTS:
        for j, pinned, lit in ((i + 1, right, ops[i + 2] if i + 2 < len(ops) else None),
                               (i - 1, left, ops[i - 1] if i >= 1 else None)):
            if 0 <= j < len(cmp.ops) and isinstance(cmp.ops[j], ast.Eq) and lit is not None and _small(lit):
                return ("small-int identity", f"the chain pins {ast.unparse(pinned)} to {lit.value}, a cached small "
                                              f"int, and both sides are exact ints ({CLOSED})")
    return None


_NONNEG = {(ast.Eq, ast.LtE): "right", (ast.NotEq, ast.Gt): "right", (ast.Eq, ast.GtE): "left",
           (ast.NotEq, ast.Lt): "left"}


def _nonneg_boundary(a, b, path, closed: _Closed | None) -> tuple[str, str] | None:
    """``n == 0`` <-> ``n <= 0`` (``!=`` <-> ``>``, and mirrored) when n is proved an int that is
    never negative; in a chain, when the next comparison pins the right side to 0."""
    side = _NONNEG.get((type(a), type(b)))
    found = _compare_at(a, path, closed)
    if side is None or found is None:
        return None
    assert closed is not None
    cmp, i = found
    ops = [cmp.left, *cmp.comparators]
    zero, n = (ops[i + 1], ops[i]) if side == "right" else (ops[i], ops[i + 1])

    def is_zero(e):
        return isinstance(e, ast.Constant) and type(e.value) is int and e.value == 0
    kn = closed.kinds.kind(n)
    if kn is None or not kn <= {"nat"}:
        return None
    if is_zero(zero):
        return ("non-negative boundary", f"{ast.unparse(n)} is an int never below 0 ({CLOSED})")
    if side == "right" and i + 1 < len(cmp.ops) and isinstance(cmp.ops[i + 1], ast.Eq) and is_zero(ops[i + 2]):
        return ("non-negative boundary", f"the chain pins {ast.unparse(zero)} to 0 and {ast.unparse(n)} is an int "
                                         f"never below 0 ({CLOSED})")
    return None


def _finite_domain(a, b, path, closed: _Closed | None) -> tuple[str, str] | None:
    """A comparison of one parameter with literals, where an exiting ``if p not in (...)`` at the
    top of the function leaves p a finite set of literals (narrowed by the exiting ``if``s, the
    enclosing ``if``s and the ``and``/``or`` operands before it): the original and the mutant
    comparison agree on every value left (A2: p is an exact value equal to one of them)."""
    found = _compare_at(a, path, closed)
    if found is None:
        return None
    assert closed is not None
    cmp, i = found
    names = {o.id for o in [cmp.left, *cmp.comparators] if isinstance(o, ast.Name)}
    if len(names) != 1 or not all(isinstance(o, (ast.Name, ast.Constant)) for o in [cmp.left, *cmp.comparators]):
        return None
    x = names.pop()
    kinds = closed.kinds
    scope = kinds.scope_of(cmp)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or x not in _param_names(scope) or \
            any(isinstance(n, ast.Name) and n.id == x and not isinstance(n.ctx, ast.Load) for n in ast.walk(scope)):
        return None
    values = _domain(kinds, scope, x, cmp)
    if not values:
        return None
    # a value equal to a member need not be it: ``1 + 0j in (1, 2, 3)``, and complex numbers do
    # not order. p must be proved of the members' own exact type (ints, or strs)
    kx = kinds.kind(next(o for o in [cmp.left, *cmp.comparators] if isinstance(o, ast.Name)))
    want = INTS | {"bool"} if all(type(v) is int for v in values) else STRS if all(type(v) is str for v in values) \
        else frozenset()
    if not kx or not kx <= want:
        return None
    xn = ast.Name(id=x, ctx=ast.Load())
    mutant = ast.Compare(left=cmp.left, ops=[*cmp.ops[:i], type(b)(), *cmp.ops[i + 1:]], comparators=cmp.comparators)
    try:
        for v in values:
            if _evaluate(cmp, xn, v) is not _evaluate(mutant, xn, v):
                return None
    except _NoValue:
        return None
    return ("finite domain", f"{x} is one of {', '.join(map(repr, values))} here, and both comparisons agree on each "
                             f"({CLOSED})")


def _param_names(f) -> set[str]:
    a = f.args
    return {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}


def _truth(test, xn, v) -> bool | None:
    try:
        return bool(_evaluate(test, xn, v))
    except _NoValue:
        return None


def _domain(kinds: Kinds, scope, x: str, node: ast.AST) -> list | None:
    """The values ``x`` can have at ``node`` (the module doc of ``_finite_domain``), or None."""
    xn = ast.Name(id=x, ctx=ast.Load())
    chain = [node]
    while chain[-1] is not scope:
        p = kinds.parent.get(id(chain[-1]))
        if p is None:
            return None
        chain.append(p)
    top = chain[-2]
    values: list | None = None
    body: list[ast.stmt] = scope.body              # type: ignore[attr-defined]
    for s in body[:body.index(top)]:                # type: ignore[arg-type]
        if not (isinstance(s, ast.If) and not s.orelse and always_exits(s.body) and isinstance(s.test, ast.Compare)
                and len(s.test.ops) == 1 and isinstance(s.test.ops[0], ast.NotIn) and _same(s.test.left, xn)):
            continue
        lits = s.test.comparators[0]
        if isinstance(lits, (ast.Tuple, ast.List, ast.Set)) and \
                all(isinstance(e, ast.Constant) and type(e.value) in (int, str) for e in lits.elts):
            values = [e.value for e in lits.elts if isinstance(e, ast.Constant)]
    if values is None:
        return None

    def keep(test, want: bool) -> None:
        nonlocal values
        assert values is not None
        values = [v for v in values if _truth(test, xn, v) in (want, None)]
    for child, parent in zip(chain, chain[1:]):
        if isinstance(parent, ast.If) or isinstance(parent, ast.IfExp):
            if child in (parent.body if isinstance(parent.body, list) else [parent.body]):
                keep(parent.test, True)
            elif child in (parent.orelse if isinstance(parent.orelse, list) else [parent.orelse]):
                keep(parent.test, False)
        if isinstance(parent, ast.BoolOp) and child in parent.values:
            for v in parent.values[:parent.values.index(child)]:
                keep(v, isinstance(parent.op, ast.And))
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                for s in block[:block.index(child)]:
                    if isinstance(s, ast.If) and not s.orelse and always_exits(s.body):
                        keep(s.test, False)
    return values


# the names CPython 3.11's PyUnicode_Decode / PyUnicode_AsEncodedString match, once lowered with
# "-" and " " made "_" (``_Py_normalize_encoding``), and run in C: their errors name the codec itself
_C_CODECS = frozenset({"utf_8", "utf8", "latin_1", "latin1", "iso_8859_1", "iso8859_1", "ascii", "us_ascii",
                       "utf_16", "utf16", "utf_32", "utf32"})


def _c_codec(name: str) -> bool:
    norm = re.sub(r"[^a-z0-9.]+", "_", name.strip().lower()).strip("_")
    return norm in _C_CODECS


def _codec_case(a, b, path, closed: _Closed | None) -> tuple[str, str] | None:
    """A codec name's case changed in ``bytes.decode(NAME)`` / ``str.encode(NAME)`` on a receiver
    proved exact bytes / str (A2): codecs are looked up case-blind, the same codec runs, and its
    errors name the codec as it calls itself."""
    if not (isinstance(a, ast.Constant) and isinstance(b, ast.Constant) and isinstance(a.value, str)
            and isinstance(b.value, str)) or not path or not isinstance(path[-1], ast.Call) or closed is None:
        return None
    call = path[-1]
    where = call.args[:1] + [k.value for k in call.keywords if k.arg == "encoding"]
    if not any(x is a for x in where) or not isinstance(call.func, ast.Attribute) or \
            call.func.attr not in ("decode", "encode"):
        return None
    f = closed.m(call.func)
    owner = closed.kinds.kind(f.value) if isinstance(f, ast.Attribute) else None
    if owner is None or not (owner <= {"bytes"} if call.func.attr == "decode" else owner <= STRS):
        return None
    try:
        same = codecs.lookup(a.value).name == codecs.lookup(b.value).name
    except LookupError:
        return None
    # a codec written in Python has its errors wrapped naming it as the caller spelled it
    # ("encoding with 'IDNA' codec failed"); only the ones str.encode/bytes.decode run in C
    # (looked up by a normalized name) never see the spelling
    if not same or not (_c_codec(a.value) and _c_codec(b.value)):
        return None
    return ("codec name case", f"{a.value!r} and {b.value!r} name the same codec ({CLOSED})")
