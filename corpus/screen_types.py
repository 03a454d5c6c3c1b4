"""What kind of value an expression of a module holds, read under the closed-world assumptions of
corpus/screen.py's type-aware rules (issue 35, item 3).

A *kind* is a frozenset of tags, or None when nothing is proved:

- ``int`` an exact int, ``nat`` an exact int >= 0 (also an exact int), ``bool``, ``float``;
- ``str`` an exact str, ``istr`` a str literal CPython interns (an exact str that is the very
  object of every equal literal), ``bytes``, ``None``;
- ``inst:C`` an instance of the module's class C, ``cls:C`` the class C itself.

The assumptions (stated in corpus/screen.py's doc and in every screened mutant's note):

- **A2, exact values**: a value of a builtin type that reaches the module is of that exact type
  (a test hands in no int or str subclass that overrides a comparison); ``isinstance(v, int)``
  then proves an exact int;
- **A3, closed classes**: ``self`` in a method of C is a C (a test does not subclass the module's
  classes to override a method; ``type(self)`` is C);
- **A4, private names**: a name with a leading underscore (a helper, a table, an attribute such as
  ``self._patch``) is used by the module only: a test does not call ``_MATCH["=="](0.0)`` or set
  ``v._patch = -1``;
- and the module's own: CPython 3.11, a test does not replace the module's names.

What is proved from the code: literals, arithmetic of ints, comparisons (bool: every comparison
dunder of the module returns a comparison or NotImplemented), ``len``/``int``/``isinstance``,
calls of the module's functions and methods (the kinds of what they return), properties and
private attributes (the kinds of every value assigned to them), a parameter checked by an
exiting ``if not isinstance(p, int) or isinstance(p, bool): raise`` (also inside a loop over a
literal of parameters; ``if p < 0: raise`` adds ``nat``) or by an enclosing ``if isinstance(p,
bytes):``, the parameter of a function in a private table (``_T = {"k": lambda c: ...}`` called
only as ``_T[k](arg)``), locals bound only to proved values.
"""
from __future__ import annotations

import ast

Kind = frozenset[str] | None

INTS = frozenset({"int", "nat"})
STRS = frozenset({"str", "istr"})
_BUILTIN_TAGS = frozenset({"int", "nat", "bool", "float", "str", "istr", "bytes", "None"})
_CMP_DUNDERS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")
_STR_TO_STR = frozenset({"strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title", "capitalize",
                         "swapcase", "replace", "join", "format", "center", "ljust", "rjust", "zfill",
                         "removeprefix", "removesuffix", "expandtabs"})
_STR_TO_BOOL = frozenset({"isdigit", "isdecimal", "isnumeric", "isalpha", "isalnum", "isspace", "islower",
                          "isupper", "istitle", "isidentifier", "isascii", "isprintable", "startswith", "endswith"})
_STR_TO_INT = frozenset({"find", "rfind", "index", "rindex", "count"})
_NAT_OPS = (ast.Add, ast.Mult)
_INT_OPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift, ast.RShift)
_BIT_OPS = (ast.BitAnd, ast.BitOr, ast.BitXor)
_EXITS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_BUILTIN_TYPES = {"int": "int", "str": "str", "bytes": "bytes", "bool": "bool", "float": "float"}


def _copied(k: Kind) -> Kind:
    """The kind of a value an instance keeps: an instance may be rebuilt without running the
    module's code (``pickle.loads`` makes a new str equal to the interned literal, not the
    literal itself), so an attribute's str is exact but never ``istr``."""
    return k if not k or "istr" not in k else (k - {"istr"}) | {"str"}


def interned(text: str) -> bool:
    """Does CPython intern this str literal (every character a name character; the empty string
    and one latin-1 character are single objects too)?"""
    return all(c.isascii() and (c.isalnum() or c == "_") for c in text) or len(text) == 1 and ord(text) < 256


