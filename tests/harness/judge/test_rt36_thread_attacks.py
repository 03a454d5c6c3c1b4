"""Red team rt36: the test's own threads and the driver's one channel (subject_rpc ``Peer.request``; issue 32, open).

Written against ``Turns`` (the channel taken in turns by the test's threads, tried on 2026-12-07 and not landed: it
passed 5 wrong trees that failed before, among them two threads racing in a counter). Here, against what landed (one
channel, no turns: two threads' requests at once interleave their bytes), the cases record the class for the next
attempt: plain pytest runs the test's threads and the tree at once; the judge serves one request at a time, in one
thread of the subject. Each is judged and run under plain pytest, cold and warm (the ``executor`` fixture).

On main (one run, cold and warm), judged: 9 of the 10 honest trees fail (stricter than plain pytest: failed closed,
read as tampering, or timed out); of the 7 wrong trees, ``a_registry_the_tree_keeps_per_thread_read_from_a_tests_
thread`` passed judged cold and ``a_wait_timeout_stretched_by_a_thread_holding_the_channel`` passed judged warm (both
more lenient than plain pytest), the other 5 failed but as tampering in one executor or the other. The outcomes vary
by run (they hang on which request meets which), so every case but one is a non-strict xfail: a run neither breaks
nor hides; the file runs in the campaign (tests/conftest.py). docs/judge.md, "The test's threads", says what a fix
must keep. Every premise leans on wide margins (a held request of 3-8 s against a 1-2 s wait, a deterministic
block)."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_TREE = ("import threading, time\nn = 0\nclosed = []\ncond = threading.Condition()\nitems = []\n\n\n"
         "def bump():\n    global n\n    x = n\n    time.sleep(0.002)\n    n = x + 1\n    return n\n\n\n"
         "def get():\n    return n\n\n\n"
         "def call(cb):\n    return cb()\n\n\n"
         "def slow(s):\n    time.sleep(s)\n    return 1\n\n\n"
         "def inc(x):\n    return x + 1\n\n\n"
         "def put(x):\n    with cond:\n        items.append(x)\n        cond.notify_all()\n\n\n"
         "def take(timeout):\n    with cond:\n        cond.wait_for(lambda: items, timeout)\n"
         "        return items.pop() if items else None\n\n\n"
         "def delay():\n    return 0.2\n\n\n"
         "_kept = []\n\n\nclass Res:\n    def __del__(self):\n        closed.append(1)\n\n\n"
         "gate = threading.Event()\n\n\ndef wait_open():\n    gate.wait()\n    return 'passed'\n\n\n"
         "def open_gate():\n    gate.set()\n\n\n"
         "local = threading.local()\n\n\ndef set_local(v):\n    local.v = v\n\n\n"
         "def get_local():\n    return getattr(local, 'v', None)\n\n\n"
         "def on_main():\n    return threading.current_thread() is threading.main_thread()\n\n\n"
         "_reg = set()\n\n\ndef register(name):\n    _reg.add(name)\n\n\n"
         "def lookup(name):\n    return name in _reg\n\n\n"
         "def make(keep=False):\n    r = Res()\n    if keep:\n        _kept.append(r)\n    return r\n\n\n"
         "fired = []\n\n\ndef start_timer(cancel):\n    t = threading.Timer(0.2, lambda: fired.append(1))\n"
         "    t.start()\n    if cancel:\n        t.cancel()\n")
_HEAD = "import queue, select, signal, threading, time\nimport pkg\n\n\ndef test_f():\n"
# a test's thread holds the channel for 6 s (a request the tree answers after a sleep), the main thread goes on after
# 2 s of a wait that is no request (``select`` with no descriptors: the driver's own)
_HOLD = ("    t = threading.Thread(target=pkg.slow, args=(6,))\n    t.start()\n"
         "    select.select([], [], [], 2.0)\n")
# the main thread busy-waits 2 s on the clock (``CLOCK_READS_RULE``: its clock reads give the tree's threads their
# time) while a test's thread holds the turn for 6 s; a tree thread fires at 0.2 s into a linked list the test holds
_BUSY = ("    fired = pkg.fired\n    pkg.start_timer(CANCEL)\n"
         "    t = threading.Thread(target=pkg.slow, args=(6,))\n    t.start()\n"
         "    end = time.monotonic() + 2.0\n    while time.monotonic() < end:\n        pass\n"
         "    n = len(fired)\n    t.join()\n")


def _case(body: str, tree: str = _TREE) -> tuple:
    return (tree, _HEAD + body)


HONEST = {
    # the tree calls the test's callback on the test's thread (nested: that thread keeps the turn), the callback waits
    # for the main thread, whose sleep is a request: it waits for the turn the callback holds (10 s, then False)
    "a_callback_on_a_tests_thread_waits_for_the_main_thread": _case(
        "    ev, entered, out = threading.Event(), threading.Event(), []\n"
        "    def cb():\n        entered.set()\n        return ev.wait(10)\n"
        "    t = threading.Thread(target=lambda: out.append(pkg.call(cb)))\n    t.start()\n"
        "    assert entered.wait(30)\n    time.sleep(0.2)\n    ev.set()\n    t.join()\n    assert out == [True]\n"),
    # the main thread's callback waits on a queue for a thread it started that calls the tree: the callback holds the
    # turn (its q.get is made of nested wait requests), the thread never gets it
    "a_callback_of_the_main_thread_waits_for_a_thread_calling_the_tree": _case(
        "    q = queue.Queue()\n"
        "    def cb():\n        threading.Thread(target=lambda: q.put(pkg.inc(1))).start()\n"
        "        return q.get(timeout=10)\n"
        "    assert pkg.call(cb) == 2\n"),
    # a signal arrives while the main thread waits for its turn (Turns.take) behind a test's thread; its handler calls
    # the tree: a second place in the queue for the same thread, behind the first, which cannot run until the handler
    # returns: a deadlock (the run's 60 s limit)
    "a_signal_handler_calls_the_tree_while_the_main_thread_waits_for_its_turn": _case(
        "    got = []\n    signal.signal(signal.SIGALRM, lambda s, f: got.append(pkg.inc(1)))\n" + _HOLD +
        "    signal.setitimer(signal.ITIMER_REAL, 1.0)\n    pkg.inc(0)\n    t.join()\n"
        "    select.select([], [], [], 2.0)\n    assert got == [2]\n"),
    # the main thread drops a stand-in with a finalizer while a test's thread holds the turn: ``Peer._dropped`` reads
    # ``depth`` (the holder's, 1) and sends no ``release``: the finalizer has not run when the test reads its effect
    "a_drop_of_the_main_thread_while_a_thread_holds_the_channel": _case(
        "    closed = pkg.closed\n    r = pkg.make()\n" + _HOLD +
        "    del r\n    n = len(closed)\n    t.join()\n    assert n == 1\n"),
    # a consumer thread of the test blocks in the tree (a condition the main thread's put notifies): it holds the turn
    # until its timeout, the put waits for it
    "a_consumer_thread_blocks_in_the_tree": _case(
        "    out = []\n    t = threading.Thread(target=lambda: out.append(pkg.take(8)))\n    t.start()\n"
        "    select.select([], [], [], 1.0)\n    pkg.put(5)\n    t.join()\n    assert out == [5]\n"),
    # the tree's timer fires at 0.2 s; the test reads the linked list after a 2 s busy wait: ``_busy_give`` (and
    # ``_give_before_acts``) read ``peer.depth``, the holding thread's, and give nothing; the list is the one of the
    # last reply until the holder's exchange ends
    "a_busy_wait_of_the_main_thread_while_a_thread_holds_the_channel": _case(
        _BUSY.replace("CANCEL", "False") + "    assert n == 1\n"),
    # a test's thread calls the tree 0.5 s into one 3 s time.sleep of the main thread: the sleep is one request, its
    # turn held for the 3 s; the thread's call waits, and has not run when the main thread reads its result
    "a_thread_calls_the_tree_during_one_long_sleep_of_the_main_thread": _case(
        "    out = []\n    def w():\n        select.select([], [], [], 0.5)\n        out.append(pkg.inc(1))\n"
        "    t = threading.Thread(target=w)\n    t.start()\n    time.sleep(3)\n    n = list(out)\n    t.join()\n"
        "    assert n == [2]\n"),
    # the tree keeps a value per thread (threading.local) and says which thread runs it: a test's thread reads none
    # of the main thread's, off the main thread under plain pytest; judged every call of the test's threads runs in
    # the subject's one serving thread
    "a_thread_local_of_the_tree_read_from_a_tests_thread": _case(
        "    pkg.set_local(1)\n    out = []\n"
        "    t = threading.Thread(target=lambda: out.append((pkg.get_local(), pkg.on_main())))\n    t.start()\n"
        "    t.join()\n    assert out == [(None, False)]\n    assert pkg.get_local() == 1\n"),
    # (holds) a pool of 4 of the test's threads maps the tree while the main thread waits on the futures (each
    # ``result`` a Condition.wait: wait requests in turn with the workers' calls)
    "a_thread_pool_maps_the_tree": _case(
        "    import concurrent.futures as cf\n    with cf.ThreadPoolExecutor(4) as ex:\n"
        "        assert list(ex.map(pkg.inc, range(200))) == list(range(1, 201))\n"),
    # (holds: fixed by ``_inside``) a measure read by the main thread while a test's thread holds the turn is a request
    # made in the main thread's turn, no fault (before: "a measure ... inside an exchange", failed closed)
    "a_measure_read_while_a_thread_holds_the_channel": _case(
        _HOLD + "    n = threading.active_count()\n    t.join()\n    assert n == 2\n"),
}
# name -> why the judge got it wrong under Turns (on main: see the module's docstring; a non-strict xfail)
_HONEST_OPEN: dict[str, str] = {
    "a_measure_read_while_a_thread_holds_the_channel": (
        "on main: the main thread's measure while a test's thread's request is under way fails closed (\"inside an "
        "exchange\"); held under Turns"),
    "a_thread_pool_maps_the_tree": "on main: four threads' requests at once interleave on the channel; held under Turns",
    "a_callback_on_a_tests_thread_waits_for_the_main_thread": (
        "a callback of the test run on the thread holding the turn waits for the main thread, whose next request "
        "(a sleep) waits for that turn: the callback's wait times out (judged [False]); passed before Turns"),
    "a_callback_of_the_main_thread_waits_for_a_thread_calling_the_tree": (
        "the main thread's callback holds the turn while it waits for a thread calling the tree: queue.Empty after "
        "10 s (before Turns: failed too, the call's value lost)"),
    "a_signal_handler_calls_the_tree_while_the_main_thread_waits_for_its_turn": (
        "Turns.take is not reentrant for a signal handler: the handler's request queues the main thread a second "
        "time behind its own first place, which cannot run: deadlock until the run's limit; passed before Turns"),
    "a_drop_of_the_main_thread_while_a_thread_holds_the_channel": (
        "Peer._dropped reads depth, the holding thread's: no release for the main thread's drop, the tree's "
        "finalizer has not run at the test's next line (judged 0, plain 1)"),
    "a_thread_calls_the_tree_during_one_long_sleep_of_the_main_thread": (
        "the main thread's time.sleep(3) is one sleep request holding the turn for 3 s: the test's thread's call runs "
        "after it (judged [], plain [2]; before Turns: failed too)"),
    "a_thread_local_of_the_tree_read_from_a_tests_thread": (
        "the test's threads' calls all run in the subject's serving thread: the tree's threading.local and "
        "current_thread are the main thread's (judged [(1, True)], plain [(None, False)]; before Turns: failed too)"),
    "a_consumer_thread_blocks_in_the_tree": (
        "a test's thread blocked in the tree holds the turn: the main thread's put waits for it, the consumer times "
        "out (judged [None]; before Turns: failed too, read as tampering)"),
}

LENIENT = {
    # two of the test's threads call a non-atomic counter of the tree 40 times each: plain pytest loses updates (the
    # read and the write 2 ms apart), judged the calls run one at a time (the subject serves one request, the turn
    # orders them), so the count is exact and the wrong tree passes
    "two_threads_race_in_a_non_atomic_counter": _case(
        "    def w():\n        for _ in range(40):\n            pkg.bump()\n"
        "    ts = [threading.Thread(target=w) for _ in range(2)]\n    for t in ts:\n        t.start()\n"
        "    for t in ts:\n        t.join()\n    assert pkg.get() == 80\n"),
    # inside the main thread's callback (the turn held), a thread the test starts calls the tree, whose answer is
    # wrong; the callback joins it with a timeout and keeps the errors seen: judged the thread never ran (no turn)
    "a_thread_calls_a_wrong_tree_inside_a_callback_of_the_main_thread": _case(
        "    errors, seen = [], []\n"
        "    def worker():\n        if pkg.inc(1) != 3:\n            errors.append('bad')\n"
        "    def cb():\n        t = threading.Thread(target=worker)\n        t.start()\n        t.join(5)\n"
        "        seen.extend(errors)\n        return 0\n"
        "    pkg.call(cb)\n    assert seen == []\n"),
    # the tree must keep the object (make(keep=True) is the right call; the wrong tree is the test's call without it):
    # dropped by the main thread while a thread holds the turn, its finalizer is not run (no release) and the test
    # reads it alive
    "a_drop_of_the_main_thread_while_a_thread_holds_the_channel_finalizes_a_kept_object": _case(
        "    closed = pkg.closed\n    r = pkg.make()  # (the tree should keep it: make's default is wrong)\n" + _HOLD +
        "    del r\n    n = len(closed)\n    t.join()\n    assert n == 0\n"),
    # the tree's timer must be cancelled (the wrong tree's is not: start_timer(False)); the main thread's busy wait
    # gives nothing while a test's thread holds the turn, so the list read is the last reply's: empty
    "a_busy_wait_of_the_main_thread_while_a_thread_holds_the_channel_misses_a_timer_not_cancelled": _case(
        _BUSY.replace("CANCEL", "cancel=False") + "    assert n == 0\n"),
    # the gate is closed: a test's thread's wait_open must block until the main thread opens it (the wrong tree returns
    # at once); the thread calls 0.5 s into the main thread's 3 s sleep, which holds the turn: judged the call has not
    # run yet when the test reads ``out``, so the wrong tree's "not blocked" is not seen
    "a_thread_calls_a_wrong_gate_during_one_long_sleep_of_the_main_thread": _case(
        "    out = []\n    def w():\n        select.select([], [], [], 0.5)\n        out.append(pkg.wait_open())\n"
        "    t = threading.Thread(target=w)\n    t.start()\n    time.sleep(3)\n    assert out == []  # (closed)\n"
        "    pkg.open_gate()\n    t.join()\n    assert out == ['passed']\n",
        _TREE.replace("    gate.wait()\n", "")),
    # the tree's registry must be shared by all threads; the wrong tree keeps it per thread (threading.local): a
    # test's thread does not find the main thread's entry under plain pytest, judged both run in the one serving thread
    "a_registry_the_tree_keeps_per_thread_read_from_a_tests_thread": _case(
        "    pkg.register('a')\n    out = []\n"
        "    t = threading.Thread(target=lambda: out.append(pkg.lookup('a')))\n    t.start()\n    t.join()\n"
        "    assert out == [True]\n",
        _TREE.replace("_reg = set()\n", "_reg_local = threading.local()\n").replace(
            "    _reg.add(name)\n", "    _reg_local.__dict__.setdefault('names', set()).add(name)\n").replace(
            "    return name in _reg\n", "    return name in _reg_local.__dict__.get('names', ())\n")),
    # the tree's delay is over the test's 1 s bound (3 s); the main thread's Event.wait(1.0) is made of wait requests
    # that wait for the turn a test's thread holds for 6 s, and the loop reads the event before its deadline: True
    "a_wait_timeout_stretched_by_a_thread_holding_the_channel": _case(
        "    done = threading.Event()\n    threading.Timer(pkg.delay(), done.set).start()  # (must be under 1 s)\n"
        "    t = threading.Thread(target=pkg.slow, args=(6,))\n    t.start()\n    select.select([], [], [], 0.5)\n"
        "    ok = done.wait(1.0)\n    t.join()\n    assert ok\n",
        _TREE.replace("return 0.2", "return 3.0")),
}
_LENIENT_OPEN: dict[str, str] = {
    "two_threads_race_in_a_non_atomic_counter": (
        "the test's threads' calls run one at a time (Turns, and the subject serving one request): a lost update "
        "plain pytest shows never happens (judged 80, plain ~40); failed closed before Turns"),
    "a_thread_calls_a_wrong_tree_inside_a_callback_of_the_main_thread": (
        "the main thread's callback holds the turn: a test's thread's call of the wrong tree waits until the "
        "callback returned, its join(5) times out with no error seen; failed as plain before Turns"),
    "a_drop_of_the_main_thread_while_a_thread_holds_the_channel_finalizes_a_kept_object": (
        "Peer._dropped reads the holder's depth: the main thread's drop sends no release, the wrong tree's object "
        "reads alive (judged 0, plain 1); failed as plain before Turns"),
    "a_busy_wait_of_the_main_thread_while_a_thread_holds_the_channel_misses_a_timer_not_cancelled": (
        "_busy_give reads peer.depth, the holding thread's: no give during the main thread's busy wait, the wrong "
        "tree's timer not seen (judged 0, plain 1); failed before Turns (read as tampering)"),
    "a_thread_calls_a_wrong_gate_during_one_long_sleep_of_the_main_thread": (
        "the main thread's time.sleep(3) is one request holding the turn: the thread's call of the wrong gate waits "
        "and has not returned when the test reads out (judged [], plain ['passed']); failed closed before Turns"),
    "a_registry_the_tree_keeps_per_thread_read_from_a_tests_thread": (
        "the test's threads' calls all run in the subject's serving thread: a per-thread registry reads as shared "
        "(judged [True], plain [False]); before Turns the thread's call failed (observed [None])"),
    "a_wait_timeout_stretched_by_a_thread_holding_the_channel": (
        "_cond_wait's wait request waits for the turn past the wait's deadline, then reads the event set meanwhile "
        "before checking the deadline: Event.wait(1.0) returns True at ~6 s (before Turns too)"),
}


def _params(cases: dict, open_: dict) -> list:
    return [pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=f"rt36: {open_[n]}"))
            if n in open_ else n for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_called_from_the_tests_threads_passes_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_a_wrong_tree_called_from_the_tests_threads_fails_as_under_plain_pytest(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)
