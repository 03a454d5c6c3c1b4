"""The test's own threads calling the tree while its main thread waits through the subject (an ``Event.wait``, a
``Queue.get``, ``time.sleep``: each a ``wait`` or ``sleep`` request, probe_runtime ``_cond_wait``/``_sleep``) or calls
the tree too: two threads' requests on the driver's one channel at once (subject_rpc ``Peer.request``; issue 32, open).
Plain pytest passes the honest tree and fails the wrong one (its count one short) in every shape.

Judged, on main: the two threads' bytes interleave on the connection ("a message over the size limit", "the
subject's answer to the audit heartbeat broke the protocol"): an honest tree fails (6 of 8 in one run; atk28's
``the_tree_sets_the_interval_from_the_tests_thread`` is one, now and then), a wrong one fails read as tampering (8
of 8, twice), never passes. Taking the channel in turns (``Turns``, tried and not landed) passed all 16, but red team
rt36 (tests/harness/judge/test_rt36_thread_attacks.py) then passed 5 wrong trees that had failed: docs/judge.md,
"The test's threads". Non-strict xfails in the campaign (tests/conftest.py) until the class is closed."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_TREE = ("import threading, time\nn = 0\nlock = threading.Lock()\n\n\n"
         "def start(delay=30):\n    threading.Thread(target=time.sleep, args=(delay,), daemon=True).start()\n\n\n"
         "def bump():\n    global n\n    with lock:\n        n += 1\n    return n\n\n\n"
         "def get():\n    return n\n")
_HEAD = "import queue, threading, time\nimport pkg\n\nCALLS = 100\n\n\ndef test_f():\n"
# the test's threads call the tree CALLS times each, while the main thread waits in the way the body says
_THREADS = ("    pkg.start()\n    done = threading.Event()\n    q = queue.Queue()\n"
            "    def worker():\n        for _ in range(CALLS):\n            pkg.bump()\n        q.put(1)\n\n")


def _case(body: str, tree: str = _TREE) -> tuple:
    return (tree, _HEAD + _THREADS + body)


_BODIES = {
    # the main thread waits on an Event (``_cond_wait``: a ``wait`` request every 10 ms) while a thread calls the tree
    "a_thread_calls_the_tree_while_the_main_thread_waits_on_an_event": (
        "    t = threading.Thread(target=lambda: (worker(), done.set()))\n    t.start()\n"
        "    assert done.wait(120)\n    t.join()\n    assert pkg.get() == CALLS\n"),
    # ... on a queue with a timeout, two threads calling the tree at once
    "two_threads_call_the_tree_while_the_main_thread_waits_on_a_queue": (
        "    ts = [threading.Thread(target=worker) for _ in range(2)]\n    for t in ts:\n        t.start()\n"
        "    q.get(timeout=120)\n    q.get(timeout=120)\n    for t in ts:\n        t.join()\n"
        "    assert pkg.get() == 2 * CALLS\n"),
    # ... in a loop of short sleeps (each a ``sleep`` request)
    "a_thread_calls_the_tree_while_the_main_thread_sleeps": (
        "    t = threading.Thread(target=worker)\n    t.start()\n    while q.empty():\n        time.sleep(0.001)\n"
        "    t.join()\n    assert pkg.get() == CALLS\n"),
    # ... while the main thread calls the tree too
    "a_thread_and_the_main_thread_call_the_tree_at_once": (
        "    t = threading.Thread(target=worker)\n    t.start()\n    for _ in range(CALLS):\n        pkg.bump()\n"
        "    t.join()\n    assert pkg.get() == 2 * CALLS\n"),
}
HONEST = {name: _case(body) for name, body in _BODIES.items()}
# the same shapes, the tree's count one short: plain pytest fails each, and so must the judge
WRONG = {name: _case(body, _TREE.replace("n += 1", "n += 1 if n != 7 else 0")) for name, body in _BODIES.items()}


_OPEN = pytest.mark.xfail(strict=False, reason="issue 32: two of the test's threads' requests on the driver's one channel")


@pytest.mark.parametrize("name", sorted(HONEST))
@_OPEN
def test_the_tests_threads_call_the_tree_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", sorted(WRONG))
@_OPEN
def test_a_wrong_tree_called_from_the_tests_threads_fails_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, WRONG[name], plain_passes=False)
