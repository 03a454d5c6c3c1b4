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

What is out of scope for every rule (stated, not checked): a test that replaces the module's
functions or their ``__defaults__``, or that runs the module under another interpreter than
CPython. tests/corpus/test_screen.py generates mutants of many small functions and checks that
every screened one gives what the original gives on every input of a battery (never a killable
one screened).
"""
from __future__ import annotations

import ast
import functools
import re

from corpus.equivalence import _FRAME_ATTRS, _FRAME_NAMES, _bound_names, _const, _IntProof, _nodes
from corpus.pyparse import parse

RULES = ("small-int identity", "default argument", "guarded boundary", "fallback member")
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
    if operator == "identity":
        return _small_int_identity(a, b, path, ctx)
    if operator == "drop_argument":
        return _default_argument(a, b, ctx)
    if operator == "comparison":
        return _guarded_boundary(a, b, path, ctx)
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
    return tree, frozenset(_bound_names(tree))


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

def _default_argument(a, b, ctx: _Context) -> tuple[str, str] | None:
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
    if dropped is None or not isinstance(dropped, ast.Constant) or not isinstance(a.func, ast.Name):
        return None
    target = _defined_once(ctx.module, a.func.id)
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
    return ("default argument", f"{ast.unparse(dropped)} is {param}'s default in {a.func.id}()")


def _defined_once(module: ast.Module, name: str) -> tuple[ast.FunctionDef, int] | None:
    """(the function a call of ``name`` runs, parameters to skip: 1 for a class's self) when the
    module binds ``name`` exactly once, at top level, as a plain def or a plain class."""
    binds = [n for n in _nodes(module) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
             and n.name == name or isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
             or isinstance(n, ast.arg) and n.arg == name
             or isinstance(n, (ast.Import, ast.ImportFrom)) and name in {(x.asname or x.name).split(".")[0] for x in n.names}
             or isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names]
    if len(binds) != 1 or binds[0] not in module.body:
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
