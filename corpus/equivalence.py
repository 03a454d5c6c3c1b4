"""The cheap equivalence check for Python mutants: identical bytecode after the change.

Two sources are *bytecode-identical* when compiling both gives the same code objects, compared
recursively on everything that decides behaviour (the instruction stream with every argument
resolved: constants, names, jump targets; local and free variables, flags, argument counts,
exception tables; a function's docstring, which no instruction loads) and on nothing that does not (line numbers, column positions, the file name,
constants no instruction loads). The compiler folds constants and drops dead code (``if False:``
bodies, code after ``return``) and bare constant statements, so a mutant confined to those
places compiles to the same code and cannot change what any test observes: it is labelled
*equivalent* and counted apart (never judged, in neither rate).

The check compiles both texts; it never executes them, never opens a file and knows nothing of
any gate (tests/corpus/test_blindness.py holds it to the generators' rules, with ``compile``
allowed here and only here).
"""
from __future__ import annotations

import ast
import dis
import functools
import warnings
from collections import deque
from itertools import zip_longest
from types import CodeType

from corpus.pyparse import parse

# compared directly; the instructions and their constants are compared through the resolved
# instruction stream, so a constant left unreferenced by dead-code elimination, or a shifted
# constant index, is not a difference
_FIELDS = ("co_varnames", "co_freevars", "co_cellvars", "co_flags", "co_argcount",
           "co_posonlyargcount", "co_kwonlyargcount", "co_name", "co_qualname")


_CO_OPTIMIZED = 0x0001    # inspect.CO_OPTIMIZED: a function's (or lambda's, comprehension's) code