def literal_kind(value) -> Kind:
    if type(value) is bool:
        return frozenset({"bool"})
    if type(value) is int:
        return frozenset({"nat"}) if value >= 0 else frozenset({"int"})
    if type(value) is str:
        return frozenset({"istr"}) if interned(value) else frozenset({"str"})
    if value is None:
        return frozenset({"None"})
    if type(value) is bytes:
        return frozenset({"bytes"})
    if type(value) is float:
        return frozenset({"float"})
    return None


def _union(kinds) -> Kind:
    out: set[str] = set()
    for k in kinds:
        if k is None:
            return None
        out |= k
    return frozenset(out)


def _stores(node: ast.AST, name: str) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name:
            return True
        if isinstance(n, ast.arg) and n.arg == name:
            return True
        if isinstance(n, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name).split(".")[0] == name
                                                               for a in n.names):
            return True
    return False


def always_exits(body: list[ast.stmt]) -> bool:
    """Does running ``body`` always leave it by return, raise, continue or break?"""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, _EXITS):
        return True
    return isinstance(last, ast.If) and always_exits(last.body) and always_exits(last.orelse)


class Kinds:
    """The kinds of a module's expressions (the module doc); built once per module text."""

    def __init__(self, module: ast.Module):
        self.module = module
        self.parent: dict[int, ast.AST] = {}
        for n in ast.walk(module):
            for c in ast.iter_child_nodes(n):
                self.parent[id(c)] = n
        self.top: dict[str, list[ast.stmt]] = {}
        for s in module.body:
            for name in _top_names(s):
                self.top.setdefault(name, []).append(s)
        self._stored_anywhere = {n.id for n in ast.walk(module) if isinstance(n, ast.Name)
                                 and not isinstance(n.ctx, ast.Load)}
        self._visiting: set[tuple] = set()
        self.dynamic = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                           n.func.id in ("setattr", "globals", "vars", "exec", "eval", "__import__")
                           or isinstance(n, ast.Attribute) and n.attr == "__dict__" for n in ast.walk(module))
        self._cmp_bool: bool | None = None

    # ------------------------------------------------------------------ where a node is

    def scope_of(self, node: ast.AST) -> ast.AST | None:
        """The innermost def or lambda holding ``node`` (None: module level)."""
        p = self.parent.get(id(node))
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            p = self.parent.get(id(p))
        return p

    def class_of(self, func: ast.AST) -> ast.ClassDef | None:
        """The top-level class whose body holds ``func`` directly (a method), else None."""
        p = self.parent.get(id(func))
        if isinstance(p, ast.ClassDef) and p in self.module.body and self.once(p.name) is p:
            return p
        return None

    def once(self, name: str) -> ast.stmt | None:
        """The top-level statement binding ``name``, when it is the module's only binding of it
        (no other assignment, import, def, global anywhere)."""
        found = self.top.get(name, [])
        if len(found) != 1:
            return None
        s = found[0]
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if name in self._stored_anywhere or sum(_binds(n, name) for n in ast.walk(self.module)) != 1:
                return None
            return s
        if sum(_binds(n, name) for n in ast.walk(self.module)) != 1:
            return None
        return s

    # ------------------------------------------------------------------ kinds

    def kind(self, e: ast.AST) -> Kind:
        key = ("e", id(e))
        if key in self._visiting:
            return frozenset()          # a cycle adds nothing new (the least fixed point)
        outer = not self._visiting
        self._visiting.add(key)
        try:
            k = self._kind(e)
            return (k or None) if outer else k     # nothing proved at all is not "every kind"
        finally:
            self._visiting.discard(key)

    def _kind(self, e: ast.AST) -> Kind:
        if isinstance(e, ast.Constant):
            return literal_kind(e.value)
        if isinstance(e, ast.JoinedStr):
            return frozenset({"str"})
        if isinstance(e, ast.Compare):
            return frozenset({"bool"}) if self.comparisons_bool() else None
        if isinstance(e, ast.BoolOp):
            return _union(self.kind(v) for v in e.values)
        if isinstance(e, ast.IfExp):
            return _union([self.kind(e.body), self.kind(e.orelse)])
        if isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.Not):
                return frozenset({"bool"})
            k = self.kind(e.operand)
            if not k:
                return k
            if k <= INTS | {"bool"}:
                return frozenset({"nat"}) if isinstance(e.op, ast.UAdd) and k <= {"nat"} else frozenset({"int"})
            return None
        if isinstance(e, ast.BinOp):
            return self._binop(e)
        if isinstance(e, ast.Name):
            return self.name(e)
        if isinstance(e, ast.Attribute):
            return self.attribute(e)
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, ast.Subscript):
            k = self.kind(e.value)
            if not k:
                return k
            if k <= STRS:
                return frozenset({"str"})
            if k <= {"bytes"}:
                return frozenset({"bytes"}) if isinstance(e.slice, ast.Slice) else frozenset({"nat"})
        return None

    def _binop(self, e: ast.BinOp) -> Kind:
        a, b = self.kind(e.left), self.kind(e.right)
        if a is None or b is None:
            return None
        if not a or not b:
            return frozenset()          # a cycle's nothing-yet
        if a <= INTS | {"bool"} and b <= INTS | {"bool"}:
            if isinstance(e.op, _BIT_OPS):
                return frozenset({"bool"}) if a <= {"bool"} and b <= {"bool"} else None
            if isinstance(e.op, _NAT_OPS) and a <= {"nat", "bool"} and b <= {"nat", "bool"}:
                return frozenset({"nat"})
            return frozenset({"int"}) if isinstance(e.op, _INT_OPS) else None
        if isinstance(e.op, ast.Add) and a <= STRS and b <= STRS:
            return frozenset({"str"})
        if isinstance(e.op, ast.Mod) and a <= STRS:
            return frozenset({"str"})
        return None

    def comparisons_bool(self) -> bool:
        """Does every comparison dunder of the module's classes return a bool (a comparison, a
        bool, ``not``, or NotImplemented, which Python turns into the other side's answer)?"""
        if self._cmp_bool is None:
            self._cmp_bool = True          # while checking: a comparison inside a dunder is a bool
            ok = True
            for c in (n for n in ast.walk(self.module) if isinstance(n, ast.ClassDef)):
                for f in c.body:
                    if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name in _CMP_DUNDERS:
                        for r in _returns(f):
                            if r.value is None:
                                ok = False
                            elif not (isinstance(r.value, ast.Name) and r.value.id == "NotImplemented"):
                                k = self.kind(r.value)
                                ok = ok and k is not None and k <= {"bool"}
            self._cmp_bool = ok
        return self._cmp_bool

    def name(self, e: ast.Name) -> Kind:
        scope = self.scope_of(e)
        name = e.id
        while scope is not None:
            params = _params(scope)
            if name in params:
                return self.param(scope, name, e)
            if _binds_locally(scope, name):
                return self.local(scope, name)
            scope = self.scope_of(scope)
        s = self.once(name)
        if s is None:
            return None
        if isinstance(s, ast.ClassDef):
            return frozenset({f"cls:{s.name}"})
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            return self.kind(s.value)
        return None

    def local(self, scope: ast.AST, name: str) -> Kind:
        """A local bound only by plain assignments: the union of what they bind (a binding that
        reads the name itself adds nothing new: the least fixed point)."""
        key = ("l", id(scope), name)
        if key in self._visiting:
            return frozenset()
        self._visiting.add(key)
        try:
            return self._local(scope, name) or None
        finally:
            self._visiting.discard(key)

    def _local(self, scope: ast.AST, name: str) -> Kind:
        values = []
        plain: set[int] = set()          # the Name targets of the assignments read here
        nodes = list(_own_nodes(scope))
        for n in nodes:
            if isinstance(n, ast.Assign) and any(_stores(t, name) for t in n.targets):
                if len(n.targets) != 1:
                    return None
                t = n.targets[0]
                if isinstance(t, ast.Name):
                    values.append(n.value)
                    plain.add(id(t))
                elif isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts) \
                        and all(isinstance(x, ast.Name) for x in t.elts):
                    for x, v in zip(t.elts, n.value.elts):
                        if x.id == name:            # type: ignore[attr-defined]
                            values.append(v)
                            plain.add(id(x))
                else:
                    return None
        if any(_binds(n, name) and id(n) not in plain for n in nodes):
            return None
        return _union(self.kind(v) for v in values) if values else None

    def param(self, scope: ast.AST, name: str, at: ast.AST) -> Kind:
        """A parameter: ``self``/``cls`` of a method (A3), a parameter narrowed by a check, the
        parameter of a function in a private table (A4)."""
        cls = self.class_of(scope) if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if cls is not None:
            first = [*scope.args.posonlyargs, *scope.args.args]        # type: ignore[attr-defined]
            decos = {ast.unparse(d) for d in scope.decorator_list}     # type: ignore[attr-defined]
            if first and first[0].arg == name and "staticmethod" not in decos and not _stores_body(scope, name):
                return frozenset({f"cls:{cls.name}" if "classmethod" in decos else f"inst:{cls.name}"})
        narrowed = self._narrowed(scope, name, at)
        if narrowed is not None:
            return narrowed
        if isinstance(scope, ast.Lambda):
            return self._table_param(scope, name)
        return None

    def _narrowed(self, scope: ast.AST, name: str, at: ast.AST) -> Kind:
        # an enclosing ``if isinstance(name, T):`` with ``at`` in its body, no store of name before
        node, p = at, self.parent.get(id(at))
        while p is not None and p is not scope:
            if isinstance(p, ast.If) and node in p.body:
                t = _isinstance_of(p.test, name)
                idx = p.body.index(node)
                if t is not None and not any(_stores(s, name) for s in p.body[:idx]):
                    return frozenset({t}) if t != "int" else frozenset({"int", "bool"})
            node, p = p, self.parent.get(id(p))
        if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or _stores_body(scope, name):
            return None
        # an exiting check before the statement holding ``at``, at the top of the body
        top = at
        while self.parent.get(id(top)) is not scope:
            top = self.parent.get(id(top))          # type: ignore[assignment]
            if top is None:
                return None
        if top not in scope.body:
            return None
        facts: set[str] = set()
        for s in scope.body[:scope.body.index(top)]:
            facts |= _checks(s, name, scope)
        if "int" in facts and "notbool" in facts:
            return frozenset({"nat"}) if "nonneg" in facts else frozenset({"int"})
        for t in ("str", "bytes"):
            if t in facts:
                return frozenset({t})
        return None

    def _table_param(self, lam: ast.Lambda, name: str) -> Kind:
        """A lambda's parameter, when the lambda is a value of a private table bound once at top
        level and every use of the table is a call of one of its entries (A4)."""
        d = self.parent.get(id(lam))
        s = self.parent.get(id(d)) if isinstance(d, ast.Dict) and lam in d.values else None
        if not (isinstance(s, ast.Assign) and s in self.module.body and len(s.targets) == 1 and
                isinstance(s.targets[0], ast.Name) and s.targets[0].id.startswith("_") and s.value is d):
            return None
        table = s.targets[0].id
        if self.once(table) is not s or lam.args.vararg or lam.args.kwarg or lam.args.kwonlyargs:
            return None
        pos = [a.arg for a in [*lam.args.posonlyargs, *lam.args.args]]
        at = pos.index(name)
        kinds = []
        for n in ast.walk(self.module):
            if isinstance(n, ast.Name) and n.id == table and isinstance(n.ctx, ast.Load):
                sub = self.parent.get(id(n))
                call = self.parent.get(id(sub))
                if not (isinstance(sub, ast.Subscript) and sub.value is n and isinstance(call, ast.Call) and
                        call.func is sub and not call.keywords and len(call.args) == len(pos) and
                        not any(isinstance(a, ast.Starred) for a in call.args)):
                    return None
                kinds.append(self.kind(call.args[at]))
        return _union(kinds) if kinds else None

    def attribute(self, e: ast.Attribute) -> Kind:
        owner = self.kind(e.value)
        if not owner or len(owner) != 1:
            return owner if not owner else None
        tag = next(iter(owner))
        if not tag.startswith("inst:"):
            return None
        cls = self.once(tag[5:])
        if not isinstance(cls, ast.ClassDef):
            return None
        members = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and f.name == e.attr]
        if members:
            if len(members) == 1 and [ast.unparse(d) for d in members[0].decorator_list] == ["property"]:
                return self.returns(members[0])
            return None
        if not e.attr.startswith("_") or self.dynamic or not _plain(cls):
            return None                 # a base class's code may set it too
        values = []
        for n in ast.walk(self.module):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target] \
                if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
            for t in targets:
                for x in ast.walk(t):
                    if isinstance(x, ast.Attribute) and x.attr == e.attr and not isinstance(x.ctx, ast.Load):
                        func = self.scope_of(x)
                        if not (isinstance(n, ast.Assign) and t is x and isinstance(x.value, ast.Name) and
                                func is not None and self.class_of(func) is cls and
                                self.param(func, x.value.id, x) == frozenset({f"inst:{cls.name}"})):
                            return None
                        values.append(n.value)
        return _copied(_union(self.kind(v) for v in values)) if values else None

    def call(self, e: ast.Call) -> Kind:
        f = e.func
        if isinstance(f, ast.Name):
            s = self.once(f.id)
            if s is None and f.id not in self.top and not self._local_name(e, f.id):
                return _builtin_call(f.id, e, self)
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and not s.decorator_list:
                return self.returns(s)
            if isinstance(s, ast.ClassDef):
                return frozenset({f"inst:{s.name}"})
            nested = self._nested_def(e, f.id)
            if nested is not None:
                return self.returns(nested)
            k = self.kind(f)
            if k is not None and len(k) == 1 and next(iter(k)).startswith("cls:"):
                return frozenset({"inst:" + next(iter(k))[4:]})
            return None
        if isinstance(f, ast.Call) and isinstance(f.func, ast.Name) and f.func.id == "type" and \
                f.func.id not in self.top and len(f.args) == 1 and not f.keywords:
            k = self.kind(f.args[0])
            if k is not None and len(k) == 1 and next(iter(k)).startswith("inst:"):
                return k
            return None
        if isinstance(f, ast.Attribute):
            owner = self.kind(f.value)
            if not owner:
                return owner            # None, or a cycle's nothing-yet (the least fixed point)
            if len(owner) == 1 and next(iter(owner)).split(":")[0] in ("inst", "cls"):
                m = self.method(next(iter(owner)).split(":", 1)[1], f.attr)
                return self.returns(m) if m is not None else None
            if owner <= STRS:
                return frozenset({"str"}) if f.attr in _STR_TO_STR else frozenset({"bool"}) \
                    if f.attr in _STR_TO_BOOL else frozenset({"int"}) if f.attr in _STR_TO_INT else \
                    frozenset({"bytes"}) if f.attr == "encode" else None
            if owner <= {"bytes"} and f.attr == "decode":
                return frozenset({"str"})
        return None

    def method(self, cls_name: str, name: str) -> ast.FunctionDef | None:
        cls = self.once(cls_name)
        if not isinstance(cls, ast.ClassDef):
            return None
        found = [f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name]
        if len(found) != 1 or any(ast.unparse(d) not in ("staticmethod", "classmethod") for d in found[0].decorator_list):
            return None
        return found[0]

    def _local_name(self, at: ast.AST, name: str) -> bool:
        scope = self.scope_of(at)
        while scope is not None:
            if name in _params(scope) or _binds_locally(scope, name):
                return True
            scope = self.scope_of(scope)
        return False

    def _nested_def(self, at: ast.AST, name: str) -> ast.FunctionDef | None:
        scope = self.scope_of(at)
        while scope is not None:
            defs = [n for n in _own_nodes(scope) if _binds(n, name)]
            if defs:
                return defs[0] if len(defs) == 1 and isinstance(defs[0], ast.FunctionDef) and \
                    not defs[0].decorator_list else None
            scope = self.scope_of(scope)
        return None

    def returns(self, func: ast.AST) -> Kind:
        """The kind of what calling ``func`` returns (None when it may yield)."""
        key = ("r", id(func))
        if key in self._visiting:
            return frozenset()          # a recursive call returns what the other returns do
        self._visiting.add(key)
        try:
            if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _own_nodes(func)):
                return None
            rets = _returns(func)
            kinds = [frozenset({"None"}) if r.value is None else self.kind(r.value) for r in rets]
            if not always_exits(func.body):       # type: ignore[attr-defined]
                kinds.append(frozenset({"None"}))
            return _union(kinds) or None
        finally:
            self._visiting.discard(key)


