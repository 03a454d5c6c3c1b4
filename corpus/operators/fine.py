"""Family ``fine``: one small change per mutant in Python source, built with libcst.

The operators mutmut and cosmic-ray apply (arithmetic and augmented assignment, comparisons
including ``is`` and ``in``, number and string constants, booleans, ``and``/``or``, ``not``,
return values, single statements, exception handlers, call arguments, related methods, loops),
each mutant a valid module that differs from the artifact in one place. Every mutant is labelled
destroying (a test suite that specifies the code should notice it), except where a cheap check
proves it equivalent: identical bytecode (applied to every destroying Python mutant, see
corpus/equivalence.py) or a trivially equivalent form named by the operator (``split`` ->
``rsplit`` without maxsplit on a string literal; a case swap on a literal without letters; ``min``/``max`` or
``any``/``all`` of a one-element literal). Equivalent mutants are counted apart, never judged.

Applicable only where the requirement is the module's behaviour: the hint ``role = "code"``.
Elsewhere (a docstring rule, a secret scan, a test module) changing ``+`` to ``-`` does not break
the requirement, and "destroying" would be a wrong label.

Not mutated: docstrings, annotations, assignments to dunder names (``__all__``), and the body of
``if __name__ == "__main__":``. A candidate whose mutant does not compile is dropped.
"""
from __future__ import annotations

import dataclasses
import functools
import io
import re
import tokenize

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import MetadataWrapper, PositionProvider

from corpus.equivalence import accumulator_equivalent, bound_names, compiles, identical_bytecode, residue_equivalent
from corpus.model import DESTROYING, EQUIVALENT, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator
from corpus.screen import screen

ARITHMETIC = {cst.Add: cst.Subtract, cst.Subtract: cst.Add, cst.Multiply: cst.Divide,
              cst.Divide: cst.Multiply, cst.FloorDivide: cst.Divide, cst.Modulo: cst.Divide,
              cst.Power: cst.Multiply, cst.LeftShift: cst.RightShift, cst.RightShift: cst.LeftShift,
              cst.BitAnd: cst.BitOr, cst.BitOr: cst.BitAnd, cst.BitXor: cst.BitAnd}
AUGMENTED = {cst.AddAssign: cst.SubtractAssign, cst.SubtractAssign: cst.AddAssign,
             cst.MultiplyAssign: cst.DivideAssign, cst.DivideAssign: cst.MultiplyAssign,
             cst.FloorDivideAssign: cst.DivideAssign, cst.ModuloAssign: cst.DivideAssign,
             cst.PowerAssign: cst.MultiplyAssign, cst.LeftShiftAssign: cst.RightShiftAssign,
             cst.RightShiftAssign: cst.LeftShiftAssign, cst.BitAndAssign: cst.BitOrAssign,
             cst.BitOrAssign: cst.BitAndAssign, cst.BitXorAssign: cst.BitAndAssign}
# boundary shift and negation for orderings; negation (and the two boundaries) for equality
COMPARISON = {cst.Equal: (cst.NotEqual, cst.GreaterThanEqual, cst.LessThanEqual),
              cst.NotEqual: (cst.Equal,),
              cst.LessThan: (cst.LessThanEqual, cst.GreaterThanEqual),
              cst.LessThanEqual: (cst.LessThan, cst.GreaterThan),
              cst.GreaterThan: (cst.GreaterThanEqual, cst.LessThanEqual),
              cst.GreaterThanEqual: (cst.GreaterThan, cst.LessThan),
              cst.Is: (cst.IsNot,), cst.IsNot: (cst.Is,), cst.In: (cst.NotIn,), cst.NotIn: (cst.In,)}
IDENTITY = {cst.Equal: (cst.Is,)}                                  # == -> is (mutmut)
ORDERING = {cst.NotEqual: (cst.LessThan, cst.GreaterThan)}         # != -> <, != -> > (cosmic-ray)
METHOD_PAIRS = {"upper": "lower", "lstrip": "rstrip", "startswith": "endswith", "find": "rfind",
                "index": "rindex", "ljust": "rjust", "split": "rsplit", "partition": "rpartition",
                "removeprefix": "removesuffix"}
METHOD_PAIRS.update({v: k for k, v in list(METHOD_PAIRS.items())})
BUILTIN_PAIRS = {"min": "max", "max": "min", "any": "all", "all": "any"}
# -x -> +x, +x -> -x, ~x -> not x, not x -> ~x (cosmic-ray's unary operator replacement)
UNARY = {cst.Minus: cst.Plus, cst.Plus: cst.Minus, cst.BitInvert: cst.Not, cst.Not: cst.BitInvert}
# operators that mostly make equivalent mutants on typical code (issue 35: '==' -> 'is' gave 15
# survivors on a semver module, 11 of them equivalent): generated only when the hints' (or the
# config's) ``extra_operators`` names them
# negate_if: an if's condition negated was killed wherever the two constant conditions
# (condition_constant) were, or survived beside one of them (subsumed: 60 of 60 on the isbn,
# ordered-set and semver samples; docs/mutation.md "Redundant operators")
# drop_builtin_argument: an argument dropped from a call of the builtin len or isinstance (mutmut
# never mutates these calls' arguments). The call then raises TypeError wherever it runs, and so
# does argument_to_none's twin on the same call (len(None), isinstance(x, None)), which stays on:
# the two are killed by the same tests and survive together (docs/mutation.md, "Fewer mutants
# where a twin does the same")
OPT_IN = frozenset({"identity", "ordering", "negate_if", "drop_builtin_argument", "remove_overload"})
# builtins whose call fails (TypeError) with an argument fewer, and how many arguments they take
ARITY_BUILTINS = {"len": 1, "isinstance": 2}


def _code(node: cst.CSTNode) -> str:
    text = cst.Module([]).code_for_node(node).strip()
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _op_node(old, new_cls):
    """A new operator node of ``new_cls`` keeping ``old``'s whitespace."""
    kw = {k: getattr(old, k) for k in ("whitespace_before", "whitespace_after") if hasattr(old, k)}
    if new_cls in (cst.IsNot, cst.NotIn):
        kw["whitespace_between"] = cst.SimpleWhitespace(" ")
    return new_cls(**kw)


