"""Hidden ground-truth oracle for geomkit-docstrings (never visible to the agent)."""
import doctest
import inspect
import math

import pytest

import geomkit.shapes
import geomkit.vectors
from geomkit import circle_area, dot, norm, normalize, rectangle_area, triangle_area

MODULES = [geomkit.shapes, geomkit.vectors]
RAISES_VALUE_ERROR = ["circle_area", "rectangle_area", "triangle_area", "dot", "normalize"]


def _public_functions():
    for module in MODULES:
        for name, func in vars(module).items():
            if inspect.isfunction(func) and func.__module__ == module.__name__ and not name.startswith("_"):
                yield name, func


def test_doctests_pass():
    for module in MODULES:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, report=False)
        assert result.failed == 0, module.__name__


def test_every_public_function_has_an_example():
    parser = doctest.DocTestParser()
    for name, func in _public_functions():
        examples = parser.get_examples(func.__doc__ or "")
        assert any(name + "(" in ex.source for ex in examples), f"{name} has no doctest example calling it"


def test_error_behaviour_documented():
    funcs = dict(_public_functions())
    for name in RAISES_VALUE_ERROR:
        assert "ValueError" in (funcs[name].__doc__ or ""), name
    for stale in ("rounded to two decimals", "count as 0", "are ignored"):
        for name, func in funcs.items():
            assert stale not in (func.__doc__ or ""), (name, stale)


def test_behaviour_unchanged():
    assert circle_area(1) == math.pi
    assert circle_area(2) == math.pi * 4
    assert rectangle_area(2, 3) == 6
    assert triangle_area(3, 4, 5) == 6.0
    assert dot((1, 2), (3, 4)) == 11
    assert norm((3, 4)) == 5.0
    assert normalize((3, 4)) == (0.6, 0.8)
    for call in (lambda: circle_area(-1), lambda: rectangle_area(-1, 3), lambda: rectangle_area(2, -3),
                 lambda: triangle_area(1, 1, 3), lambda: dot((1, 2), (1, 2, 3)), lambda: normalize((0, 0))):
        with pytest.raises(ValueError):
            call()
