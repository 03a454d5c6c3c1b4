"""Parsing Python source into ``ast`` trees, one thread at a time.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state (gh-106905):
two threads that convert parse trees at once can raise ``SystemError: AST constructor recursion
depth mismatch``. The corpus judges mutants on threads (``corpus.measure``, ``corpus.fast_pytest``),
and a fresh-clone CI run failed this way, so every parse in the corpus goes through ``parse``.
Compiling source text to code (``compile(text, ...)``) builds no Python-level tree and needs no lock.
The lock only orders the parses that take it: an ``ast.parse`` or ``ast.literal_eval`` elsewhere
in the process on another thread (libcst's ``Integer.evaluated_value`` and the like, 3.11's
``traceback`` caret anchors) still makes a locked parse fail, so judging threads must not call
them (tests/corpus/test_pyparse.py checks the corpus's own modules for every spelling). A parse
started on a thread that is already parsing (a GC callback or finalizer that parses) would wait
on the lock forever; ``parse`` raises ``ReentrantParse`` instead (CPython 3.11 fails such a
nested parse anyway, with the same SystemError).
"""
from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
_PARSING = threading.local()


class ReentrantParse(RuntimeError):
    """``parse`` called on a thread while that thread is inside ``parse``: it would deadlock."""


def parse(source: str | bytes, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` under the corpus's one parse lock; raises what it raises,
    and ``ReentrantParse`` rather than waiting forever on a lock its own thread holds."""
    if getattr(_PARSING, "inside", False):
        raise ReentrantParse(f"{filename}: a parse started inside a parse on the same thread "
                             "(a GC callback or finalizer?); the parse lock is not re-entrant")
    # the flag is up before the lock is taken and down after it is released: a GC callback that runs
    # between the two (setting the flag can allocate) is inside this parse too, and must raise, not wait
    _PARSING.inside = True
    try:
        with _LOCK:
            return ast.parse(source, filename)
    finally:
        _PARSING.inside = False