def _is_name(node, *values: str) -> bool:
    """``node`` is a name (in any parentheses), one of ``values`` when any are given: what
    ``libcst.matchers``' ``m.Name(...)`` matched. The matchers module is not imported: making its
    174 dataclasses took 0.3-0.5 s of every measurement's critical path, the mutants' generation
    (issue 35)."""
    return isinstance(node, cst.Name) and (not values or node.value in values)


def _nodes(tree: cst.CSTNode):
    """``tree`` and every node below it (``libcst.matchers.findall``'s nodes, in no set order)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.children)


def _is_main_guard(test) -> bool:
    return isinstance(test, cst.Comparison) and _is_name(test.left, "__name__") and len(test.comparisons) == 1 \
        and isinstance(test.comparisons[0].operator, cst.Equal) \
        and isinstance(test.comparisons[0].comparator, cst.SimpleString)


def _docstrings(mod: cst.Module) -> set[int]:
    """ids of every docstring statement (first statement of a module, class or function)."""
    out = set()

    def first(body):
        if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 and \
                isinstance(body[0].body[0], cst.Expr) and \
                isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            out.add(id(body[0]))

    first(mod.body)
    for node in _nodes(mod):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and isinstance(node.body, cst.IndentedBlock):
            first(node.body.body)
    return out


def _names_overload(d: cst.BaseExpression) -> bool:
    """Whether a decorator reads as typing's ``overload`` (``@overload``, ``@typing.overload``, ``@t.overload``): by
    its spelling only. It decides which operator a removal belongs to (``remove_overload``, opt-in), what is
    generated by default: never a claim that the removal is equivalent."""
    return (isinstance(d, cst.Name) and d.value == "overload") or \
        (isinstance(d, cst.Attribute) and d.attr.value == "overload")


class _Sites(cst.CSTVisitor):
    """One walk collecting every (operator, node, replacement, line, label) site."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, docstrings: set[int], top: dict[int, int], default_indent: str = "    "):
        super().__init__()
        self.default_indent = default_indent
        self.sites: dict[str, list] = {}
        self.docstrings = docstrings
        self.top = top          # id(top-level statement) -> its index in the module body
        self.current = -1
        self.ranges: dict[int, tuple[int, int, int, int]] = {}   # id(expression) -> its position
        self.indent: list[str] = []     # the indentation of each enclosing block (codegen's tokens)
        self.outer: tuple | None = None     # (outermost enclosing def, the indentation it starts at)
        self.units: dict[int, tuple] = {}   # id(site node) -> self.outer when the site was added
        self.formats: set[int] = set()      # id of each string literal left of a "%"
        self.bound: frozenset[str] = frozenset()    # names the module binds (_bound_names)

    def on_visit(self, node):
        self.current = self.top.get(id(node), self.current)
        if isinstance(node, cst.FunctionDef) and self.outer is None:
            self.outer = (node, tuple(self.indent))
        elif isinstance(node, cst.IndentedBlock):
            self.indent.append(node.indent if node.indent is not None else self.default_indent)
        return super().on_visit(node)

    def on_leave(self, original_node):
        if isinstance(original_node, cst.IndentedBlock):
            self.indent.pop()
        elif self.outer is not None and self.outer[0] is original_node:
            self.outer = None
        return super().on_leave(original_node)

    def add(self, op, node, new, label=DESTROYING, note=None):
        pos = self.get_metadata(PositionProvider, node)
        if isinstance(node, cst.BaseExpression):
            self.ranges[id(node)] = (pos.start.line, pos.start.column, pos.end.line, pos.end.column)
        if self.outer is not None:
            self.units[id(node)] = self.outer
        self.sites.setdefault(op, []).append((self.current, node, new, pos.start.line, label, note))

    # --- regions never mutated
    def visit_Annotation(self, node):
        return False

    def visit_If(self, node):
        if _is_main_guard(node.test):
            return False
        self.add("negate_if", node, node.with_changes(test=_negated(node.test)))
        for op, const in ((cst.And, "False"), (cst.Or, "True")):
            test = cst.BooleanOperation(left=_grouped(node.test), operator=op(), right=cst.Name(const))
            self.add("condition_constant", node, node.with_changes(test=test))
        return None

    def visit_Assign(self, node):
        if any(_is_name(t.target) and t.target.value.startswith("__") and
               t.target.value.endswith("__") for t in node.targets):
            return False
        if not _is_name(node.value, "None"):
            self.add("assign_none", node, node.with_changes(value=cst.Name("None")))
        else:
            self.add("none_to_empty", node, node.with_changes(value=cst.SimpleString('""')))
        return None

    def visit_AnnAssign(self, node):
        # 'x: T = None' -> 'x: T = ""' (mutmut mutates an annotated assignment's value too); the
        # annotation itself is never visited (visit_Annotation)
        if _is_name(node.value, "None") and not (
                _is_name(node.target) and node.target.value.startswith("__") and
                node.target.value.endswith("__")):
            self.add("none_to_empty", node, node.with_changes(value=cst.SimpleString('""')))
        return None

    def visit_Break(self, node):
        self.add("break_continue", node, cst.Continue(semicolon=node.semicolon))
        self.add("break_continue", node, cst.Return(value=None, semicolon=node.semicolon))

    def visit_Continue(self, node):
        self.add("break_continue", node, cst.Break(semicolon=node.semicolon))

    def visit_SimpleStatementLine(self, node):
        if id(node) in self.docstrings:
            return False
        for i, small in enumerate(node.body):
            if _removable(small):
                body = [*node.body[:i], cst.Pass(semicolon=small.semicolon), *node.body[i + 1:]]
                self.add("remove_statement", node, node.with_changes(body=body),
                         note=f"removed '{_code(small)}'")
        return None

    # --- expressions
    def visit_BinaryOperation(self, node):
        if isinstance(node.operator, cst.Modulo) and isinstance(node.left, cst.SimpleString):
            self.formats.add(id(node.left))
        new = ARITHMETIC.get(type(node.operator))
        if new:
            self.add("arithmetic", node, node.with_changes(operator=_op_node(node.operator, new)))

    def visit_UnaryOperation(self, node):
        if isinstance(node.operator, cst.Not):
            self.add("remove_not", node, node.expression)
        elif isinstance(node.operator, (cst.Minus, cst.BitInvert)):
            self.add("arithmetic", node, node.expression)
        swap = UNARY.get(type(node.operator))
        if swap is not None:
            new = node.with_changes(operator=swap(whitespace_after=cst.SimpleWhitespace(" ")) if swap is cst.Not
                                    else swap(), expression=_grouped_unary(node.expression))
            if swap is cst.Not and not node.lpar:      # 'not' binds looser than the '~' it replaces
                new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            self.add("unary", node, new)

    def visit_AugAssign(self, node):
        new = AUGMENTED.get(type(node.operator))
        if new:
            self.add("augmented_assignment", node, node.with_changes(operator=_op_node(node.operator, new)))
        self.add("augmented_assignment", node,
                 cst.Assign(targets=[cst.AssignTarget(node.target)], value=node.value,
                            semicolon=node.semicolon))

    def visit_Comparison(self, node):
        for i, target in enumerate(node.comparisons):
            for op, table in (("comparison", COMPARISON), ("identity", IDENTITY), ("ordering", ORDERING)):
                for new in table.get(type(target.operator), ()):
                    comps = list(node.comparisons)
                    comps[i] = target.with_changes(operator=_op_node(target.operator, new))
                    self.add(op, node, node.with_changes(comparisons=comps))

    def visit_BooleanOperation(self, node):
        new = cst.Or if isinstance(node.operator, cst.And) else cst.And
        self.add("and_or", node, node.with_changes(operator=_op_node(node.operator, new)))

    def visit_Name(self, node):
        if node.value in ("True", "False"):
            self.add("boolean_constant", node, node.with_changes(value="False" if node.value == "True" else "True"))

    def visit_Integer(self, node):
        self._number(node, node.evaluated_value, int)

    def visit_Float(self, node):
        self._number(node, node.evaluated_value, float)

    def _number(self, node, v, typ):
        for new in dict.fromkeys(x for x in (v + 1, v - 1, typ(0)) if x >= 0 and x != v):
            self.add("number_constant", node, cst.parse_expression(repr(new)))

    def visit_SimpleString(self, node):
        # a %-format string keeps its text and placeholders ("XX...XX", as mutmut): emptied, its
        # "%" raises TypeError and the mutant only tests that the line runs
        inner = "XX" if node.raw_value == "" else f"XX{node.raw_value}XX" if id(node) in self.formats else ""
        self.add("string_constant", node, node.with_changes(value=f"{node.prefix}{node.quote}{inner}{node.quote}"))
        self._string_case(node)

    def _string_case(self, node):
        """The literal upper-cased (lower-cased when it has no lower-case letter); not a literal
        with a backslash (an escape's letters would change), nor a %-format string."""
        raw = node.raw_value
        if "\\" in raw or id(node) in self.formats:
            return
        case = raw.upper() if raw.upper() != raw else raw.lower()
        if case != raw:
            self.add("string_case", node, node.with_changes(value=f"{node.prefix}{node.quote}{case}{node.quote}"))

    def visit_Lambda(self, node):
        if not _is_name(node.body, "None"):
            self.add("lambda_none", node, node.with_changes(body=cst.Name("None")))

    def visit_Match(self, node):
        if len(node.cases) > 1:
            for i, case in enumerate(node.cases):
                rest = [c for j, c in enumerate(node.cases) if j != i]
                self.add("remove_case", node, node.with_changes(cases=rest),
                         note=f"case '{_code(case.pattern)}' removed")

    def _decorators(self, node):
        for i, d in enumerate(node.decorators):
            rest = [x for j, x in enumerate(node.decorators) if j != i]
            op = "remove_overload" if _names_overload(d.decorator) else "remove_decorator"
            self.add(op, node, node.with_changes(decorators=rest),
                     note=f"decorator '@{_code(d.decorator)}' removed from '{node.name.value}'")

    def visit_FunctionDef(self, node):
        self._decorators(node)

    def visit_ClassDef(self, node):
        self._decorators(node)

    def visit_IfExp(self, node):
        self.add("add_not", node, node.with_changes(test=_negated(node.test)))
        # each arm forced, the test still evaluated (mutmut's form: '(c) and False', '(c) or True')
        for op, const in ((cst.And, "False"), (cst.Or, "True")):
            test = cst.BooleanOperation(left=node.test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]),
                                        operator=op(), right=cst.Name(const))
            self.add("ternary_constant", node, node.with_changes(test=test))

    def visit_While(self, node):
        self.add("add_not", node, node.with_changes(test=_negated(node.test)))
        self.add("zero_iterations", node, node.with_changes(test=cst.Name("False")))

    def visit_For(self, node):
        if node.asynchronous is None:
            self.add("zero_iterations", node, node.with_changes(iter=cst.List([])))

    def visit_CompFor(self, node):
        if node.asynchronous is None:
            self.add("zero_iterations", node, node.with_changes(iter=cst.List([])))

    # --- statements
    def visit_Return(self, node):
        if node.value is not None and not _is_name(node.value, "None"):
            self.add("remove_return_value", node, cst.Return(value=None, semicolon=node.semicolon))

    def visit_Try(self, node):
        for i, h in enumerate(node.handlers):
            rest = [x for j, x in enumerate(node.handlers) if j != i]
            if rest:
                new = node.with_changes(handlers=rest)
            elif node.finalbody is not None:
                body = node.body.with_changes(body=[*node.body.body, *(node.orelse.body.body if node.orelse else [])])
                new = node.with_changes(handlers=[], orelse=None, body=body)
            else:   # the only handler: the try block runs bare (if True: keeps it a block)
                body = node.body.with_changes(body=[*node.body.body, *(node.orelse.body.body if node.orelse else [])])
                new = cst.If(test=cst.Name("True"), body=body, leading_lines=node.leading_lines)
            self.add("remove_handler", node, new, note=f"handler '{_code(h.type) if h.type else 'bare'}' removed")
            if h.type is not None and not _is_name(h.type, "Exception", "BaseException"):
                handlers = list(node.handlers)
                handlers[i] = h.with_changes(type=cst.Name("Exception"))
                self.add("broaden_handler", node, node.with_changes(handlers=handlers),
                         note=f"except {_code(h.type)} -> except Exception")

    def visit_Call(self, node):
        args = list(node.args)
        drop = "drop_builtin_argument" if self._builtin_twin(node.func, args) else "drop_argument"
        for i, arg in enumerate(args):
            if arg.star:
                continue
            rest = args[:i] + args[i + 1:]
            if rest and i == len(args) - 1:
                rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            self.add(drop, node, node.with_changes(args=rest),
                     note=f"argument '{_code(arg.value)}' dropped from '{_code(node)}'")
            if not _is_name(arg.value, "None"):
                new_args = list(args)
                new_args[i] = arg.with_changes(value=cst.Name("None"))
                self.add("argument_to_none", node, node.with_changes(args=new_args),
                         note=f"argument '{_code(arg.value)}' -> None in '{_code(node)}'")
        f = node.func
        self._call_names(node, f, args)
        if isinstance(f, cst.Attribute) and f.attr.value in METHOD_PAIRS:
            new = node.with_changes(func=f.with_changes(attr=cst.Name(METHOD_PAIRS[f.attr.value])))
            label = _method_swap_label(node, f)
            if label is not None:
                self.add("swap_method", node, new, label)
        elif isinstance(f, cst.Name) and f.value in BUILTIN_PAIRS:
            new = node.with_changes(func=f.with_changes(value=BUILTIN_PAIRS[f.value]))
            one = len(args) == 1 and not args[0].star and isinstance(args[0].value, (cst.List, cst.Tuple, cst.Set)) \
                and len(args[0].value.elements) == 1 and not isinstance(args[0].value.elements[0], cst.StarredElement)
            self.add("swap_method", node, new, EQUIVALENT if one else DESTROYING)


    def _builtin_twin(self, f, args) -> bool:
        """Is this a call of the builtin ``len`` or ``isinstance`` (the name bound nowhere in the
        module: ``bound``) with exactly its arguments, plain and positional, the last not None?
        Dropping any one of them makes a call that raises TypeError wherever it runs, as
        argument_to_none's mutant of the last argument (``len(None)``, ``isinstance(x, None)``)
        does: those drops are ``drop_builtin_argument``'s (opt-in), not ``drop_argument``'s."""
        return isinstance(f, cst.Name) and f.value in ARITY_BUILTINS and f.value not in self.bound \
            and len(args) == ARITY_BUILTINS[f.value] and all(not a.star and a.keyword is None for a in args) \
            and not _is_name(args[-1].value, "None")

    def _call_names(self, node, f, args):
        """``dict(a=...)``'s keywords renamed (``aXX``, as mutmut); ``deepcopy`` -> ``copy``."""
        if _is_name(f, "dict"):
            for i, arg in enumerate(args):
                if arg.keyword is not None:
                    new_args = list(args)
                    new_args[i] = arg.with_changes(keyword=cst.Name(arg.keyword.value + "XX"))
                    self.add("dict_keyword", node, node.with_changes(args=new_args),
                             note=f"dict keyword '{arg.keyword.value}' -> '{arg.keyword.value}XX'")
        if _is_name(f, "deepcopy"):
            self.add("shallow_copy", node, node.with_changes(func=f.with_changes(value="copy")))
        elif isinstance(f, cst.Attribute) and _is_name(f.attr, "deepcopy"):
            self.add("shallow_copy", node, node.with_changes(func=f.with_changes(attr=cst.Name("copy"))))