def _builtin_call(name: str, e: ast.Call, kinds: Kinds) -> Kind:
    if name == "len":
        return frozenset({"nat"})
    if name in ("int", "hash", "ord"):
        return frozenset({"nat"}) if name == "ord" else frozenset({"int"})
    if name == "abs" and len(e.args) == 1:
        k = kinds.kind(e.args[0])
        return k if not k else frozenset({"nat"}) if k <= INTS | {"bool"} else None
    if name in ("isinstance", "issubclass", "callable", "hasattr", "bool"):
        return frozenset({"bool"})
    if name in ("str", "repr", "format", "chr", "ascii"):
        return frozenset({"str"})
    return None


def _top_names(s: ast.stmt) -> set[str]:
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {s.name}
    out = set()
    for n in ast.walk(s):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


def _binds(n: ast.AST, name: str) -> bool:
    if isinstance(n, ast.Name):
        return n.id == name and not isinstance(n.ctx, ast.Load)
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return n.name == name
    if isinstance(n, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name).split(".")[0] == name for a in n.names)
    if isinstance(n, (ast.Global, ast.Nonlocal)):
        return name in n.names
    if isinstance(n, ast.arg):
        return n.arg == name
    if isinstance(n, ast.ExceptHandler):
        return n.name == name
    if isinstance(n, (ast.MatchAs, ast.MatchStar)):
        return n.name == name
    return False


