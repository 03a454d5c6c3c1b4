"""The cheap equivalence check for Python mutants: identical bytecode after the change.

Two sources are *bytecode-identical* when compiling both gives the same code objects, compared
recursively on everything that decides behaviour (the instruction stream with every argument
resolved: constants, names, jump targets; local and free variables, flags, argument counts,
exception tables) and on nothing that does not (line numbers, column positions, the file name,
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
from types import CodeType

# everything but the instruction bytes and the constant table, which are compared through the
# resolved instruction stream (so a constant left unreferenced by dead-code elimination, or a
# shifted constant index, does not count as a difference)
_FIELDS = ("co_varnames", "co_freevars", "co_cellvars", "co_flags", "co_argcount",
           "co_posonlyargcount", "co_kwonlyargcount", "co_exceptiontable", "co_name", "co_qualname")


def _key(obj):
    """A comparable, position-free fingerprint of a code object or a constant."""
    if isinstance(obj, CodeType):
        ops = tuple((ins.opname, _key(ins.argval)) for ins in dis.get_instructions(obj))
        return ("code", tuple(getattr(obj, f, None) for f in _FIELDS), ops)
    if isinstance(obj, (tuple, frozenset)):
        items = [_key(x) for x in obj]
        return (type(obj).__name__, tuple(sorted(items, key=repr) if isinstance(obj, frozenset) else items))
    # type name + repr: keeps 1, 1.0, True and -0.0 / 0.0 apart (== would not)
    return (type(obj).__name__, repr(obj))


def bytecode_fingerprint(source: str):
    """The fingerprint of ``source``'s module code object, or None if it does not compile."""
    try:
        code = compile(source, "<artifact>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return None
    return _key(code)


def identical_bytecode(original: str, mutant: str) -> bool:
    """True when both compile and their code objects match on everything behaviour depends on."""
    a = bytecode_fingerprint(original)
    return a is not None and a == bytecode_fingerprint(mutant)


def compiles(source: str) -> bool:
    try:
        compile(source, "<artifact>", "exec", dont_inherit=True, optimize=0)
    except (SyntaxError, ValueError):
        return False
    return True
