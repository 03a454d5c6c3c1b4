"""Expectations are data: the rule ``harness tasks validate`` holds every harness-owned test to.

A test proves something about the code under test only if what it compares the code's output
with does not come from that code. ``assert parse(s) == Range(1, 3)`` compares two objects the
workspace built, with the workspace's own ``__eq__``: a candidate whose ``Range`` equals
everything passes it, and so does one whose ``parse`` and ``Range`` are wrong in the same way.
So in a hidden oracle or visible acceptance test:

- every comparison in an ``assert`` (``==``, ``!=``, ``in``, ``is``, ``<`` ...) keeps at least
  one side free of workspace code: built from literals, builtins and names that do not reach the
  task's package;
- the class given to ``pytest.raises`` / ``pytest.warns``, the value given to ``pytest.approx``
  and the class given to ``isinstance`` in an assert are not workspace names.

"Reaches the task's package" is followed through the file: a name imported from a workspace
module (a top-level package or module of the task's starting tree, ``tests`` aside), a name
assigned from an expression that reaches one (module or function scope), a parametrize argument
whose values reach one, a fixture that returns one, and a helper function of the file that
returns one. A side that only *calls* the code under test and then reduces its result to plain
values (``(r.field, r.rule)``, ``type(e).__name__``) is fine on the actual side; the rule is
about the expected side. Pure static analysis (ast): the test file is never imported.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Violation:
    """One expectation built by workspace code: where, and which call or name built it."""
    path: str
    line: int
    what: str  # the construct: "comparison", "pytest.raises", ...
    culprit: str  # the workspace call or name on the expected side

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: the expected side of a {self.what} is built by workspace code ({self.culprit})"


def workspace_modules(workspace: Path) -> frozenset[str]:
    """Top-level importable names of a task's starting tree: packages (directories holding .py
    files) and modules, the ``tests`` directory and ``conftest`` aside."""
    root = Path(workspace)
    names = set()
    for p in root.iterdir():
        if p.is_dir() and p.name not in ("tests", "__pycache__") and not p.name.startswith(".") and any(p.rglob("*.py")):
            names.add(p.name)
        elif p.suffix == ".py" and p.stem != "conftest":
            names.add(p.stem)
    return frozenset(names)


def _imported(tree: ast.Module, modules: frozenset[str]) -> set[str]:
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module and not n.level and n.module.split(".")[0] in modules:
            names |= {a.asname or a.name for a in n.names if a.name != "*"}
        elif isinstance(n, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in n.names if a.name.split(".")[0] in modules}
    return names


def _culprit(expr: ast.AST, tainted: set[str]) -> str | None:
    """The first workspace-reaching call (else name) in expr, as source text; None if there is none."""
    calls = [n for n in ast.walk(expr) if isinstance(n, ast.Call) and _culprit(n.func, tainted)]
    if calls:
        return ast.unparse(calls[0].func) + "(...)"
    return next((n.id for n in ast.walk(expr) if isinstance(n, ast.Name) and n.id in tainted), None)


def _returns(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    return [n.value for n in ast.walk(fn) if isinstance(n, (ast.Return, ast.Yield)) and n.value is not None]


def _assigned(body: list[ast.stmt], tainted: set[str]) -> set[str]:
    """Names assigned (directly in body, or in nested blocks) from workspace-reaching values."""
    out = set()
    for n in (x for s in body for x in ast.walk(s)):
        if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value is not None and _culprit(n.value, tainted):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            out |= {t.id for tg in targets for t in ast.walk(tg) if isinstance(t, ast.Name)}
        elif isinstance(n, (ast.For, ast.comprehension)) and _culprit(n.iter, tainted):
            out |= {t.id for t in ast.walk(n.target) if isinstance(t, ast.Name)}
        elif isinstance(n, ast.withitem) and n.optional_vars is not None and _culprit(n.context_expr, tainted):
            out |= {t.id for t in ast.walk(n.optional_vars) if isinstance(t, ast.Name)}
    return out


def _parametrized(fn: ast.FunctionDef | ast.AsyncFunctionDef, tainted: set[str]) -> set[str]:
    """Argument names of fn's parametrize decorators whose values reach the workspace."""
    out = set()
    for d in fn.decorator_list:
        if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("parametrize") and len(d.args) >= 2 \
                and _culprit(d.args[1], tainted):
            first = d.args[0]
            names = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
            out |= {x.strip() for x in names.split(",") if x.strip()}
            if isinstance(first, (ast.List, ast.Tuple)):
                out |= {e.value for e in first.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return out


def _module_taint(tree: ast.Module, modules: frozenset[str]) -> set[str]:
    """Workspace names, module constants and helpers/fixtures that reach the workspace (to a fixed point)."""
    tainted = _imported(tree, modules)
    funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    while True:
        before = len(tainted)
        tainted |= _assigned([s for s in tree.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                           ast.ClassDef))], tainted)
        for fn in funcs:
            local = tainted | _assigned(fn.body, tainted) | _parametrized(fn, tainted)
            if not fn.name.startswith("test_") and any(_culprit(r, local) for r in _returns(fn)):
                tainted.add(fn.name)  # a helper or fixture that hands back workspace-built values
        if len(tainted) == before:
            return tainted