def _grouped_unary(expr):
    """``expr`` parenthesized where a swapped unary operator would bind differently (``not``
    binds looser than a comparison or an arithmetic operation; ``~``/``-`` tighter)."""
    if isinstance(expr, (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation, cst.IfExp, cst.Lambda,
                         cst.NamedExpr, cst.UnaryOperation)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _method_swap_label(call: cst.Call, f: cst.Attribute) -> str | None:
    """Trivially equivalent forms: split/rsplit without maxsplit on a string literal; a case swap
    on a string literal the swap cannot change. None = no mutant: split/rsplit without maxsplit on
    any other receiver is equivalent when it is a str, and a call of a method that does not exist
    when it is not (``os.path.split``, a compiled pattern's ``split``); neither finds a gap, and
    without types the two cannot be told apart (mutmut swaps split only with a maxsplit too)."""
    name = f.attr.value
    if name in ("split", "rsplit"):
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if len(positional) <= 1 and not any(a.keyword and a.keyword.value == "maxsplit" for a in call.args) \
                and not any(a.star for a in call.args):
            return EQUIVALENT if isinstance(f.value, (cst.SimpleString, cst.ConcatenatedString)) else None
    if name in ("upper", "lower") and isinstance(f.value, cst.SimpleString):
        s = f.value.evaluated_value
        if isinstance(s, str) and s.upper() == s.lower():
            return EQUIVALENT
    return DESTROYING


def _grouped(test):
    """``test`` parenthesized where an ``and``/``or`` around it would bind into it."""
    if isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.NamedExpr, cst.Lambda)) and not test.lpar:
        return test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return test


