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


def test_no_corpus_module_calls_ast_parse_but_pyparse():
    """Catalogue gates (``corpus/catalogue``) are scripts run in their own process, one thread."""
    offenders = []
    for path in sorted((REPO / "corpus").rglob("*.py")):
        rel = path.relative_to(REPO)
        if rel.parts[1] == "catalogue" or rel == Path("corpus/pyparse.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(rel))):
            if isinstance(node, ast.Attribute) and node.attr == "parse" and \
                    isinstance(node.value, ast.Name) and node.value.id == "ast":
                offenders.append(f"{rel}:{node.lineno}")
    assert offenders == []