def _expected_index(sides: list[ast.expr], culprits: list) -> int:
    """Which side of an all-workspace comparison reads as the expectation (for the message): a
    name holding a workspace value or a constructor (a capitalised call), else the right-hand side."""
    for i, (side, c) in enumerate(zip(sides, culprits)):
        if isinstance(side, ast.Name) or c[:1].isupper() or ("." in c and c.rsplit(".", 1)[-1][:1].isupper()):
            return i
    return len(sides) - 1


def _site_violations(node: ast.AST, tainted: set[str]) -> list[tuple[int, str, str]]:
    """(line, construct, culprit) for each expectation at node built by workspace code."""
    out = []
    if isinstance(node, ast.Assert):
        for cmp in (n for n in ast.walk(node.test) if isinstance(n, ast.Compare)):
            sides = [cmp.left, *cmp.comparators]
            culprits = [_culprit(s, tainted) for s in sides]
            if all(culprits):
                i = _expected_index(sides, culprits)
                out.append((node.lineno, "comparison", f"`{culprits[i]}` in `{ast.unparse(sides[i])[:80]}`"))
        for call in (n for n in ast.walk(node.test) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Name) and call.func.id in ("isinstance", "issubclass") and len(call.args) == 2 \
                    and (c := _culprit(call.args[1], tainted)):
                out.append((node.lineno, f"{call.func.id} check", c))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("raises", "warns",
                                                                                                   "approx"):
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id == "pytest" and node.args and (c := _culprit(node.args[0], tainted)):
            out.append((node.lineno, f"pytest.{node.func.attr}", c))
    return out


def check_source(source: str, modules: frozenset[str], path: str = "<test>") -> list[Violation]:
    """Every expectation in a test file's source that is built by workspace code (see module doc)."""
    tree = ast.parse(source, filename=path)
    tainted = _module_taint(tree, modules)
    scopes: list[tuple[ast.AST, set[str]]] = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        scopes.append((fn, tainted | _assigned(fn.body, tainted) | _parametrized(fn, tainted)))
    in_fn = {id(n) for fn, _ in scopes for n in ast.walk(fn)}
    found: dict[tuple[int, str], Violation] = {}
    items = [(n, local) for fn, local in scopes for n in ast.walk(fn)]
    items += [(n, tainted) for n in ast.walk(tree) if id(n) not in in_fn]
    for node, local in items:
        for line, what, culprit in _site_violations(node, local):
            found.setdefault((line, what), Violation(path, line, what, culprit))
    return sorted(found.values(), key=lambda v: (v.line, v.what))


def check_file(path: Path, workspace: Path, label: str | None = None) -> list[Violation]:
    """check_source over one test file of a task, against the task's workspace packages."""
    return check_source(Path(path).read_text(), workspace_modules(workspace), label or str(path))