def _negated(test):
    if isinstance(test, (cst.BooleanOperation, cst.IfExp, cst.NamedExpr, cst.Lambda)) and not test.lpar:
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(operator=cst.Not(), expression=test)


def _removable(small) -> bool:
    if any(isinstance(n, (cst.Yield, cst.Await)) for n in _nodes(small)):
        return False
    if isinstance(small, cst.Expr):
        return not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis,
                                            cst.Integer, cst.Float, cst.Name))
    if isinstance(small, cst.AnnAssign):
        return small.value is not None
    return isinstance(small, (cst.Assign, cst.AugAssign, cst.Raise, cst.Assert, cst.Del))


@functools.lru_cache(maxsize=8)
def _analyse(text: str):
    """(module, text spans of its top-level statements, {operator: [sites]}, offset of each line's
    first character) for one source: parsed once, every mutant then made by position."""
    mod = cst.parse_module(text)
    codes = [mod.code_for_node(stmt) for stmt in mod.body]
    start = text.find("".join(codes))
    spans = []
    for code in codes:
        spans.append((start, start + len(code)))
        start += len(code)
    wrapper = MetadataWrapper(mod, unsafe_skip_copy=True)
    visitor = _Sites(_docstrings(mod), {id(stmt): i for i, stmt in enumerate(mod.body)}, mod.default_indent)
    visitor.bound = _bound_names(text)
    wrapper.visit(visitor)
    line_starts = [0]
    for line in text.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    return mod, spans, visitor.sites, line_starts, visitor.ranges, visitor.units, {}


def _bound_names(text: str) -> frozenset[str]:
    """Every name the module binds anywhere (corpus.equivalence ``bound_names``); a text that does not parse binds
    every name ("*")."""
    from corpus.pyparse import parse
    try:
        return frozenset(bound_names(parse(text)))
    except (SyntaxError, ValueError):
        return frozenset({"*"})