def _params(scope: ast.AST) -> set[str]:
    a = scope.args          # type: ignore[attr-defined]
    out = {x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]}
    out.update(x.arg for x in (a.vararg, a.kwarg) if x is not None)
    return out


def _own_nodes(scope: ast.AST):
    """The nodes of ``scope``'s body, not descending into nested defs, lambdas or classes (their
    own node is yielded: its name binds here)."""
    todo = list(scope.body) if isinstance(scope.body, list) else [scope.body]   # type: ignore[attr-defined]
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(n.decorator_list)
            continue
        if isinstance(n, ast.Lambda):
            continue
        todo.extend(ast.iter_child_nodes(n))


def _binds_locally(scope: ast.AST, name: str) -> bool:
    return any(_binds(n, name) for n in _own_nodes(scope))


def _stores_body(scope: ast.AST, name: str) -> bool:
    return any(_binds(n, name) for n in _own_nodes(scope) if not isinstance(n, ast.arg))


def _returns(func: ast.AST) -> list[ast.Return]:
    if isinstance(func, ast.Lambda):
        return [ast.Return(value=func.body)]
    return [n for n in _own_nodes(func) if isinstance(n, ast.Return)]


def _isinstance_of(test: ast.AST, name: str) -> str | None:
    """``isinstance(name, T)`` with T a builtin type's name: its tag."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and \
            len(test.args) == 2 and isinstance(test.args[0], ast.Name) and test.args[0].id == name and \
            isinstance(test.args[1], ast.Name) and test.args[1].id in _BUILTIN_TYPES:
        return _BUILTIN_TYPES[test.args[1].id]
    return None


def _checks(s: ast.stmt, name: str, scope: ast.AST) -> set[str]:
    """What an exiting check at the top of a body proves about parameter ``name``: ``int``,
    ``notbool``, ``nonneg``, ``str``, ``bytes``. A check over a loop variable counts for every
    parameter the loop's literal lists (``for n, v in {"a": a, "b": b}.items():``)."""
    if isinstance(s, ast.If) and not s.orelse and isinstance(s.body[-1], ast.Raise):
        return _check_test(s.test, name)
    if isinstance(s, ast.For) and not s.orelse:
        var = _loop_var(s, name, scope)
        if var is None:
            return set()
        out: set[str] = set()
        for t in s.body:
            if isinstance(t, ast.If) and not t.orelse and isinstance(t.body[-1], ast.Raise):
                out |= _check_test(t.test, var)
            elif _stores(t, var) or isinstance(t, (ast.Break, ast.Continue)) or \
                    any(isinstance(x, (ast.Break, ast.Continue)) for x in ast.walk(t)):
                return set()
        return out
    return set()


