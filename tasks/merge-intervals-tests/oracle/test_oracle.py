"""Hidden ground-truth oracle for merge-intervals-tests (never visible to the agent)."""
import importlib.util
from pathlib import Path

import pytest

import spans
import spans.merge


def make(sort=True, touching=True, keep_max=True, copy=True, validate=True):
    def merge_intervals(intervals):
        items = intervals if (not copy and isinstance(intervals, list)) else list(intervals)
        if validate:
            for a, b in items:
                if a > b:
                    raise ValueError("start after end")
        if sort:
            items.sort()
        out = []
        for a, b in items:
            if out and (a <= out[-1][1] if touching else a < out[-1][1]):
                out[-1] = (out[-1][0], max(out[-1][1], b) if keep_max else b)
            else:
                out.append((a, b))
        return out
    return merge_intervals


MUTANTS = {
    "assumes-sorted-input": make(sort=False),
    "touching-not-merged": make(touching=False),
    "contained-shrinks-end": make(keep_max=False),
    "sorts-argument-in-place": make(copy=False),
    "accepts-reversed": make(validate=False),
}


def run_suite(impl=None):
    saved = {m: m.merge_intervals for m in (spans, spans.merge)}
    try:
        if impl is not None:
            for m in saved:
                m.merge_intervals = impl
        spec = importlib.util.spec_from_file_location("suite_for_oracle", Path("tests/test_merge.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        count, failing = 0, []
        for name, func in sorted(vars(module).items()):
            if name.startswith("test_") and callable(func):
                count += 1
                try:
                    func()
                except (Exception, pytest.fail.Exception, pytest.skip.Exception):
                    failing.append(name)
        return count, failing
    finally:
        for m, f in saved.items():
            m.merge_intervals = f


def test_model_agrees_with_real_package():
    real, model = spans.merge.merge_intervals, make()
    for case in ([], [(1, 3), (2, 4)], [(5, 8), (1, 3), (8, 9)], [(1, 10), (2, 3)], [(0, 0), (0, 0)]):
        assert real(list(case)) == model(list(case))
    assert real(spans.load_intervals("data/bookings.txt")) == [(480, 500), (540, 660), (720, 780)]


def test_suite_is_green_on_the_real_package():
    count, failing = run_suite()
    assert count >= 5 and failing == []


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_suite_catches_mutant(mutant):
    _, failing = run_suite(MUTANTS[mutant])
    assert failing, f"the repaired suite does not catch {mutant}"
