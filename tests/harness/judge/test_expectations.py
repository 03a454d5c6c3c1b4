"""Expectations are data (harness.judge.expectations): the taint rules; the corpus-wide check and the
red-team cases are in tests/harness/judge/test_evidence_attacks.py."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.judge.expectations import check_source, workspace_modules

PKG = frozenset({"pkg"})


def test_a_fixture_returning_a_workspace_object_taints_its_users():
    src = ("import pytest\nfrom pkg import parse, Range\n@pytest.fixture\ndef want():\n    return Range(1, 3)\n"
           "def test_x(want):\n    assert parse('1-3') == want\n")
    (v,) = check_source(src, PKG, "t.py")
    assert v.line == 7 and "want" in v.culprit and str(v).startswith("t.py:7:")


def test_taint_is_per_function():
    src = ("from pkg import parse, Range\ndef test_a():\n    x = Range(1, 3)\n    assert x.start == 1\n"
           "def test_b():\n    x = (1, 3)\n    assert parse('1-3') == x\n")
    assert check_source(src, PKG) == []


@pytest.mark.parametrize("src", [
    "import pytest\nfrom pkg import approx_value\ndef test_x():\n    assert 1.0 == pytest.approx(approx_value())\n",
    "import pytest\nfrom pkg import Warn\ndef test_x():\n    with pytest.warns(Warn):\n        pass\n",
    "from pkg import parse, Range\nasync def test_x():\n    assert parse('1') == Range(1, 1)\n",
])
def test_other_expectation_forms_are_refused(src):
    assert check_source(src, PKG)


def test_workspace_modules_are_the_packages_and_modules_but_tests(tmp_path: Path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    (tmp_path / "tool.py").write_text("")
    (tmp_path / "conftest.py").write_text("")
    (tmp_path / "data").mkdir()
    assert workspace_modules(tmp_path) == frozenset({"pkg", "tool"})