def _loop_var(s: ast.For, name: str, scope: ast.AST) -> str | None:
    """The loop variable that takes ``name``'s value in ``for v in (a, b)`` or ``for k, v in
    {"a": a, ...}.items()`` (the literal bound to a local first is followed once)."""
    it = s.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and it.func.attr == "items" and \
            not it.args and isinstance(s.target, ast.Tuple) and len(s.target.elts) == 2 and \
            isinstance(s.target.elts[1], ast.Name):
        src: ast.AST | None = it.func.value
        if isinstance(src, ast.Name):
            src = _only_literal(scope, src.id)
        if isinstance(src, ast.Dict) and any(isinstance(v, ast.Name) and v.id == name for v in src.values):
            return s.target.elts[1].id
        return None
    if isinstance(it, (ast.Tuple, ast.List)) and isinstance(s.target, ast.Name) and \
            any(isinstance(v, ast.Name) and v.id == name for v in it.elts):
        return s.target.id
    return None


def _check_test(test: ast.AST, v: str) -> set[str]:
    """The facts an ``if TEST: raise`` proves about ``v`` when it does not raise: every operand
    of an ``or`` is false then."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    out: set[str] = set()
    for p in parts:
        if isinstance(p, ast.UnaryOp) and isinstance(p.op, ast.Not):
            t = _isinstance_of(p.operand, v)
            if t is not None:
                out.add(t)
        elif _isinstance_of(p, v) == "bool":
            out.add("notbool")
        elif isinstance(p, ast.Compare) and len(p.ops) == 1 and isinstance(p.left, ast.Name) and p.left.id == v and \
                isinstance(p.ops[0], ast.Lt) and isinstance(p.comparators[0], ast.Constant) and \
                p.comparators[0].value == 0 and type(p.comparators[0].value) is int:
            out.add("nonneg")
    if "str" in out or "bytes" in out:
        out.add("notbool")
    return out


def _only_literal(scope: ast.AST, name: str) -> ast.AST | None:
    """The dict or tuple display a local is bound to, when that is its only binding and its only
    other use is one read (the loop's): nothing changes it in between."""
    binds = [n for n in _own_nodes(scope) if _binds(n, name)]
    reads = [n for n in _own_nodes(scope) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    if len(binds) != 1 or len(reads) != 1:
        return None
    for n in _own_nodes(scope):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and n.targets[0] is binds[0] and \
                isinstance(n.value, (ast.Dict, ast.Tuple, ast.List)):
            return n.value
    return None


def _plain(cls: ast.ClassDef) -> bool:
    """A class without bases (or only ``object``) and without a metaclass: every method of its
    instances is one of its own."""
    return not cls.keywords and all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)