PRAGMA = re.compile(r"#\s*pragma:\s*no\s+mutate\b(?:\s*:?\s*(start|end)\b)?")


@functools.lru_cache(maxsize=8)
def skipped_lines(text: str, patterns: tuple[str, ...] = ()) -> frozenset[int]:
    """Line numbers (1-based) never mutated (comments are read with tokenize: a pragma inside a
    string does not count):

    - a line whose comment says ``# pragma: no mutate`` (as mutmut: the mutants starting on that
      line are dropped); on a ``def`` or ``class`` line (or one of its decorators' lines) the
      whole definition, its body included;
    - every line from ``# pragma: no mutate start`` to the next ``# pragma: no mutate end`` (or
      to the end of the file);
    - a line matching one of the ``skip_lines`` hint's regular expressions (re.search)."""
    out: set[int] = set()
    pragmas: dict[int, str | None] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                hit = PRAGMA.search(tok.string)
                if hit:
                    pragmas[tok.start[0]] = hit.group(1)
    except (tokenize.TokenError, SyntaxError):
        pass
    out.update(_pragma_blocks(pragmas, text.count("\n") + 1))
    out.update(_pragma_definitions({ln for ln, kind in pragmas.items() if kind is None}, text))
    regexes = [re.compile(p) for p in patterns]
    if regexes:
        out.update(i for i, line in enumerate(text.splitlines(), 1) if any(r.search(line) for r in regexes))
    return frozenset(out)


def _pragma_blocks(pragmas: dict[int, str | None], last: int) -> set[int]:
    """Lines covered by ``start``/``end`` pragmas (an unclosed start runs to ``last``), plus the
    line of every plain pragma."""
    out, start = set(), None
    for ln in sorted(pragmas):
        kind = pragmas[ln]
        if kind is None:
            out.add(ln)
        elif kind == "start" and start is None:
            start = ln
        elif kind == "end" and start is not None:
            out.update(range(start, ln + 1))
            start = None
    if start is not None:
        out.update(range(start, last + 1))
    return out


def _pragma_definitions(lines: set[int], text: str) -> set[int]:
    """Every line of each def or class whose header (``def``/``class`` line or a decorator's
    line) carries a plain pragma."""
    if not lines:
        return set()
    import ast

    from corpus.pyparse import parse
    try:
        tree = parse(text)  # through the lock every AST in the corpus is built under (corpus/pyparse.py)
    except (SyntaxError, ValueError):
        return set()
    out: set[int] = set()
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            header = {node.lineno, *(d.lineno for d in node.decorator_list)}
            if header & lines:
                out.update(range(min(header), (node.end_lineno or node.lineno) + 1))
    return out


def _mutated_statement(text: str, analysis, site) -> str:
    """The top-level statement holding ``site``, with the site's node replaced (what
    ``_mutated_unit`` makes, spliced back into its top-level statement)."""
    spans = analysis[1]
    lo, hi = spans[site[0]]
    a, b, _, mutated, _ = _mutated_unit(text, analysis, site)
    return text[lo:a] + mutated + text[b:hi]


