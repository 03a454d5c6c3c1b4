"""Visible acceptance test for geomkit-docstrings (the agent can see and run this)."""
import doctest

import pytest

import geomkit.shapes
import geomkit.vectors


@pytest.mark.parametrize("module", [geomkit.shapes, geomkit.vectors], ids=lambda m: m.__name__)
def test_docstring_examples_pass(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.attempted > 0
    assert result.failed == 0
