"""Python source operators (v1), built on libcst so every mutant is valid, source-preserving code
(except ``truncate``, a text operator shared by every kind).

Hints: ``required_symbols`` (top-level functions/classes the requirement names).
"""
from __future__ import annotations

import libcst as cst

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator


def _parse(spec: ArtifactSpec) -> cst.Module:
    return cst.parse_module(spec.text)


def _is_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


class _Hollow(cst.CSTTransformer):
    def leave_FunctionDef(self, original, updated):
        body = updated.body
        if not isinstance(body, cst.IndentedBlock):
            return updated.with_changes(body=cst.SimpleStatementSuite([cst.Pass()]))
        return updated.with_changes(body=body.with_changes(
            body=[cst.SimpleStatementLine([cst.Pass()])]))


@operator("hollow", "v1", ("python",), DESTROYING, probe="hollowing", engine="libcst", examples=[
    Example("python", "def f(a):\n    \"\"\"Doc.\"\"\"\n    return a\n", "def f(a):\n    pass\n"),
])
def hollow(spec: ArtifactSpec):
    """Keep every signature, replace every function body (docstring included) with ``pass``."""
    mod = _parse(spec)
    new = mod.visit(_Hollow())
    return [(new.code.encode(), "function bodies -> pass")]


@operator("drop_symbol", "v1", ("python",), DESTROYING, engine="libcst", examples=[
    Example("python", "def f():\n    pass\n\n\ndef g():\n    pass\n", "def f():\n    pass\n", hints={"required_symbols": ["g"]}),
])
def drop_symbol(spec: ArtifactSpec):
    """Remove one required top-level function or class (max 3)."""
    mod = _parse(spec)
    out = []
    for name in spec.hints.get("required_symbols", [])[:3]:
        body = [s for s in mod.body
                if not (isinstance(s, (cst.FunctionDef, cst.ClassDef)) and s.name.value == name)]
        if len(body) != len(mod.body):
            out.append((mod.with_changes(body=body).code.encode(), f"dropped {name}"))
    return out


@operator("add_comment", "v1", ("python",), PRESERVING, engine="libcst", examples=[
    Example("python", "x = 1\n", "# reviewed: formatting only\nx = 1\n", PRESERVING),
])
def add_comment(spec: ArtifactSpec):
    """Add a comment line to the module header."""
    mod = _parse(spec)
    line = cst.EmptyLine(comment=cst.Comment("# reviewed: formatting only"))
    return [(mod.with_changes(header=[*mod.header, line]).code.encode(), "header comment")]


@operator("reformat_whitespace", "v1", ("python",), PRESERVING, engine="libcst", examples=[
    Example("python", "x = 1\ny = 2\n", "\nx = 1\n\ny = 2\n", PRESERVING),
])
def reformat(spec: ArtifactSpec):
    """Add a blank line before every top-level statement."""
    mod = _parse(spec)
    body = [s.with_changes(leading_lines=[cst.EmptyLine(), *s.leading_lines])
            if hasattr(s, "leading_lines") else s for s in mod.body]
    return [(mod.with_changes(body=body).code.encode(), "blank lines added")]


@operator("reorder_items", "v1", ("python",), PRESERVING, engine="libcst", examples=[
    Example("python", "def f():\n    pass\ndef g():\n    pass\n", "def g():\n    pass\ndef f():\n    pass\n", PRESERVING),
    Example("python", "def f():\n    pass\n", NO_MUTANT),
])
def reorder(spec: ArtifactSpec):
    """Reverse each run of consecutive undecorated top-level function definitions."""
    mod = _parse(spec)
    body: list[cst.BaseStatement] = []
    run: list[cst.FunctionDef] = []
    changed = False

    def flush():
        nonlocal changed
        if len(run) > 1:
            changed = True
            # keep the first def's leading lines in place so comments stay put
            body.extend(run[::-1])
        else:
            body.extend(run)
        run.clear()

    for s in mod.body:
        if isinstance(s, cst.FunctionDef) and not s.decorators:
            run.append(s)
        else:
            flush()
            body.append(s)
    flush()
    if not changed:
        return []
    return [(mod.with_changes(body=body).code.encode(), "function definitions reversed")]


class _Names(cst.CSTVisitor):
    """Collect names: assigned locals, params, globals, and every identifier in use."""

    def __init__(self) -> None:
        self.assigned: list[str] = []
        self.params: set[str] = set()
        self.declared: set[str] = set()
        self.all: set[str] = set()

    def visit_Param(self, node):
        self.params.add(node.name.value)

    def visit_Global(self, node):
        self.declared.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node):
        self.declared.update(n.name.value for n in node.names)

    def visit_AssignTarget(self, node):
        if isinstance(node.target, cst.Name) and node.target.value not in self.assigned:
            self.assigned.append(node.target.value)

    def visit_Name(self, node):
        self.all.add(node.value)


class _Rename(cst.CSTTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.new) if updated.value == self.old else updated

    # names that are not variable references must keep their spelling
    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)


@operator("rename_local", "v1", ("python",), PRESERVING, engine="libcst", examples=[
    Example("python", "def f(a):\n    t = a + 1\n    return t\n", "def f(a):\n    t_renamed = a + 1\n    return t_renamed\n", PRESERVING),
])
def rename_local(spec: ArtifactSpec):
    """Rename one local variable consistently inside the first function that assigns one."""
    mod = _parse(spec)
    everything = _Names()
    mod.visit(everything)
    for i, stmt in enumerate(mod.body):
        funcs = [stmt] if isinstance(stmt, cst.FunctionDef) else (
            [s for s in stmt.body.body if isinstance(s, cst.FunctionDef)]
            if isinstance(stmt, cst.ClassDef) else [])
        for f in funcs:
            names = _Names()
            f.visit(names)
            for old in names.assigned:
                if old in names.params or old in names.declared or old.startswith("__"):
                    continue
                new = f"{old}_renamed"
                if new in everything.all:
                    continue
                # _Rename only replaces names, never removes the function: ensure_type raises if it did
                new_f = cst.ensure_type(f.visit(_Rename(old, new)), cst.FunctionDef)
                new_stmt: cst.BaseCompoundStatement = new_f
                if isinstance(stmt, cst.ClassDef):
                    new_stmt = stmt.with_changes(body=stmt.body.with_changes(
                        body=[new_f if s is f else s for s in stmt.body.body]))
                body = list(mod.body)
                body[i] = new_stmt
                return [(mod.with_changes(body=body).code.encode(), f"{old} -> {new} in {f.name.value}")]
    return []
