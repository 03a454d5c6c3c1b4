"""Which one function a mutant changes, read from compiled code: ``changed_function``. Below
both the coverage map (which selects that function's tests) and the fast pytest path (which
swaps that function's code into a pre-collected session), so neither imports the other."""
from __future__ import annotations

import functools
import threading
from types import CodeType

_CO_OPTIMIZED = 0x1  # inspect.CO_OPTIMIZED: a function's code object


# warnings.catch_warnings changes process-wide state: the workers' compiles take turns
_WARNINGS = threading.Lock()


# the conforming module and, per worker thread, the mutant in hand (the coverage map's scopes,
# changed_function, the swap's code objects and the mutant's bytecode file all compile it)
@functools.lru_cache(maxsize=8)
def compiled_noting_warnings(text: str) -> tuple[CodeType, bool]:
    """``text`` compiled as the import system compiles a module (``exec``, ``dont_inherit``, no
    optimisation; the file name is ``<artifact>``), and whether compiling it warned (a
    SyntaxWarning such as '"is" with a literal', a DeprecationWarning for an invalid escape).
    The warnings are recorded, never shown: a mutant's, not news."""
    import warnings
    with _WARNINGS, warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        code = compile(text, "<artifact>", "exec", dont_inherit=True, optimize=0)
    return code, bool(seen)


def _compiled(text: str) -> CodeType:
    return compiled_noting_warnings(text)[0]


def _one_changed_code(a: CodeType, b: CodeType) -> tuple[CodeType, CodeType] | None:
    """(a's nested code object, b's) when the two differ in exactly one constant, a code object in both,
    and in nothing else but positions (a def's end column is in its parent's line table; a shifted line
    still shows, as another function's co_firstlineno); None otherwise."""
    if len(a.co_consts) != len(b.co_consts) or a.replace(co_consts=b.co_consts, co_linetable=b.co_linetable) != b:
        return None
    diff = [i for i, (x, y) in enumerate(zip(a.co_consts, b.co_consts)) if x != y]
    if len(diff) != 1 or not isinstance(a.co_consts[diff[0]], CodeType) or \
            not isinstance(b.co_consts[diff[0]], CodeType):
        return None
    return a.co_consts[diff[0]], b.co_consts[diff[0]]


def changed_function(original: str, mutant: bytes) -> str | None:
    """The qualified name of the one function (top-level, or a method of a top-level class,
    nested classes included) whose code object is all the mutant changes; None when the change
    is anything else (module or class-body code, several functions, a shifted line, a code
    object nested in a function's locals - its parent function is named then)."""
    try:
        a = _compiled(original)
        b = _compiled(mutant.decode("utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return None
    while True:
        inner = _one_changed_code(a, b)
        if inner is None:
            return None
        a, b = inner
        if a.co_qualname != b.co_qualname or "<" in a.co_qualname:
            return None
        if a.co_flags & _CO_OPTIMIZED:
            return a.co_qualname


def _module_level_lambdas(code: CodeType) -> list[CodeType]:
    """The ``<lambda>`` code objects reached from ``code`` through module and class bodies only
    (never through a function: a lambda inside a function is made anew at each call)."""
    found: list[CodeType] = []
    for c in code.co_consts:
        if isinstance(c, CodeType):
            if c.co_name == "<lambda>":
                found.append(c)
            elif not c.co_flags & _CO_OPTIMIZED:
                found += _module_level_lambdas(c)
    return found


def has_module_level_lambda(source: str) -> bool:
    """Does ``source`` define a lambda in module or class-body code (``changed_lambda``'s kind)?"""
    try:
        return bool(_module_level_lambdas(_compiled(source)))
    except (SyntaxError, ValueError):
        return False


def changed_lambda(original: str, mutant: bytes) -> tuple[CodeType, CodeType] | None:
    """(the conforming code object, the mutant's) of the one lambda whose code is all the mutant
    changes, when that lambda is written in module or class-body code (issue 35: semver's table
    ``_MATCH = {"<": lambda c: c < 0, ...}``); None otherwise. As in ``changed_function``,
    every enclosing code object must be equal but for that one constant (no other module,
    class-body, default or line change), and the lambda keeps its name and has no free
    variables. The code objects are compiled with the file name ``<artifact>``."""
    try:
        a = _compiled(original)
        b = _compiled(mutant.decode("utf-8"))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return None
    while True:
        inner = _one_changed_code(a, b)
        if inner is None:
            return None
        a, b = inner
        if a.co_qualname != b.co_qualname:
            return None
        if a.co_name == "<lambda>":
            return (a, b) if not a.co_freevars and not b.co_freevars and b.co_name == "<lambda>" else None
        if a.co_flags & _CO_OPTIMIZED:
            return None         # inside a function: changed_function's kind, or not a swap at all
