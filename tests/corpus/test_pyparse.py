"""``corpus.pyparse.parse``: the corpus parses Python one thread at a time, because CPython 3.11's
AST constructor keeps its recursion depth in interpreter-wide state (a fresh-clone CI run failed
with "AST constructor recursion depth mismatch" while judging threads parsed at once)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support.scripted import REPO

# Four threads parse one module at once; a GC callback that sleeps hands the GIL to another thread
# in the middle of building a tree, the moment the race needs. Prints the number of SystemErrors.
STRESS = """
import ast, gc, sys, threading, time
from corpus.pyparse import parse
fn = ast.parse if sys.argv[1] == "bare" else parse
src = open(sys.argv[2]).read()
gc.set_threshold(50)
gc.callbacks.append(lambda phase, info: time.sleep(0))
errors = []
def work():
    for _ in range(20):
        try:
            fn(src)
        except SystemError as exc:
            errors.append(exc)
            return
threads = [threading.Thread(target=work) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(len(errors))
"""


def _stress(which: str) -> int:
    out = subprocess.run([sys.executable, "-c", STRESS, which, str(REPO / "corpus" / "incremental.py")],
                         cwd=REPO, capture_output=True, text=True, timeout=300, check=True)
    return int(out.stdout.strip())


def test_threads_parsing_through_the_lock_never_raise():
    assert _stress("locked") == 0


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the constructor's depth is per parse from 3.12 (gh-106905)")
def test_the_stress_provokes_the_race_on_a_bare_parse():
    """The witness that the stress above can fail: the same threads on ``ast.parse`` itself."""
    assert _stress("bare") > 0


# Every way to reach CPython's AST constructor from Python: ``ast.parse`` and ``ast.literal_eval``
# (which parses), however imported, and ``compile`` with ``PyCF_ONLY_AST``. ``compile`` of a tree
# (``obj2ast``) counts depth per thread in 3.11 and is safe.
_TREE_BUILDERS = {"parse", "literal_eval", "PyCF_ONLY_AST"}


def _tree_builders(tree: ast.AST, rel: Path) -> list[str]:
    """Where ``tree`` reaches the AST constructor other than through ``corpus.pyparse.parse``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _TREE_BUILDERS and \
                isinstance(node.value, ast.Name) and node.value.id == "ast":
            found.append(f"{rel}:{node.lineno}: ast.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "ast":
            found += [f"{rel}:{node.lineno}: from ast import {a.name}" for a in node.names
                      if a.name in _TREE_BUILDERS or a.name == "*"]
        elif isinstance(node, ast.Import):
            found += [f"{rel}:{node.lineno}: import ast as {a.asname}" for a in node.names
                      if a.name == "ast" and a.asname not in (None, "ast")]
    return found


def test_no_corpus_module_builds_an_ast_but_through_pyparse():
    """Catalogue gates (``corpus/catalogue``) are scripts run in their own process, one thread.
    The lock only orders the parses that take it: one unlocked parse on another thread makes a
    locked one fail (tests/corpus/test_pyparse.py's stress shows ``ast.literal_eval`` does)."""
    offenders = []
    for path in sorted((REPO / "corpus").rglob("*.py")):
        rel = path.relative_to(REPO)
        if rel.parts[1] == "catalogue" or rel == Path("corpus/pyparse.py"):
            continue
        offenders += _tree_builders(ast.parse(path.read_text(), str(rel)), rel)
    assert offenders == []


@pytest.mark.parametrize("source", ["import ast\nast.literal_eval('1')", "from ast import parse\nparse('x')",
                                    "from ast import literal_eval", "import ast as a\na.parse('x')",
                                    "import ast\ncompile('x', 'f', 'exec', ast.PyCF_ONLY_AST)", "from ast import *"])
def test_the_guard_sees_every_spelling_of_a_parse(source):
    """Red team (r27): the guard looked for ``ast.parse`` only, so ``ast.literal_eval`` or
    ``from ast import parse`` on a judging thread would have raced the lock unseen."""
    assert _tree_builders(ast.parse(source), Path("corpus/x.py"))


def test_an_unlocked_literal_eval_on_another_thread_breaks_a_locked_parse():
    """Why the guard covers ``literal_eval``: it is an ``ast.parse``, and a locked parse racing it fails."""
    out = subprocess.run([sys.executable, "-c", STRESS_MIXED, str(REPO / "corpus" / "incremental.py")],
                         cwd=REPO, capture_output=True, text=True, timeout=300, check=True)
    if sys.version_info < (3, 12):
        assert int(out.stdout.strip()) > 0


# Two threads parse through the lock while two call ast.literal_eval, which takes no lock.
STRESS_MIXED = """
import ast, gc, sys, threading, time
from corpus.pyparse import parse
src = open(sys.argv[1]).read()
gc.set_threshold(50)
gc.callbacks.append(lambda phase, info: time.sleep(0))
errors = []
def work(fn):
    for _ in range(20):
        try:
            fn()
        except SystemError as exc:
            errors.append(exc)
            return
lit = "[" + ",".join(["(1, 2.5, 'x', {3: 4})"] * 300) + "]"
threads = [threading.Thread(target=work, args=(lambda: parse(src),)) for _ in range(2)]
threads += [threading.Thread(target=work, args=(lambda: ast.literal_eval(lit),)) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
print(len(errors))
"""


# A GC callback parses while the thread is inside a parse: with a plain lock the thread waited on
# itself forever. Prints what the nested parses raised.
REENTRANT = """
import gc, sys
from corpus.pyparse import parse
src = open(sys.argv[1]).read()
gc.set_threshold(50)
seen = set()
def cb(phase, info):
    if phase == "start":
        try:
            parse("x = 1")
        except Exception as exc:
            seen.add(type(exc).__name__)
gc.callbacks.append(cb)
for _ in range(5):
    parse(src)
print(" ".join(sorted(seen)))
"""


def test_a_parse_inside_a_parse_on_one_thread_raises_instead_of_hanging():
    """Red team (r27): the lock is not re-entrant, so a nested parse deadlocked its own thread."""
    try:
        out = subprocess.run([sys.executable, "-c", REENTRANT, str(REPO / "corpus" / "incremental.py")],
                             cwd=REPO, capture_output=True, text=True, timeout=120, check=True)
    except subprocess.TimeoutExpired:
        pytest.fail("a parse inside a parse on the same thread waited on the lock forever")
    assert out.stdout.split() == ["ReentrantParse"], out.stderr
