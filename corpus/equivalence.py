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

import dis
import functools
import warnings
from itertools import zip_longest
from types import CodeType

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
        elif _const(x.argval) != _const(y.argval):
            return False
    return a.co_exceptiontable == b.co_exceptiontable


def identical_bytecode(original: str, mutant: str) -> bool:
    """True when both compile and their code objects match on everything behaviour depends on."""
    a, b = _compile(original), _compile(mutant)
    return a is not None and b is not None and _same(a, b)


def compiles(source: str) -> bool:
    return _compile(source) is not None
