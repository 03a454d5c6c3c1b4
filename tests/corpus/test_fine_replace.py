"""corpus/operators/fine.py ``_replaced``: a statement-level mutant's unit rebuilt along the changed node's path
prints exactly as libcst's ``deep_replace`` of the whole unit prints (the mutants' bytes are the corpus's output, and
a refactor never changes outcomes). Checked on a quarter of the statement-level sites of two bundled benchmark modules
and of fine.py itself, and on the sentinel and foreign-node fallbacks."""
from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from corpus.operators import fine

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "corpus/examples/ordered-set/ordered_set/__init__.py", ROOT / "corpus/examples/semver/semver.py",
           ROOT / "corpus/operators/fine.py"]
STRIDE = 4  # every 4th site of each (the whole corpus's mutants were compared by sha256 when it was written:
#             docs/mutation.md, "2026-12-07, 08:14-09:35")


def _statement_sites(text: str):
    analysis = fine._analyse(text)
    mod, _, sites, *_ = analysis
    for op, found in sites.items():
        for site in found:
            node, new = site[1], site[2]
            if not (analysis[4].get(id(node)) is not None and isinstance(new, cst.BaseExpression)):
                yield analysis, op, site


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_a_unit_rebuilt_along_the_path_prints_as_deep_replace_prints(path):
    text = path.read_text()
    n = 0
    for analysis, op, site in list(_statement_sites(text))[::STRIDE]:
        mod = analysis[0]
        _, _, indent, unit = fine._unit_span(text, analysis, site)
        ours = fine._replaced(unit, site[1], site[2], analysis[-1])
        theirs = unit.deep_replace(site[1], site[2])
        assert ours.deep_equals(theirs), (op, site[3])
        assert fine._code_at(mod, ours, indent or ()) == fine._code_at(mod, theirs, indent or ()), (op, site[3])
        n += 1
    assert n > 10  # the sources hold statement-level sites: the check is not vacuous


def test_a_removal_and_a_node_outside_the_unit_go_deep_replaces_way():
    mod = cst.parse_module("def f(x):\n    a = 1\n    b = 2\n    return a + b\n")
    func = mod.body[0]
    stmt = func.body.body[1]
    removed = fine._replaced(func, stmt, cst.RemovalSentinel.REMOVE, {})
    assert cst.Module(body=[removed]).code == "def f(x):\n    a = 1\n    return a + b\n"
    other = cst.parse_module("y = 3\n").body[0]
    assert fine._replaced(func, other, other, {}).deep_equals(func)


def test_only_the_path_is_rebuilt():
    mod = cst.parse_module("def f(x):\n    if x:\n        return 1\n    return 2\n")
    func = mod.body[0]
    ret = func.body.body[0].body.body[0].body[0]
    new = ret.with_changes(value=cst.Integer("5"))
    out = fine._replaced(func, ret, new, {})
    assert cst.Module(body=[out]).code == "def f(x):\n    if x:\n        return 5\n    return 2\n"
    assert out.body.body[1] is func.body.body[1]  # the sibling off the path is the same object