def _code_at(mod: cst.Module, node: cst.CSTNode, indent: tuple[str, ...]) -> str:
    """``node``'s code as it stands in the module: printed with its enclosing blocks' indentation
    (libcst round-trips, so this is the module's own text of the node)."""
    state = CodegenState(default_indent=mod.default_indent, default_newline=mod.default_newline)
    state.indent_tokens.extend(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _unit_span(text: str, analysis, site) -> tuple[int, int, tuple[str, ...] | None, cst.CSTNode]:
    """The text span of the unit a mutant of ``site`` is made in: the outermost function (a
    method, or a top-level function) holding the site, else its top-level statement. A method is
    its own unit, so a change in a 480-line class rebuilds, compiles and compares one method, not
    the class (issue 26: generation was 27 s of ordered-set's run). Returns (start, end, the
    unit's indentation or None for a top-level statement, the unit's node)."""
    mod, spans, _, line_starts, _, units, memo = analysis
    top, node = site[0], site[1]
    lo, hi = spans[top]
    unit = units.get(id(node))
    if unit is None or unit[0] is mod.body[top]:
        return lo, hi, None, mod.body[top]
    func, indent = unit
    if id(func) not in memo:
        code = _code_at(mod, func, indent)
        at = line_starts[site[3] - 1]
        start = text.find(code, lo, hi)
        while start != -1 and start + len(code) <= at:
            start = text.find(code, start + 1, hi)
        memo[id(func)] = (start, start + len(code)) if start != -1 and start <= at else None
    span = memo[id(func)]
    if span is None:
        return lo, hi, None, mod.body[top]
    return span[0], span[1], indent, func


def _mutated_unit(text: str, analysis, site) -> tuple[int, int, str, str, str | None]:
    """(start, end, original text, mutated text, compilable prefix) of the unit holding ``site``
    (``_unit_span``) with the site's node replaced. An expression is replaced by position: its
    text span swapped for the new node's code, no tree rebuilt (libcst prints an expression with
    its own parentheses, so the span is exactly the node's code). A statement-level change
    rebuilds the unit alone (``deep_replace``). The prefix (``if True:``) makes an indented
    unit compile on its own; None for a top-level one."""
    mod, _, _, line_starts, ranges, *_ = analysis
    node, new = site[1], site[2]
    lo, hi, indent, unit = _unit_span(text, analysis, site)
    prefix = "if True:\n" if indent else None
    rng = ranges.get(id(node))
    if rng is not None and isinstance(new, cst.BaseExpression):
        a = line_starts[rng[0] - 1] + rng[1]
        b = line_starts[rng[2] - 1] + rng[3]
        if lo <= a <= b <= hi and text[a:b] == mod.code_for_node(node):
            return lo, hi, text[lo:hi], text[lo:a] + mod.code_for_node(new) + text[b:hi], prefix
    replaced = _replaced(unit, node, new, analysis[-1])
    return lo, hi, text[lo:hi], _code_at(mod, replaced, indent or ()), prefix


def _replaced(unit: cst.CSTNode, node: cst.CSTNode, new, memo: dict) -> cst.CSTNode:
    """``unit.deep_replace(node, new)``, rebuilding only ``node``'s ancestors. deep_replace visits and rebuilds every
    node of the unit (each rebuilt node equal to the one it replaces but on that path): here a parse tree's node
    occurs once, so its path from the unit (``_parents``, made once per unit) is the whole change, and each ancestor is
    made as deep_replace makes it (its fields with the one child swapped, validated by its constructor). The tree,
    and so its printed code, is the same (tests/corpus/test_fine_replace.py checks it against deep_replace; one sha256
    over the 55,469 mutants of corpus/'s 113 files before and after; reviewer rv-speed compared 42,771 replacements of
    207 files). A sentinel (removal, flattening; no operator makes one today) goes deep_replace's way."""
    if not isinstance(new, cst.CSTNode):
        return unit.deep_replace(node, new)
    parents = memo.get(("parents", id(unit)))
    if parents is None:
        parents = memo[("parents", id(unit))] = _parents(unit)
    while node is not unit:
        where = parents.get(id(node))
        if where is None:  # (not in this unit: deep_replace's answer is the unit unchanged, as a rebuilt copy)
            return unit.deep_replace(node, new)
        parent, field, index = where
        if index is not None:
            siblings = getattr(parent, field)
            new = (*siblings[:index], new, *siblings[index + 1:])
        new, node = parent.with_changes(**{field: new}), parent
    return new


def _parents(unit: cst.CSTNode) -> dict:
    """id(node) -> (its parent, the parent's field holding it, its index in that field's sequence or None), for every
    node under ``unit``."""
    out: dict = {}
    todo = [unit]
    while todo:
        parent = todo.pop()
        for f in _fields(type(parent)):
            value = getattr(parent, f)
            if isinstance(value, cst.CSTNode):
                out[id(value)] = (parent, f, None)
                todo.append(value)
            elif isinstance(value, (list, tuple)):
                for i, child in enumerate(value):
                    if isinstance(child, cst.CSTNode):
                        out[id(child)] = (parent, f, i)
                        todo.append(child)
    return out


@functools.lru_cache(maxsize=None)
def _fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


def _mutants(spec: ArtifactSpec, op: str) -> list[tuple]:
    """Each site's mutant: its unit (``_unit_span``: the outermost function holding the site, or
    its top-level statement) with the one node replaced, spliced into the artifact text (the rest
    of the file stays byte-identical). Validity and identical bytecode are checked on that unit
    alone (corpus/equivalence.py): the rest of the module is byte-identical, so the module
    compiles, and compiles to the same code, exactly when the unit does. A unit compiled alone
    can only miss an equivalence, never invent one: a method outside its class compiles the
    same instructions but for private-name mangling and the ``__class__`` cell, which apply to
    the original and the mutant alike."""
    if spec.hints.get("role") != "code":
        return []
    try:
        analysis = _analyse(spec.text)
    except cst.ParserSyntaxError:
        return []
    mod, spans, sites, *_ = analysis
    out = []
    skip = skipped_lines(spec.text, tuple(spec.hints.get("skip_lines", ())))
    for site in sites.get(op, []):
        top, node, new, line, label, note = site
        if line in skip:
            continue
        lo, hi, unit, mutated, prefix = _mutated_unit(spec.text, analysis, site)
        # a unit (a method printed at its indentation) compiles alone under "if True:"
        original, stmt = (prefix + unit, prefix + mutated) if prefix else (unit, mutated)
        if not compiles(stmt):
            continue
        if label == DESTROYING and identical_bytecode(original, stmt):
            label, note = EQUIVALENT, f"{note or _code(node) + ' -> ' + _code(new)} [equivalent: identical bytecode]"
        elif label == DESTROYING and op == "comparison" and residue_equivalent(spec.text, original, stmt):
            label, note = EQUIVALENT, (f"{note or _code(node) + ' -> ' + _code(new)} [equivalent: the residue of "
                                       f"an int by a positive constant is never negative]")
        elif label == DESTROYING and op == "augmented_assignment" and accumulator_equivalent(spec.text, original, stmt):
            label, note = EQUIVALENT, (f"{note or _code(node) + ' -> ' + _code(new)} [equivalent: an int "
                                       f"accumulator read only as its residue's zero test, negated]")
        elif label == DESTROYING and (found := screen(spec.text, original, stmt, op)) is not None:
            label, note = EQUIVALENT, f"{note or _code(node) + ' -> ' + _code(new)} [equivalent: {found[0]}: {found[1]}]"
        code = spec.text[:lo] + mutated + spec.text[hi:]
        kept = lines_kept(unit, mutated, prefix)
        if kept is not mutated and _line_count(spec.text[:lo] + kept + spec.text[hi:]) == _line_count(spec.text):
            code = spec.text[:lo] + kept + spec.text[hi:]      # (a unit cut inside a CRLF pads one line too many)
        out.append((code.encode(), f"L{line}: {note or _code(node) + ' -> ' + _code(new)}", label, True))
    return out


_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+\Z")     # a line with its end (Python's three line ends)
_LINE_END = re.compile(r"\r\n?|\n")


def lines_kept(unit: str, mutated: str, prefix: str | None = None) -> str:
    """``mutated`` (a unit's mutated text, ``_mutated_unit``) with as many empty lines as it has
    fewer than ``unit``, so that every line after the change keeps its number: removing a two-line
    ``except`` clause, a multi-line ``return`` value or an argument of a call spread over lines
    leaves the rest of the function, and every other function, line for line as it was. Why: any
    other function whose lines moved is a second changed code object, and such a mutant was judged
    by a whole-suite pytest run instead of a swap of its one function (issue 35: 4 of
    ordered-set's 28 whole-suite runs, 3 of semver's); and the coverage map selects tests by the
    changed lines, which should be the change's own.

    The empty lines go where the change ends (before the lines the unit and the mutant end with
    alike), else after the unit's last line. A place is taken only when the unit, so padded,
    compiles to the unpadded mutant's code but for positions (``identical_bytecode``, under the
    unit's ``prefix``): an empty line inside a string would change it and is refused. Cold and fast
    paths judge this same text (tests/corpus/test_fine_lines.py)."""
    a, b = _LINE.findall(unit), _LINE.findall(mutated)
    lost = len(a) - len(b)
    if lost <= 0 or not b or not b[-1].endswith(("\n", "\r")):
        return mutated
    suffix = 0
    while suffix < len(b) and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    at = len(b) - suffix
    newline = _LINE_END.search(b[at - 1] if at else b[0]).group()  # type: ignore[union-attr]
    for where in dict.fromkeys((at, len(b))):
        padded = "".join(b[:where]) + newline * lost + "".join(b[where:])
        if identical_bytecode((prefix or "") + padded, (prefix or "") + mutated):
            return padded
    return mutated


def _line_count(text: str) -> int:
    return len(_LINE_END.findall(text))


def _fine(name: str, examples: list[tuple]):
    """Register the fine operator ``name``; ``examples`` are (before, after[, label]) sources."""
    hints = {"role": "code", **({"extra_operators": [name]} if name in OPT_IN else {})}
    exs = [Example("python", e[0], e[1], e[2] if len(e) > 2 else DESTROYING, hints) for e in examples]

    def fn(spec: ArtifactSpec):
        return _mutants(spec, name)
    fn.__doc__ = _DOCS[name]
    return operator(name, "fine", ("python",), DESTROYING, engine="libcst", examples=exs,
                    opt_in=name in OPT_IN)(fn)


_DOCS = {
    "arithmetic": "Replace an arithmetic or bitwise operator (+ -, * /, // /, % /, ** *, << >>, & |, ^ &); drop a unary minus or ~.",
    "augmented_assignment": "Replace an augmented assignment's operator (+= -=, ...), or make it a plain assignment.",
    "comparison": "Replace a comparison: boundary and negation for orderings, == != (and == >=, == <=), is / is not, in / not in.",
    "number_constant": "A number constant off by one either way, or zero.",
    "string_constant": "A string constant emptied (an empty one becomes 'XX', a %-format string 'XX...XX'); docstrings are left alone.",
    "boolean_constant": "True <-> False.",
    "and_or": "and <-> or.",
    "remove_not": "Remove a 'not'.",
    "add_not": "Negate the test of a conditional expression or a while loop (an if's: negate_if).",
    "negate_if": "Negate the condition of an if (or elif). Opt-in: extra_operators (the two constant conditions of "
                 "condition_constant subsume it).",
    "remove_return_value": "'return x' -> 'return' (None).",
    "remove_statement": "Replace one simple statement (expression, assignment, raise, assert, del) with 'pass'.",
    "remove_handler": "Remove one exception handler (the try block then runs bare).",
    "broaden_handler": "'except SomeError' -> 'except Exception'.",
    "drop_argument": "Drop one argument of a call.",
    "drop_builtin_argument": "Drop one argument of a call of the builtin len or isinstance (it then raises TypeError "
                             "wherever it runs, as argument_to_none's None in its last argument does). Opt-in: "
                             "extra_operators.",
    "argument_to_none": "Replace one argument of a call with None.",
    "swap_method": "Swap a related method or builtin: upper/lower, lstrip/rstrip, startswith/endswith, find/rfind, split/rsplit, ..., min/max, any/all.",
    "zero_iterations": "Force a loop (for, while, comprehension) to iterate zero times.",
    "assign_none": "'x = value' -> 'x = None' (dunder names such as __all__ are left alone).",
    "condition_constant": "An if's (or elif's) condition made constant: 'cond' -> 'cond and False', 'cond or True'.",
    "break_continue": "'break' -> 'continue', 'break' -> 'return', 'continue' -> 'break'.",
    "ternary_constant": "A conditional expression's test made constant: 'a if c else b' -> 'a if (c) and False else b', "
                        "'a if (c) or True else b' (each arm forced; as mutmut).",
    "none_to_empty": "'x = None' -> 'x = \"\"' (also 'x: T = None'; as mutmut).",
    "identity": "'==' -> 'is' (equal values that are different objects tell them apart). Opt-in: extra_operators.",
    "ordering": "'!=' -> '<', '!=' -> '>' (the inequality made one-sided). Opt-in: extra_operators.",
    "unary": "A unary operator replaced: -x -> +x, +x -> -x, ~x -> not x, not x -> ~x.",
    "string_case": "A string literal upper-cased (lower-cased if it has no lower-case letter; not one with a backslash).",
    "lambda_none": "A lambda's body -> None.",
    "remove_case": "One case of a match statement removed (when it has more than one).",
    "dict_keyword": "A keyword of dict(a=...) renamed (a -> aXX, as mutmut).",
    "shallow_copy": "deepcopy(x) -> copy(x) (copy.deepcopy -> copy.copy).",
    "remove_decorator": "One decorator of a def or class removed (not typing's overload: ``remove_overload``).",
    "remove_overload": ("Opt-in: ``@overload`` removed from a typing overload stub. Off by default: on typical code "
                        "the implementation rebinds the name before anything calls the stub, so the mutant survives "
                        "every suite a reader would write (ordered-set: 5 survivors, each a whole-suite run), "
                        "though a module or test can tell it apart (tests/corpus/test_rt_overload_attacks.py)."),
}

_fine("arithmetic", [("y = a % 10\n", "y = a / 10\n"), ("y = -a\n", "y = a\n"), ("y = 'a' * 2\n", "y = 'a' / 2\n")])
_fine("augmented_assignment", [("t += v\n", "t -= v\n"), ("t += v\n", "t = v\n")])
_fine("comparison", [("ok = a == b\n", "ok = a >= b\n"), ("ok = a < b\n", "ok = a <= b\n"),
                     ("ok = a is None\n", "ok = a is not None\n"), ("ok = a not in b\n", "ok = a in b\n")])
_fine("number_constant", [("r = t % 10\n", "r = t % 11\n"), ("r = t % 10\n", "r = t % 0\n"),
                          ("r = 0.5\n", "r = 1.5\n"), ("r = 0\n", "r = 1\n"),
                          # the compiler folds 'if 0:' and 'if 1:' bodies alike: identical bytecode
                          ("def f():\n    if 0:\n        return 1\n    return 2\n",
                           "def f():\n    if 0:\n        return 2\n    return 2\n", EQUIVALENT)])
_fine("string_constant", [("s = 'abc'\n", "s = ''\n"), ("s = ''\n", "s = 'XX'\n"),
                          ("s = 'n=%d' % n\n", "s = 'XXn=%dXX' % n\n"),
                          ('def f():\n    """Doc."""\n', NO_MUTANT)])
_fine("boolean_constant", [("flag = True\n", "flag = False\n")])
_fine("and_or", [("ok = a and b\n", "ok = a or b\n")])
_fine("remove_not", [("ok = not a\n", "ok = a\n")])
_fine("add_not", [("y = a if b and c else d\n", "y = a if not (b and c) else d\n"),
                  ("while busy():\n    wait()\n", "while not busy():\n    wait()\n"),
                  ("if a and b:\n    go()\n", NO_MUTANT)])
_fine("remove_return_value", [("def f():\n    return 1\n", "def f():\n    return\n"),
                              ("def f():\n    return None\n", NO_MUTANT)])
_fine("remove_statement", [("def f(x):\n    check(x)\n    return x\n", "def f(x):\n    pass\n    return x\n"),
                           # bare constants are never removed; return is another operator's
                           ("def f():\n    return 1\n    'late note'\n", NO_MUTANT),
                           # code after return is dropped by the compiler: identical bytecode
                           ("def f():\n    return 1\n    g()\n", "def f():\n    return 1\n    pass\n", EQUIVALENT)])
_fine("remove_handler", [("try:\n    go()\nexcept ValueError:\n    pass\n", "if True:\n    go()\n\n\n")])  # lines_kept
_fine("broaden_handler", [("try:\n    go()\nexcept ValueError:\n    pass\n", "try:\n    go()\nexcept Exception:\n    pass\n")])
_fine("drop_argument", [("f(a, b)\n", "f(a)\n"), ("f(a, key=b)\n", "f(key=b)\n")])
_fine("argument_to_none", [("f(a, b)\n", "f(a, None)\n"), ("f(None)\n", NO_MUTANT)])
_fine("drop_builtin_argument", [("n = len(xs)\n", "n = len()\n"), ("ok = isinstance(x, int)\n", "ok = isinstance(int)\n"),
                                ("ok = isinstance(x, int)\n", "ok = isinstance(x)\n"),
                                ("def f(len):\n    return len(x)\n", NO_MUTANT)])
_fine("swap_method", [("s = t.upper()\n", "s = t.lower()\n"), ("n = min(a, b)\n", "n = max(a, b)\n"),
                      ("p = ','.split(t)\n", "p = ','.rsplit(t)\n", EQUIVALENT),
                      ("p = os.path.split(t)\n", NO_MUTANT),
                      ("p = t.split(',', 1)\n", "p = t.rsplit(',', 1)\n")])
_fine("zero_iterations", [("for x in xs:\n    go(x)\n", "for x in []:\n    go(x)\n"),
                          ("n = sum(x for x in xs)\n", "n = sum(x for x in [])\n"),
                          ("while busy():\n    wait()\n", "while False:\n    wait()\n")])
_fine("assign_none", [("x = a + 1\n", "x = None\n"), ("x = None\n", NO_MUTANT),
                      ("__all__ = ['f']\n", NO_MUTANT)])
_fine("condition_constant", [("if a:\n    go()\n", "if a and False:\n    go()\n"),
                             ("if a:\n    go()\n", "if a or True:\n    go()\n"),
                             ("if a or b:\n    go()\n", "if (a or b) and False:\n    go()\n"),
                             ('if __name__ == "__main__":\n    main()\n', NO_MUTANT)])
_fine("break_continue", [("def f(xs):\n    for x in xs:\n        if x:\n            continue\n        g(x)\n",
                          "def f(xs):\n    for x in xs:\n        if x:\n            break\n        g(x)\n"),
                         ("def f(xs):\n    for x in xs:\n        if x:\n            break\n    return 1\n",
                          "def f(xs):\n    for x in xs:\n        if x:\n            continue\n    return 1\n"),
                         ("def f(xs):\n    for x in xs:\n        if x:\n            break\n    return 1\n",
                          "def f(xs):\n    for x in xs:\n        if x:\n            return\n    return 1\n")])
_fine("ternary_constant", [("y = a if c else b\n", "y = a if (c) and False else b\n"),
                           ("y = a if c else b\n", "y = a if (c) or True else b\n"),
                           ("y = a if c or d else b\n", "y = a if (c or d) and False else b\n")])
_fine("none_to_empty", [("x = None\n", 'x = ""\n'), ("x: int | None = None\n", 'x: int | None = ""\n'),
                        ("x = a\n", NO_MUTANT), ("x: int\n", NO_MUTANT), ("__doc__ = None\n", NO_MUTANT)])
_fine("unary", [("y = -a\n", "y = +a\n"), ("y = ~a + 1\n", "y = (not a) + 1\n"), ("y = not a\n", "y = ~a\n"),
                ("y = not a == b\n", "y = ~(a == b)\n")])
_fine("string_case", [("s = 'Abc'\n", "s = 'ABC'\n"), ("s = 'ABC'\n", "s = 'abc'\n"), ("s = '12'\n", NO_MUTANT),
                      ("s = 'a\\n'\n", NO_MUTANT)])
_fine("lambda_none", [("f = lambda x: x + 1\n", "f = lambda x: None\n"), ("f = lambda: None\n", NO_MUTANT)])
_fine("remove_case", [("match x:\n    case 1:\n        y = 1\n    case _:\n        y = 2\n",
                       "match x:\n\n\n    case _:\n        y = 2\n"),      # the later lines kept (lines_kept)
                      ("match x:\n    case _:\n        y = 2\n", NO_MUTANT)])
_fine("dict_keyword", [("d = dict(a=1)\n", "d = dict(aXX=1)\n"), ("d = dict(x)\n", NO_MUTANT)])
_fine("shallow_copy", [("y = copy.deepcopy(x)\n", "y = copy.copy(x)\n"), ("y = deepcopy(x)\n", "y = copy(x)\n")])
_fine("remove_decorator", [("@cache\ndef f():\n    return 1\n", "\ndef f():\n    return 1\n"),
                           ("@dataclass\nclass C:\n    x: int\n", "\nclass C:\n    x: int\n")])
_fine("remove_overload", [("@overload\ndef f(x: int) -> int: ...\n\n\ndef f(x):\n    return x\n",
                            "\ndef f(x: int) -> int: ...\n\n\ndef f(x):\n    return x\n"),
                           ("@cache\ndef f():\n    return 1\n", NO_MUTANT)])
_fine("negate_if", [("if a and b:\n    go()\n", "if not (a and b):\n    go()\n"),
                    ('if __name__ == "__main__":\n    main()\n', NO_MUTANT)])
_fine("identity", [("ok = a == b\n", "ok = a is b\n"), ("ok = a != b\n", NO_MUTANT)])
_fine("ordering", [("ok = a != b\n", "ok = a < b\n"), ("ok = a != b\n", "ok = a > b\n"),
                   ("ok = a == b\n", NO_MUTANT)])
