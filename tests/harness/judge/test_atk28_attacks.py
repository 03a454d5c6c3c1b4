"""Red team atk28: the switch interval, the freeze and the pulse (subject_rpc ``_switch_interval``, ``_frozen``,
``_apply_limits``, ``Schedule._freeze``).

The subject freezes the tree's threads with the switch interval raised to ``FROZEN_INTERVAL`` while the driver runs
the test, and reports the interval the freeze saved; the test's ``sys.setswitchinterval`` during a freeze is kept for
the thaw. These trees probe where the raised interval, or the freeze itself, still reaches code plain pytest runs at
the tree's interval: a tree thread that runs the tree's code inside a callback of the test (a nested request runs
while that thread holds the channel), a tree thread that sets the interval itself (during a give, as it ends), an
interval the tree raised past ``FROZEN_INTERVAL``, and the test's own threads racing a tree thread. Each is judged and
run under plain pytest, cold and warm (the ``executor`` fixture); the verdicts must agree. Every premise leans on
wide margins (a loop of millions of iterations against a 10 ms sleep), never on tight timing. Left out, their premise
flaky under load (each failed once in several runs, cause not found): a tree thread that sets the interval and ends
during the test's sleep (honest), and a tree interval of 30 s raised before its thread starts, with the thread kept
out of the test's busy loop (both ways)."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_TREE = ("import sys, threading, time\nn = 0\n\n\n"
         "def start(delay=0.01):\n    def run():\n        global n\n        time.sleep(delay)\n        n = 1\n\n"
         "    threading.Thread(target=run, daemon=True).start()\n\n\n"
         "def start_setter(v):\n    def run():\n        time.sleep(0.01)\n        sys.setswitchinterval(v)\n\n"
         "    threading.Thread(target=run, daemon=True).start()\n\n\n"
         "def start_huge():\n    sys.setswitchinterval(30.0)\n    start()\n\n\n"
         "def interval():\n    return sys.getswitchinterval()\n\n\n"
         "def set_interval(v):\n    sys.setswitchinterval(v)\n\n\n"
         "def get():\n    return n\n\n\n"
         "def in_thread(cb):\n    out = []\n    t = threading.Thread(target=lambda: out.append(cb()))\n"
         "    t.start()\n    t.join()\n    return out[0]\n\n\n"
         "def call(cb):\n    return cb()\n\n\n"
         "def busy_then_get():\n    start()\n    x = 0\n    for i in range(3_000_000):\n        x += i\n    return n\n")
_BUSY = "    x = 0\n    for i in range(6_000_000):\n        x += i\n"
_BUSY2 = "        x = 0\n        for i in range(6_000_000):\n            x += i\n"
_HEAD = "import sys, threading, time\nimport pkg\n\n\ndef test_f():\n"
_RESTORE = "    finally:\n        sys.setswitchinterval(0.005)\n"


def _case(body: str) -> tuple:
    return (_TREE, _HEAD + body)


HONEST = {
    # the tree reads the interval in a call made by the test's callback from a tree thread (that thread holds the
    # channel: is the nested call run at the freeze's interval?)
    "interval_read_inside_a_callback_of_a_tree_thread": _case(
        "    assert pkg.in_thread(lambda: pkg.interval()) == 0.005\n"),
    # the tree starts a thread, then loops, inside a callback of a tree thread: the new thread runs meanwhile, as under
    # plain pytest (a 10 ms sleep against 3,000,000 iterations at 5 ms)
    "a_tree_thread_runs_during_the_trees_busy_loop_in_a_callback": _case(
        "    assert pkg.in_thread(lambda: pkg.busy_then_get()) == 1\n"),
    # the same through a callback the tree calls in the request's own thread (the main thread), a tree thread alive
    "interval_read_inside_a_callback_of_the_main_thread": _case(
        "    pkg.start(delay=30)\n    assert pkg.call(lambda: pkg.interval()) == 0.005\n"),
    "a_tree_thread_runs_during_the_trees_busy_loop_in_a_callback_of_the_main_thread": _case(
        "    assert pkg.call(lambda: pkg.busy_then_get()) == 1\n"),
    "a_tree_thread_runs_during_the_trees_busy_loop_in_a_callback_of_the_main_thread_a_thread_alive": (
        _TREE.replace("def start(", "def other():\n    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
                      "\n\ndef start("),
        _HEAD + "    pkg.other()\n    assert pkg.call(lambda: pkg.busy_then_get()) == 1\n"),
    # the tree sets the interval inside a callback of its own thread: the test reads it back
    "the_tree_sets_the_interval_in_a_callback": _case(
        "    try:\n        pkg.in_thread(lambda: pkg.set_interval(0.002))\n"
        "        assert sys.getswitchinterval() == 0.002\n" + _RESTORE),
    # the same during the test's busy loop (the pulse gives)
    "a_tree_thread_sets_the_interval_during_a_busy_loop": _case(
        "    try:\n        pkg.start_setter(0.003)\n" + _BUSY2
        + "        assert pkg.interval() == 0.003\n" + _RESTORE),
    # the test's own thread runs during its busy loop while a tree thread is alive (frozen, asleep)
    "the_tests_thread_runs_during_a_busy_loop_with_a_tree_thread_alive": _case(
        "    pkg.start(delay=30)\n    seen = []\n"
        "    threading.Thread(target=lambda: (time.sleep(0.01), seen.append(1)), daemon=True).start()\n"
        + _BUSY + "    assert seen == [1]\n"),
    # a tree thread started inside a callback of a tree thread runs during the test's busy loop
    "a_thread_started_in_a_callback_runs_during_a_busy_loop": _case(
        "    pkg.in_thread(lambda: pkg.start())\n" + _BUSY + "    assert pkg.get() == 1\n"),
    # the test's own thread has the tree set the interval (a tree thread alive): the test reads it
    "the_tree_sets_the_interval_from_the_tests_thread": _case(
        "    pkg.start(delay=30)\n    try:\n"
        "        t = threading.Thread(target=pkg.set_interval, args=(0.002,))\n        t.start()\n        t.join()\n"
        "        assert sys.getswitchinterval() == 0.002\n        assert pkg.interval() == 0.002\n" + _RESTORE),
    # the test sets a tiny interval (below the default) with a tree thread alive: the tree reads it back
    "the_tests_tiny_interval_reaches_the_tree": _case(
        "    pkg.start(delay=30)\n    try:\n        sys.setswitchinterval(1e-6)\n"
        "        assert pkg.interval() == 1e-6\n" + _RESTORE),
    # the test sets a huge interval, then reads it back through the tree (with a tree thread alive)
    "the_tests_huge_interval_reaches_the_tree": _case(
        "    pkg.start(delay=30)\n    try:\n        sys.setswitchinterval(3.0)\n"
        "        assert pkg.interval() == 3.0\n        assert sys.getswitchinterval() == 3.0\n" + _RESTORE),
}
LENIENT = {
    "interval_read_inside_a_callback_of_a_tree_thread_is_the_freezes": _case(
        "    assert pkg.in_thread(lambda: pkg.interval()) >= 1.0\n"),
    "a_tree_thread_frozen_through_the_trees_busy_loop_in_a_callback": _case(
        "    assert pkg.in_thread(lambda: pkg.busy_then_get()) == 0\n"),
    "interval_read_inside_a_callback_of_the_main_thread_is_the_freezes": _case(
        "    pkg.start(delay=30)\n    assert pkg.call(lambda: pkg.interval()) >= 1.0\n"),
    "a_tree_thread_frozen_through_the_trees_busy_loop_in_a_callback_of_the_main_thread": _case(
        "    assert pkg.call(lambda: pkg.busy_then_get()) == 0\n"),
    "a_tree_thread_frozen_through_the_trees_busy_loop_in_a_callback_of_the_main_thread_a_thread_alive": (
        _TREE.replace("def start(", "def other():\n    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
                      "\n\ndef start("),
        _HEAD + "    pkg.other()\n    assert pkg.call(lambda: pkg.busy_then_get()) == 0\n"),
    "a_tree_threads_interval_not_seen_after_a_busy_loop": _case(
        "    try:\n        pkg.start_setter(0.003)\n" + _BUSY2
        + "        assert pkg.interval() == 0.005\n" + _RESTORE),
    "a_thread_started_in_a_callback_frozen_through_a_busy_loop": _case(
        "    pkg.in_thread(lambda: pkg.start())\n" + _BUSY + "    assert pkg.get() == 0\n"),
    "the_tests_thread_frozen_during_a_busy_loop_with_a_tree_thread_alive": _case(
        "    pkg.start(delay=30)\n    seen = []\n"
        "    threading.Thread(target=lambda: (time.sleep(0.01), seen.append(1)), daemon=True).start()\n"
        + _BUSY + "    assert seen == []\n"),
}
_NESTED = ("a request of the test's made while a tree thread holds the channel (its call to a callback of the test) "
           "runs in that thread with the schedule held (depth > 1, never thawed): at FROZEN_INTERVAL, with the tree's "
           "other threads frozen, and the tree's sys.setswitchinterval there is undone by the thaw (the saved value)")
# name -> why the judge gets it wrong (a strict xfail until closed)
_HONEST_OPEN: dict[str, str] = {
    "interval_read_inside_a_callback_of_a_tree_thread": _NESTED + ": the tree reads the freeze's (1.0 and a random part)",
    "a_tree_thread_runs_during_the_trees_busy_loop_in_a_callback": _NESTED + ": the new thread never runs",
    "interval_read_inside_a_callback_of_the_main_thread": _NESTED + ": the tree reads the freeze's (1.0 and a random part)",
    "a_tree_thread_runs_during_the_trees_busy_loop_in_a_callback_of_the_main_thread_a_thread_alive": (
        _NESTED + ": the new thread never runs (with no tree thread alive at the freeze, it runs: the case without "
        "_a_thread_alive passes)"),
    "a_tree_thread_sets_the_interval_during_a_busy_loop": (
        "fails closed: the pulse's give lets the tree's thread set the interval, and Peer._moved reads the changed "
        "sys.setswitchinterval as a fault (the sleep's give, a_tree_thread_sets_the_interval_and_ends_during_a_sleep, "
        "passes)"),
}
# (the freeze raises to FROZEN_INTERVAL and a random part since reviewer rv32, subject_rpc ``_raised``: the wrong
# trees read it with ``>= 1.0``, as they read 1.0 with ``==`` before)
_LENIENT_OPEN: dict[str, str] = {
    "interval_read_inside_a_callback_of_a_tree_thread_is_the_freezes": _NESTED + ": the tree reads the freeze's",
    "interval_read_inside_a_callback_of_the_main_thread_is_the_freezes": _NESTED + ": the tree reads the freeze's",
    "a_tree_thread_frozen_through_the_trees_busy_loop_in_a_callback": _NESTED + ": the new thread never runs",
    "a_tree_thread_frozen_through_the_trees_busy_loop_in_a_callback_of_the_main_thread_a_thread_alive": (
        _NESTED + ": the new thread never runs"),
}


# Open and not deterministic (issue 32): judged, the verdict depends on whether the test's thread's request meets the
# main thread's ``wait`` request (``Thread.start`` waits on an Event: probe_runtime ``_cond_wait``) on the driver's one
# channel; when they meet, their bytes interleave and the honest tree fails ("a message over the size limit", "the
# subject's answer to the audit heartbeat broke the protocol"; about 1 run in 20 under load). A non-strict xfail: a
# pass is no news, a failure no flaky CI (tests/harness/judge/test_driver_turns.py, docs/judge.md "The test's threads").
_HONEST_RACY: dict[str, str] = {
    "the_tree_sets_the_interval_from_the_tests_thread": "the test's thread's request can meet the main thread's wait "
                                                        "request on the driver's channel",
}


def _params(cases: dict, open_: dict) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"atk28: {open_[n]}"))
            if n in open_ else pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=f"issue 32: {_HONEST_RACY[n]}"))
            if n in _HONEST_RACY else n for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_sees_the_switch_interval_and_its_threads_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_a_wrong_tree_is_not_passed_through_the_switch_interval_or_the_freeze(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)
