"""The tier table (tests/conftest.py) names tests that exist, and classifies node ids as it says."""
from __future__ import annotations

import ast
from pathlib import Path

import conftest as tiers

ROOT = Path(__file__).resolve().parents[1]


def _defined_tests(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text()))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name.startswith("test_")}


def test_every_entry_names_an_existing_file_and_test():
    stale = [f for f in tiers.SLOW_FILES if not (ROOT / f).is_file()]
    for entry in [*tiers.FAST_IN_SLOW_FILES, *tiers.SLOW_TESTS]:
        path, _, name = entry.partition("::")
        if not (ROOT / path).is_file() or name.split("[")[0] not in _defined_tests(ROOT / path):
            stale.append(entry)
    assert not stale, f"tier entries naming no test (renamed or moved? update tests/conftest.py): {stale}"


def test_exceptions_to_a_slow_file_are_in_a_slow_file():
    assert all(e.partition("::")[0] in tiers.SLOW_FILES for e in tiers.FAST_IN_SLOW_FILES)


def test_classification():
    browser = "tests/viewer/test_browser.py::"
    assert tiers.is_slow(browser + "test_one_cell_page_per_outcome_kind[amplified]")
    assert not tiers.is_slow(browser + "test_overview_from_the_file_system")
    assert tiers.is_slow("tests/harness/test_ray_cluster.py::test_anything[x]")
    assert not tiers.is_slow("tests/harness/test_pinned_outcomes.py::test_outcomes_per_cell_key_are_pinned[quickstart]")
    slow_test = next(iter(tiers.SLOW_TESTS))
    assert tiers.is_slow(slow_test + "[anthropic]") and tiers.is_slow(slow_test)
    assert not tiers.is_slow(slow_test + "_and_more")


def test_xdist_groups_keep_a_file_together_and_the_ray_files_on_one_worker():
    assert tiers.xdist_group("tests/analysis/test_wilson.py::test_x[1]") == "tests/analysis/test_wilson.py"
    assert tiers.xdist_group("tests/analysis/test_wilson.py::test_y") == "tests/analysis/test_wilson.py"
    ray = {tiers.xdist_group(f + "::test_z") for f in ("tests/harness/test_ray_cluster.py",
                                                       "tests/harness/test_executors.py")}
    assert len(ray) == 1 and all((ROOT / f).is_file() for f in tiers.SERIAL_GROUPS)
    split = "tests/harness/test_judge_agreement.py::test_judged_verdict_equals_plain_pytest"
    assert tiers.xdist_group(split + "[a]") != tiers.xdist_group(split + "[b]")
    assert all((ROOT / f).is_file() for f in tiers.SPLIT_FILES)