@functools.lru_cache(maxsize=1024)
def _compile(source: str) -> CodeType | None:
    try:
        with warnings.catch_warnings():     # '"is" with a literal' and the like: a mutant, not news
            warnings.simplefilter("ignore", SyntaxWarning)
            return compile(source, "<artifact>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return None


def _const(v):
    # type name + repr: keeps 1, 1.0, True and -0.0 / 0.0 apart (== would not)
    if isinstance(v, (tuple, frozenset)):
        items = [_const(x) for x in v]
        return (type(v).__name__, tuple(sorted(items, key=repr) if isinstance(v, frozenset) else items))
    return (type(v).__name__, repr(v))


def _docstring(co: CodeType):
    """A function's docstring: its first constant (None when it has none), which no instruction
    loads but ``f.__doc__`` and every doctest observe. Modules and classes store theirs with an
    instruction, compared with the rest."""
    if co.co_flags & _CO_OPTIMIZED and co.co_consts and isinstance(co.co_consts[0], str):
        return co.co_consts[0]
    return None


def _same(a: CodeType, b: CodeType) -> bool:
    if any(getattr(a, f) != getattr(b, f) for f in _FIELDS) or _docstring(a) != _docstring(b):
        return False
    if a.co_code == b.co_code and a.co_exceptiontable == b.co_exceptiontable and a.co_names == b.co_names and \
            len(a.co_consts) == len(b.co_consts) and all(
                _same(x, y) if isinstance(x, CodeType) and isinstance(y, CodeType) else _const(x) == _const(y)
                for x, y in zip(a.co_consts, b.co_consts)):
        return True
    if a.co_code[::2] != b.co_code[::2]:
        # the opcode bytes (inline caches included) differ: some offset holds another instruction
        # in each, or the streams differ in length, so the comparison below cannot succeed
        return False
    for x, y in zip_longest(dis.get_instructions(a), dis.get_instructions(b)):
        if x is None or y is None or x.opname != y.opname or x.offset != y.offset:
            return False
        if isinstance(x.argval, CodeType) or isinstance(y.argval, CodeType):
            if not (isinstance(x.argval, CodeType) and isinstance(y.argval, CodeType) and _same(x.argval, y.argval)):
                return False
        elif x.opname == "KW_NAMES":
            # 3.11 resolves KW_NAMES' argument to a bare index into co_consts, not to the keyword
            # names it loads: compare the names (issue 35: dict(a=1) -> dict(aXX=1) had compared equal)
            if x.arg is None or y.arg is None or _const(a.co_consts[x.arg]) != _const(b.co_consts[y.arg]):
                return False
        elif _const(x.argval) != _const(y.argval):
            return False
    return a.co_exceptiontable == b.co_exceptiontable


def identical_bytecode(original: str, mutant: str) -> bool:
    """True when both compile and their code objects match on everything behaviour depends on."""
    a, b = _compile(original), _compile(mutant)
    return a is not None and b is not None and _same(a, b)


def compiles(source: str) -> bool:
    return _compile(source) is not None


# ----------------------------------------------------------------------------- residues of ints
# ``E % c == 0`` -> ``E % c <= 0`` (and ``!= 0`` -> ``> 0``, and the mirrored ``0 == E % c`` ->
# ``0 >= E % c``) cannot change behaviour when E is a Python int and c a positive int literal:
# E % c is then in [0, c), never negative, never NaN, so "== 0" and "<= 0" agree on every value.
# E is proved an int only from forms whose result is an int or an exception raised the same way
# in both versions: int literals, + - * // % and unary - + ~ of ints, len/int/ord/abs of anything
# (abs of an int), sum of a generator or list of ints, a conditional expression of ints, and a
# local name every binding of which in its function is one of those (an assignment, an augmented
# assignment with + - * // %, a for target over range(...) or the index of enumerate(...)). A
# builtin name counts only when the module never binds it. Anything else: not proved, kept.

_INT_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
_INT_CALLS = ("len", "int", "ord")
_RESIDUE_PAIRS = {(ast.Eq, ast.LtE), (ast.NotEq, ast.Gt)}           # E % c  OP  0
_RESIDUE_PAIRS_MIRRORED = {(ast.Eq, ast.GtE), (ast.NotEq, ast.Lt)}  # 0  OP  E % c


def _nodes(tree: ast.AST):
    """Every node under ``tree``, breadth first (``ast.walk``'s order, written out here)."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        todo.extend(ast.iter_child_nodes(node))
        yield node


def bound_names(tree: ast.AST) -> set[str]:
    """Every name the module binds anywhere (any scope: an assignment or deletion target, a def, class, parameter,
    import, global or nonlocal name, an exception's or a match's capture, a walrus); a star import binds "*"."""
    out: set[str] = set()
    for n in _nodes(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchAs) and n.name or isinstance(n, ast.MatchStar) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
    return out


class _IntProof:
    """Is an expression provably a Python int inside ``func`` (see the block comment above)?"""

    def __init__(self, func: ast.AST, shadowed: set[str]):
        self.func, self.shadowed = func, shadowed
        self.params = {a.arg for a in _nodes(func.args) if isinstance(a, ast.arg)} if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            else set()
        self.visiting: set[str] = set()

    def builtin(self, name: str) -> bool:
        return name not in self.shadowed and "*" not in self.shadowed

    def expr(self, e: ast.AST) -> bool:
        if isinstance(e, ast.Constant):
            return type(e.value) in (int, bool)
        if isinstance(e, ast.BinOp):
            return isinstance(e.op, _INT_BINOPS) and self.expr(e.left) and self.expr(e.right)
        if isinstance(e, ast.UnaryOp):
            return isinstance(e.op, (ast.USub, ast.UAdd, ast.Invert)) and self.expr(e.operand)
        if isinstance(e, ast.IfExp):
            return self.expr(e.body) and self.expr(e.orelse)
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and not e.keywords and self.builtin(e.func.id):
            return self.call(e)
        if isinstance(e, ast.Name):
            return self.name(e.id)
        return False

    def call(self, e: ast.Call) -> bool:
        name, args = e.func.id, e.args      # type: ignore[attr-defined]
        if any(isinstance(a, ast.Starred) for a in args):
            return False
        if name in _INT_CALLS:
            return len(args) == 1 or (name == "int" and len(args) == 2)
        if name == "abs":
            return len(args) == 1 and self.expr(args[0])
        if name == "sum" and len(args) in (1, 2) and (len(args) == 1 or self.expr(args[1])):
            it = args[0]
            return isinstance(it, (ast.GeneratorExp, ast.ListComp)) and self._comp_elt(it)
        return False

    def _comp_elt(self, comp) -> bool:
        inner = _IntProof(comp, self.shadowed)
        inner.outer = self                  # type: ignore[attr-defined]
        return inner.expr(comp.elt)

    def name(self, name: str) -> bool:
        if name in self.params or name in self.visiting:
            return False
        binds = list(self._bindings(name))
        if not binds or any(b is None for b in binds):
            outer = getattr(self, "outer", None)
            return not binds and outer is not None and outer.name(name)
        self.visiting.add(name)
        try:
            return all(self.expr(v) for v in binds)
        finally:
            self.visiting.discard(name)

    def _bindings(self, name: str):
        """The value of each binding of ``name`` in this scope (None = one that proves nothing)."""
        scope = self.func
        nodes = [scope] if isinstance(scope, (ast.GeneratorExp, ast.ListComp)) else list(_nodes(scope))
        if isinstance(scope, (ast.GeneratorExp, ast.ListComp)):
            for gen in scope.generators:
                yield from self._target(gen.target, gen.iter, name)
            return
        for n in nodes:
            if n is not scope and isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                if _binds_in(n, name):
                    yield None
            elif isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
                yield None
            elif isinstance(n, ast.Assign) and any(_mentions(t, name) for t in n.targets):
                ok = len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                yield n.value if ok else None
            elif isinstance(n, ast.AugAssign) and _mentions(n.target, name):
                yield n.value if isinstance(n.target, ast.Name) and isinstance(n.op, _INT_BINOPS) else None
            elif isinstance(n, (ast.For, ast.AsyncFor)) and _mentions(n.target, name):
                yield from self._target(n.target, n.iter, name) if isinstance(n, ast.For) else [None]
            elif isinstance(n, (ast.AnnAssign, ast.NamedExpr, ast.withitem, ast.ExceptHandler, ast.Delete,
                                ast.comprehension, ast.Import, ast.ImportFrom, ast.MatchAs)) and _binds_in(n, name):
                yield None

    def _target(self, target, it, name: str):
        """A for target over range(...) is an int; so is the index of enumerate(x) (no start)."""
        fname = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
            self.builtin(it.func.id) and not it.keywords else None
        if isinstance(target, ast.Name) and target.id == name:
            yield ast.Constant(0) if fname == "range" else None
        elif isinstance(target, ast.Tuple) and len(target.elts) == 2 and fname == "enumerate" and \
                isinstance(target.elts[0], ast.Name) and target.elts[0].id == name and \
                not _mentions(target.elts[1], name) and len(it.args) == 1:
            yield ast.Constant(0)
        elif _mentions(target, name):
            yield None


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in _nodes(node))


def _binds_in(node: ast.AST, name: str) -> bool:
    return name in bound_names(node)


def _residue_compare(a: ast.Compare, b: ast.Compare) -> ast.AST | None:
    """The E of ``E % c OP 0`` when a -> b is one of the residue pairs, else None."""
    if len(a.ops) != 1 or len(b.ops) != 1 or ast.dump(a.left) != ast.dump(b.left) or \
            ast.dump(a.comparators[0]) != ast.dump(b.comparators[0]):
        return None
    pair = (type(a.ops[0]), type(b.ops[0]))
    zero = lambda e: isinstance(e, ast.Constant) and type(e.value) is int and e.value == 0  # noqa: E731
    mod = lambda e: isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod) and isinstance(e.right, ast.Constant) \
        and type(e.right.value) is int and e.right.value > 0  # noqa: E731
    if pair in _RESIDUE_PAIRS and mod(a.left) and zero(a.comparators[0]):
        return a.left.left          # type: ignore[attr-defined]
    if pair in _RESIDUE_PAIRS_MIRRORED and zero(a.left) and mod(a.comparators[0]):
        return a.comparators[0].left    # type: ignore[attr-defined]
    return None


def residue_equivalent(module: str, original: str, mutant: str) -> bool:
    """True when ``mutant`` differs from ``original`` (one top-level statement of ``module``) only
    in one comparison ``E % c == 0`` -> ``<= 0`` (or a pair above) with E provably an int."""
    try:
        tree, ta, tb = parse(module), parse(original), parse(mutant)
    except (SyntaxError, ValueError):
        return False
    na, nb = list(_nodes(ta)), list(_nodes(tb))
    if len(na) != len(nb):
        return False
    diffs = [(x, y) for x, y in zip(na, nb) if not isinstance(x, ast.cmpop) and type(x) is not type(y) or
             (isinstance(x, ast.Compare) and isinstance(y, ast.Compare) and
              [type(o) for o in x.ops] != [type(o) for o in y.ops])]
    if len(diffs) != 1 or not isinstance(diffs[0][0], ast.Compare) or not isinstance(diffs[0][1], ast.Compare):
        return False
    a, b = diffs[0][0], diffs[0][1]
    e = _residue_compare(a, b)
    ops = a.ops
    a.ops = b.ops                   # the operator was the only difference: the trees now match
    same = ast.dump(ta) == ast.dump(tb)
    a.ops = ops
    if not same:
        return False
    if e is None:
        return False
    func = next((f for f in na if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and
                 any(n is a for n in _nodes(f)) and not any(
                     isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and g is not f and
                     any(n is a for n in _nodes(g)) for g in _nodes(f))), None)
    return func is not None and _IntProof(func, bound_names(tree)).expr(e)


# ----------------------------------------------------------------------- negated accumulators
# ``t += E`` -> ``t -= E`` (or back) cannot change behaviour when, in the one function holding it,
# t is a local bound only by ``t = 0`` statements and that one augmented assignment, E is proved an
# int (``_IntProof``) and does not mention t, and t is read only as ``t % c == 0`` / ``t % c != 0``
# (c a positive int literal; or mirrored, ``0 == t % c``). By induction over any run: both versions
# take the same path with the same values everywhere, except that the mutant's t is the negation of
# the original's (0 = -0, and -(t + E) = -t - E for ints); every read of t agrees, since for an int
# x, x % c == 0 exactly when -x % c == 0. Anything else that could see t keeps the mutant: a
# parameter named t, ``global``/``nonlocal`` t, another binding (a second ``+=``, ``t = 1``, a for
# target, ``del``), a nested function, lambda or class mentioning t, any other read (``return t``,
# ``t % 11 == 1``), and a function that mentions ``locals``, ``vars``, ``eval``, ``exec``,
# ``globals``, ``breakpoint`` or frame objects.

_FRAME_NAMES = {"locals", "vars", "eval", "exec", "globals", "breakpoint"}
_FRAME_ATTRS = {"f_locals", "_getframe", "f_back", "currentframe"}


def _changed_augassign(ta: ast.AST, tb: ast.AST) -> tuple[ast.AugAssign, list[ast.AST]] | None:
    """The one AugAssign whose operator alone differs (Add <-> Sub) between the two trees, with
    the original's node list; None when anything else differs."""
    na, nb = list(_nodes(ta)), list(_nodes(tb))
    if len(na) != len(nb):
        return None
    diffs = [(x, y) for x, y in zip(na, nb) if type(x) is not type(y)]
    if len(diffs) != 1 or {type(diffs[0][0]), type(diffs[0][1])} != {ast.Add, ast.Sub}:
        return None
    aug = next((n for n in na if isinstance(n, ast.AugAssign) and n.op is diffs[0][0]), None)
    if aug is None or not isinstance(aug.target, ast.Name):
        return None
    saved = aug.op
    aug.op = diffs[0][1]            # the operator was the only difference: the trees now match
    same = ast.dump(ta) == ast.dump(tb)
    aug.op = saved
    return (aug, na) if same else None


def _residue_zero_read(name: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """``name`` is read only as ``name % c == 0`` or ``!= 0`` (c > 0 an int literal), or mirrored."""
    mod = parents.get(id(name))
    if not (isinstance(mod, ast.BinOp) and isinstance(mod.op, ast.Mod) and mod.left is name and
            isinstance(mod.right, ast.Constant) and type(mod.right.value) is int and mod.right.value > 0):
        return False
    cmp = parents.get(id(mod))
    if not isinstance(cmp, ast.Compare) or len(cmp.ops) != 1 or not isinstance(cmp.ops[0], (ast.Eq, ast.NotEq)):
        return False
    other = cmp.comparators[0] if cmp.left is mod else cmp.left if cmp.comparators[0] is mod else None
    return isinstance(other, ast.Constant) and type(other.value) is int and other.value == 0


def _only_zero_or(aug: ast.AugAssign, func: ast.AST, t: str, parents: dict[int, ast.AST]) -> bool:
    """Every binding of ``t`` in ``func`` is ``aug`` or a plain ``t = 0``; nothing else names it
    in a way that could bind or see it (see the block comment above)."""
    for n in _nodes(func):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) and n is not func:
            if _mentions(n, t) or _binds_in(n, t):
                return False
        elif isinstance(n, (ast.Global, ast.Nonlocal)) and t in n.names or isinstance(n, ast.arg) and n.arg == t:
            return False
        elif isinstance(n, ast.Name) and n.id in _FRAME_NAMES or isinstance(n, ast.Attribute) and n.attr in _FRAME_ATTRS:
            return False
        elif isinstance(n, (ast.Import, ast.ImportFrom, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and \
                t in _own_names(n):
            return False
        elif isinstance(n, ast.Name) and n.id == t and not isinstance(n.ctx, ast.Load):
            p = parents.get(id(n))
            if p is aug:
                continue
            zero = isinstance(p, ast.Assign) and len(p.targets) == 1 and p.targets[0] is n and \
                isinstance(p.value, ast.Constant) and type(p.value.value) is int and p.value.value == 0
            if not zero:
                return False    # del, a for/with target, a walrus, a tuple target, t = anything else
    return True


def _own_names(n: ast.AST) -> set[str]:
    """The names an import, an except clause or a match capture binds itself."""
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in n.names}
    name = getattr(n, "name", None)
    return {name} if isinstance(name, str) else set()


def accumulator_equivalent(module: str, original: str, mutant: str) -> bool:
    """True when ``mutant`` differs from ``original`` (one unit of ``module``) only in one
    ``t += E`` <-> ``t -= E`` on an int accumulator read only by its residue's zero test (the
    block comment above: ``total += w * d`` -> ``-=`` before ``return total % 11 == 0``)."""
    try:
        tree, ta, tb = parse(module), parse(original), parse(mutant)
    except (SyntaxError, ValueError):
        return False
    found = _changed_augassign(ta, tb)
    if found is None:
        return False
    aug, na = found
    assert isinstance(aug.target, ast.Name)       # _changed_augassign returns only these
    t = aug.target.id
    funcs = [f for f in na if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and
             any(n is aug for n in _nodes(f))]
    if not funcs:
        return False
    func = funcs[-1]            # breadth first: the last one holding it is the innermost
    if any(isinstance(g, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and g is not func and
           any(n is aug for n in _nodes(g)) for g in _nodes(func)):
        return False
    parents = {id(c): p for p in _nodes(func) for c in ast.iter_child_nodes(p)}
    if _mentions(aug.value, t) or not _only_zero_or(aug, func, t, parents):
        return False
    reads = [n for n in _nodes(func) if isinstance(n, ast.Name) and n.id == t and isinstance(n.ctx, ast.Load)]
    if not all(_residue_zero_read(n, parents) for n in reads):
        return False
    return _IntProof(func, bound_names(tree)).expr(aug.value)
