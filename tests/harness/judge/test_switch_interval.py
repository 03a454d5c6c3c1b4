"""The switch interval the test and the tree see is the tree's, never the freeze's (subject_rpc ``_switch_interval``).

While the driver runs the test, the subject holds the tree's threads frozen with the switch interval raised to
``FROZEN_INTERVAL`` (``Schedule._freeze``). That value crossed to the driver as the synced ``si`` item of
``PROCESS_STATE``: the test's main thread then kept the GIL for a second at a time, so a thread of the tree never got
CLOCK_READS_RULE's pulse during a busy loop (a wrong tree passed: red team atk25's
``thread_rebinding_while_the_test_computes``), and the test read ``sys.getswitchinterval() == 1.0``. Each tree below
is judged and run under plain pytest, cold and warm; the verdicts must agree."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_THREAD = ("import sys, threading, time\nn = 0\n\n\ndef start():\n    def run():\n        global n\n"
           "        time.sleep(0.01)\n        n = 1\n\n    threading.Thread(target=run, daemon=True).start()\n\n\n"
           "def interval():\n    return sys.getswitchinterval()\n\n\ndef get():\n    return n\n")
_BUSY = "    x = 0\n    for i in range(4_000_000):\n        x += i\n"

HONEST = {
    # the test reads the interval while a thread of the tree lives: CPython's default, as under plain pytest
    "the_tests_read_while_a_tree_thread_lives": (
        _THREAD, "import sys\nimport pkg\n\n\ndef test_f():\n    pkg.start()\n    assert sys.getswitchinterval() == 0.005\n"),
    # the test's interval reaches the tree while its thread is frozen (set when it is thawed, not lost)
    "the_tests_write_reaches_the_tree": (
        _THREAD, "import sys\nimport pkg\n\n\ndef test_f():\n    pkg.start()\n    sys.setswitchinterval(0.002)\n"
                 "    try:\n        assert pkg.interval() == 0.002\n    finally:\n        sys.setswitchinterval(0.005)\n"),
    # the tree's thread runs during the test's busy loop (the pulse gives it the time), as under plain pytest
    "a_tree_thread_runs_during_a_busy_loop": (
        _THREAD, "import pkg\n\n\ndef test_f():\n    pkg.start()\n" + _BUSY + "    assert pkg.get() == 1\n"),
}
WRONG = {
    "a_tree_thread_frozen_through_a_busy_loop": (
        _THREAD, "import pkg\n\n\ndef test_f():\n    pkg.start()\n" + _BUSY + "    assert pkg.get() == 0\n"),
}


@pytest.mark.parametrize("name", sorted(HONEST))
def test_an_honest_tree_sees_the_switch_interval_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", sorted(WRONG))
def test_a_wrong_tree_is_not_passed_by_a_frozen_switch_interval(tmp_path, executor, name):
    _judged_as_plain(tmp_path, WRONG[name], plain_passes=False)


_FROZEN_WRITE = """
import importlib.util, sys, threading, types
spec = importlib.util.spec_from_file_location("_hx_rpc", sys.argv[1])
rpc = importlib.util.module_from_spec(spec)
sys.modules["_hx_rpc"] = rpc
spec.loader.exec_module(rpc)
stop = threading.Lock()
stop.acquire()
threading.Thread(target=stop.acquire, daemon=True).start()   # a thread of the tree, waiting for the GIL
peer = types.SimpleNamespace(sched=rpc.Schedule(None))
out = []
for interval, tree_sets in ((0.005, None), (0.005, 0.002), (1.2345678901, None), (3.0, 0.5)):
    sys.setswitchinterval(interval)
    before = sys.getswitchinterval()
    peer.sched.hold()
    frozen = sys.getswitchinterval()
    if tree_sets is not None:
        sys.setswitchinterval(tree_sets)    # what a thread of the tree that ran during the freeze does
    seen = rpc._switch_interval(peer)
    peer.sched.free()
    out.append([before, frozen, seen, sys.getswitchinterval()])
print(out)
"""


def test_an_interval_the_tree_sets_while_frozen_is_reported_and_kept():
    """(review of 078ff7d) While frozen the subject reports the interval the freeze saved; an interval a thread of the
    tree sets meanwhile (it runs at the next message after a freeze longer than ``FROZEN_INTERVAL``) is the tree's:
    reported as it is, so ``Peer._moved`` sees it, and kept by the thaw, as plain pytest keeps it. An interval above
    ``FROZEN_INTERVAL`` (kept in whole microseconds) is not mistaken for one the tree set."""
    import ast
    import subprocess
    import sys
    from pathlib import Path
    rpc = Path(__file__).resolve().parents[3] / "harness" / "judge" / "subject_rpc.py"
    r = subprocess.run([sys.executable, "-c", _FROZEN_WRITE, str(rpc)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = ast.literal_eval(r.stdout)
    # the freeze raises to FROZEN_INTERVAL and a random part under a second (_raised), never seen; the thaw restores
    assert rows[0][0] == 0.005 and 1.0 < rows[0][1] < 2.0 and rows[0][2:] == [0.005, 0.005]
    assert rows[1][0] == 0.005 and rows[1][2:] == [0.002, 0.002]    # the tree's write while frozen: seen, and it stands
    assert rows[2][0] == rows[2][1] == rows[2][2] == rows[2][3]   # a huge interval: unchanged throughout
    assert rows[3] == [3.0, 3.0, 0.5, 0.5]
