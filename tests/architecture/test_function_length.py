"""No function in harness/ (recursively) is longer than 60 lines (issue 22; the PREAMBLE's style).

A function is measured from its ``def`` line to its last line, nested functions included. The one
named exception is the sandboxed runtime's encoder table; ``STILL_LONG`` lists the functions not
split yet: it may only shrink (a listed function that is now short, or gone, fails the test
until it is removed from the list)."""
from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "harness"
MAX_LINES = 60

# the sandboxed runtime's value encoder is one dispatch table over every type the subject may
# return; it runs inside the judged run, where a call per branch costs on every observation, and
# its branches read best side by side
EXCEPTION = {"probe_runtime._enc"}

# not split yet (issue 22): file stem and qualified name -> lines when listed. Only shrinks.
STILL_LONG: dict[str, int] = {}


def _functions(path: Path):
    tree = ast.parse(path.read_text(), str(path))

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                yield name, child.end_lineno - child.lineno + 1
                yield from walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                yield from walk(child, f"{prefix}{child.name}.")
            else:
                yield from walk(child, prefix)
    yield from walk(tree, "")


def _lengths() -> dict[str, int]:
    out = {}
    for path in sorted(HARNESS.rglob("*.py")):
        for name, n in _functions(path):
            out[f"{path.stem}.{name}"] = max(n, out.get(f"{path.stem}.{name}", 0))
    return out


def test_no_function_in_harness_is_longer_than_60_lines():
    lengths = _lengths()
    long = {k: n for k, n in lengths.items() if n > MAX_LINES and k not in EXCEPTION}
    unlisted = {k: n for k, n in long.items() if k not in STILL_LONG}
    assert not unlisted, f"functions over {MAX_LINES} lines (split them into named phases): {unlisted}"


def test_the_list_of_long_functions_only_shrinks():
    lengths = _lengths()
    stale = {k: lengths.get(k) for k in STILL_LONG if lengths.get(k, 0) <= MAX_LINES}
    assert not stale, f"now {MAX_LINES} lines or fewer (or gone): remove them from STILL_LONG: {stale}"
    grown = {k: (lengths[k], n) for k, n in STILL_LONG.items() if lengths[k] > n}
    assert not grown, f"listed functions grew (now, listed): {grown}"
    assert all(lengths.get(k, 0) > MAX_LINES for k in EXCEPTION), "the named exception is no longer long"
