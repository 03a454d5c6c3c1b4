"""Reviewer rv32 (a helper that wrote none of it) on b8aa228's "an interval set while frozen is the tree's"
(subject_rpc ``_switch_interval``, ``Schedule._thaw``, ``_apply_limits``).

A change is recognised only as a live interval that differs from the one the freeze set. With a fixed 1.0, a tree that
set exactly 1.0 inside a callback of its own thread was indistinguishable: the subject reported the saved interval and
the thaw restored it, where plain pytest keeps 1.0 (a wrong tree passed; older than b8aa228). And a write of the
test's after the tree's in the same freeze went only into the saved state while the live interval stayed the tree's:
``_check`` read the tree's back and faulted (a regression of b8aa228). Both closed: the freeze raises to
``FROZEN_INTERVAL`` plus a random part (``_raised``), and the test's write resets the live interval (``_apply_limits``)."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain
from tests.harness.judge.test_atk28_attacks import _RESTORE, _case

HONEST = {
    # the tree sets the interval to FROZEN_INTERVAL inside a callback of its own thread: the test reads it back
    "the_tree_sets_the_frozen_interval_in_a_callback": _case(
        "    try:\n        pkg.in_thread(lambda: pkg.set_interval(1.0))\n"
        "        assert sys.getswitchinterval() == 1.0\n" + _RESTORE),
    # the tree sets one interval, then the test another, in the same callback of a tree thread: the test's stands
    "the_tests_interval_after_the_trees_in_a_callback": _case(
        "    try:\n        pkg.in_thread(lambda: (pkg.set_interval(0.002), sys.setswitchinterval(0.003)))\n"
        "        assert sys.getswitchinterval() == 0.003\n        assert pkg.interval() == 0.003\n" + _RESTORE),
}
LENIENT = {
    # the same tree, a test that wrongly expects the interval unchanged: plain pytest reads 1.0
    "the_frozen_interval_the_tree_sets_in_a_callback_is_undone": _case(
        "    try:\n        pkg.in_thread(lambda: pkg.set_interval(1.0))\n"
        "        assert sys.getswitchinterval() == 0.005\n        assert pkg.interval() == 0.005\n" + _RESTORE),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_tree_keeps_the_interval_it_set_in_a_callback(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", sorted(LENIENT))
def test_a_wrong_tree_is_not_passed_by_an_interval_equal_to_the_freezes(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)
