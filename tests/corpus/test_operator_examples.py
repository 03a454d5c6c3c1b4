"""Every registered operator (v1, v2, fine, every kind) declares examples, cosmic-ray style:
(input, expected mutant, label). Each must hold: the operator, run on the input, produces the
expected mutant with the expected label (or, for NO_MUTANT, produces nothing)."""
import pytest

from corpus.model import DESTROYING, EQUIVALENT, PRESERVING
from corpus.operators import FAMILIES, NO_MUTANT, Example, Operator, operators

ALL = operators()


def _ids(op: Operator) -> str:
    return f"{op.family}:{op.name}:{'+'.join(op.kinds)}"


def check(op: Operator, ex: Example) -> None:
    got = {(c.decode() if c is not None else None): label for c, _, label in op.apply(ex.spec())}
    if ex.after is NO_MUTANT:
        assert not got, f"{op.name} should not apply to {ex.before!r}, made {list(got)!r}"
        return
    assert ex.after in got, f"{op.name}: {ex.before!r} should give {ex.after!r}; got {list(got)!r}"
    assert got[ex.after] == ex.label, f"{op.name}: {ex.after!r} labelled {got[ex.after]}, expected {ex.label}"


@pytest.mark.parametrize("op", ALL, ids=_ids)
def test_operator_examples_hold(op):
    assert op.examples(), f"{_ids(op)} declares no examples"
    for ex in op.examples():
        assert ex.kind in op.kinds and ex.label in (DESTROYING, PRESERVING, EQUIVALENT)
        check(op, ex)


def test_every_family_is_covered():
    assert set(FAMILIES) <= {op.family for op in ALL}  # an installed plug-in may add a family
    assert len([op for op in ALL if op.family == "fine"]) >= 15


def test_checker_catches_a_wrong_example():
    op = next(o for o in ALL if o.family == "fine" and o.name == "comparison")
    code = {"role": "code"}
    check(op, Example("python", "ok = a == b\n", "ok = a != b\n", hints=code))
    with pytest.raises(AssertionError):
        check(op, Example("python", "ok = a == b\n", "ok = a < b\n", hints=code))
    with pytest.raises(AssertionError):
        check(op, Example("python", "ok = a == b\n", "ok = a != b\n", PRESERVING, code))
    with pytest.raises(AssertionError):
        check(op, Example("python", "ok = a == b\n", NO_MUTANT, hints=code))


def test_fine_needs_the_requirement_to_be_behaviour():
    """Without role = "code" a fine mutant's 'destroying' label would not hold (a docstring rule
    is not broken by '+' -> '-'): the family does not apply."""
    op = next(o for o in ALL if o.family == "fine" and o.name == "comparison")
    check(op, Example("python", "ok = a == b\n", NO_MUTANT))
    check(op, Example("python", "ok = a == b\n", NO_MUTANT, hints={"role": "tests"}))


def test_operators_import_no_private_helper_of_another():
    import ast
    from pathlib import Path

    import corpus.operators as pkg
    for path in Path(pkg.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("corpus."):
                assert not [a.name for a in node.names if a.name.startswith("_")], (path.name, node.module)
