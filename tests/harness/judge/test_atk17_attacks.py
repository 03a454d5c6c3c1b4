"""Red team atk17: the judge's changes of 2026-12-06's last hour (STACK_DEPTH_RULE, the subject's end releasing the
protocol's tables, JUDGE_STATE_RULE widened with ``jm``, an exception's notes crossing), attacked with concrete trees,
each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. Plain pytest's pass can be forged from inside the tree's process (red team atk15's
``FORGE``), so each ``LENIENT`` case below is also a break of the final check.

Open (strict xfails; a name moved into ``ATK17_CLOSED`` runs as an ordinary test):

* ``LENIENT`` (a wrong tree: plain pytest fails it, the judge passes it):

  1. STACK_DEPTH_RULE pads the subject to the driver's depth (``sd``), but that depth is the driver's frames alone,
     and the subject serves from ``max(sd, its own depth)``, never their sum: where the tree's recursion and the
     test's alternate (the tree walks 400 deep, then calls a visitor of the test's that recurses 400 deep and calls
     the tree again), under plain pytest both stacks are one (157 frames of room left), judged each side counts only
     its own (547 left): a recursion 350 deep returns judged.
  2. ``_at_depth`` pads to ``min(sd, limit - 50)``: a test already deeper than the limit's last 50 frames (a
     recursive helper 925 deep) leaves the tree 34 frames under plain pytest (31 warm) and 46 judged. (940 deep, the
     warm driver's own request overflows first: a fault.)
  3. A release (``rl``, the test's ``del``) is applied in ``_recv``, before ``_at_depth``: the tree's ``__del__``
     runs at the serving loop's shallow depth (989 frames of room) where plain pytest runs it on the test's stack (959).
  4. PROCESS_END_RULE's release at the subject's end (``peer.__dict__.clear()`` before ``sys.exit``) runs the
     finalizers of the tree objects the test module holds *before* the atexit handlers; plain pytest's process runs
     atexit first, then clears the modules (the test module's global's ``__del__`` after). A finalizer that fails
     the process only after the tree's atexit hook ran (``os._exit(3)``) ends the subject well.
  5. ``Peer._notes`` keeps 64 notes of 64 KiB each: pytest's ``match`` joins them all, so a pattern anchored at the
     end (``boomx$``, ``x$``) matches the cut join judged and not plain pytest's whole one.
  6. ``__notes__`` is read once, in the subject, when the exception crosses; plain pytest reads it at each
     ``match`` (the raises block's exit and each ``excinfo.match``): a property answering differently on a later
     read (and pytest's own first read comes before the test's ``ei.match``) passes judged.
  7. JUDGE_STATE_RULE's ``jm`` fails an assertion closed, but a ``raises(match=)`` or ``warns(match=)`` record is
     checked with the judge's own ``re`` (judge ``_check``'s raises and warns branches never read ``jm``): a tree that
     changed ``re._parser.FLAGS`` (an entry of a JUDGE_STATE_MODULES module, carried, not guarded) at import makes
     plain pytest's ``(?i)`` match fail and the judge's pass (the same in an ``assert re.search`` fails closed: held).
  4t. (4. with threads) plain pytest's process joins the non-daemon threads, then runs atexit, then clears the
     modules; the subject's end frees the test module's tree objects before all three: a non-daemon thread that waits
     for such an object to go never ends under plain pytest (its limit: a fail) and ends judged.

* 1e. (``test_a_gc_traversal_run_through_the_stack_depths_exemption_is_evidence``) ``_stack_depth``'s audit exemption
  is by code identity, so any C call its ``_getframe`` parameter makes is the protocol's: a tree that reached the
  function (an unreported stdlib frame walk) runs ``gc.get_objects()`` through it unreported, and the judge passes a
  tree that tells the subject from plain pytest (plain pytest fails it: no ``_stack_depth`` on its stack).

* ``HONEST`` (a right tree: plain pytest passes it, the judge fails it):

  4b. (4. the other way) a finalizer that must run after the tree's atexit hook (it exits 3 when the hook has not
     run) fails judged: the subject's end runs it first.
  4u. (4t. the other way) a thread whose last flush, a second after the test, needs the object the test module keeps:
     alive under plain pytest until the thread is joined, freed judged first (``os._exit(3)``: a fault).
  10. ``jm`` fails closed any assertion whose skeleton computes anything (``_computes``: a name, an attribute, a call),
     not one that reads the module the tree changed: a tree raising ``re._MAXCACHE`` fails ``assert g() ==
     'abc'.replace('a', 'b')`` judged.
  11. The import request is padded to the driver's depth at its stand-in's import, whose importer's frames lie over
     importlib's: the tree's import-time code has 20 frames less than under plain pytest (928 against 948 cold, 923
     against 945 warm), not "a few": an import-time recursion 935 deep is a collection error judged.
  8. (noticed, not of today) the judge's ``ExceptionInfo`` stand-in (``_Info``) has no ``group_contains``: a test
     asserting an ExceptionGroup's member (and its notes) is an AttributeError judged.
  9. (noticed, not of today: the same before STACK_DEPTH_RULE) a tree and a test's visitor that call each other 100
     times (200 frames under plain pytest) exhaust the driver's stack in the protocol's frames: a protocol fault.

Held (ordinary tests, ``HELD``): a finalizer of the tree's run at the subject's end that calls back a function of
the test's (the driver gone) still ends the subject with status 0; a tree that rebinds ``re.search`` or puts an
entry in ``re._cache`` is a guarded change of the interpreter's modules (MODULE_STATE_RULE), a fault, as plain
pytest's match fails.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.judge.testrun import run_pytest
from harness.sandbox.sandbox import Limits
from tests.harness.judge.test_atk16_attacks import _judged_as_plain
from tests.harness.judge.test_identity import HIDE

# the tree's recursion measured: ``descend(n)`` recurses n frames deep and returns 0
_DESCEND = "def descend(n):\n    return descend(n - 1) if n else 0\n\n\n"
_NOTES = ("class E(Exception):\n    pass\n\n\ndef many():\n    e = E('m')\n    for i in range(63):\n"
          "        e.add_note('n%d' % i)\n    e.add_note('boomx')\n    e.add_note('tail')\n    raise e\n\n\n"
          "def large():\n    e = E('m')\n    e.add_note('x' * 65536 + 'y')\n    raise e\n")
# an atexit hook of the tree's, and a finalizer of a tree object the test module keeps that reads whether it ran
_AT_EXIT = ("import atexit\nimport os\n\n_AT_EXIT = []\natexit.register(_AT_EXIT.append, 1)\n\n\nclass Conn:\n"
            "    def get(self):\n        return 1\n\n    def __del__(self):\n        if {cond}_AT_EXIT:\n"
            "            os._exit(3)\n")
_KEEPS_CONN = "from pkg import Conn\n\n_C = Conn()\n\n\ndef test_f():\n    assert _C.get() == 1\n"
# a non-daemon thread of the tree's, started with a connection the test module keeps, holding it weakly
_THREAD = ("import os\nimport threading\nimport time\nimport weakref\n\n\nclass Conn:\n    def get(self):\n"
           "        return 1\n\n\ndef _watch(ref):\n{body}\n\ndef connect():\n    c = Conn()\n"
           "    threading.Thread(target=_watch, args=(weakref.ref(c),)).start()\n    return c\n")
_CONNECTS = "from pkg import connect\n\n_C = connect()\n\n\ndef test_f():\n    assert _C.get() == 1\n"
_HANGS = {"thread_waiting_for_a_test_held_object_to_go"}  # (plain pytest's run waits out its limit: a short one)

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. the tree's and the test's frames alternate: the subject counts max(sd, its own), plain pytest their sum
    "recursion_alternating_with_a_visitor_of_the_test": (
        _DESCEND + "def walk(n, visit):\n    return walk(n - 1, visit) if n else visit()\n",
        "from pkg import descend, walk\n\n\ndef deep(n):\n    return deep(n - 1) if n else descend(350)\n\n\n"
        "def test_f():\n    assert walk(400, lambda: deep(400)) == 0\n"),
    # 2. the pad stops 50 frames below the limit: a test deeper than that
    "test_deeper_than_the_pads_cap": (
        _DESCEND, "from pkg import descend\n\n\ndef deep(n):\n    return deep(n - 1) if n else descend(40)\n\n\n"
                  "def test_f():\n    assert deep(925) == 0\n"),
    # 3. a release runs the tree's finalizer before the pad
    "finalizer_run_by_a_release_has_the_serving_loops_stack": (
        "FLUSHED = []\n\n\ndef _flush(n):\n    return _flush(n - 1) if n else 1\n\n\nclass Conn:\n"
        "    def __del__(self):\n        try:\n            FLUSHED.append(_flush(975))\n        except RecursionError:\n"
        "            FLUSHED.append(0)\n\n\ndef flushed():\n    return FLUSHED\n",
        "from pkg import Conn, flushed\n\n\ndef test_f():\n    c = Conn()\n    del c\n    assert flushed() == [1]\n"),
    # 4. the subject's end runs the test module's tree objects' finalizers before the atexit hooks
    "finalizer_failing_the_process_after_the_atexit_hooks": (_AT_EXIT.format(cond=""), _KEEPS_CONN),
    # 5. the notes that cross are cut at 64 items of 64 KiB
    "sixty_fifth_note_out_of_an_end_anchored_match": (
        _NOTES, "import pytest\nfrom pkg import many\n\n\ndef test_f():\n"
                "    with pytest.raises(Exception, match='boomx$'):\n        many()\n"),
    "note_past_64_kib_out_of_an_end_anchored_match": (
        _NOTES, "import pytest\nfrom pkg import large\n\n\ndef test_f():\n"
                "    with pytest.raises(Exception, match='x$'):\n        large()\n"),
    # 6. __notes__ read once when the exception crosses; plain pytest reads it at each match
    "notes_property_answering_differently_on_a_later_read": (
        "class F(Exception):\n    reads = 0\n\n    @property\n    def __notes__(self):\n        F.reads += 1\n"
        "        return ['first'] if F.reads == 1 else ['second']\n\n\ndef g():\n    raise F('m')\n",
        "import pytest\nfrom pkg import g\n\n\ndef test_f():\n    with pytest.raises(Exception) as ei:\n        g()\n"
        "    ei.match('first')\n    ei.match('first')\n"),
    # 7. a raises record's match is computed with the judge's re, jm unread
    "re_parser_flags_entry_under_a_raises_match": (
        "import re\n\nre._parser.FLAGS['i'] = 0\n\n\ndef f():\n    raise ValueError('boom')\n",
        "import pytest\nfrom pkg import f\n\n\ndef test_f():\n    with pytest.raises(ValueError, match='(?i)BOOM'):\n"
        "        f()\n"),
    "re_parser_flags_entry_under_a_warns_match": (
        "import re\nimport warnings\n\nre._parser.FLAGS['i'] = 0\n\n\ndef w():\n    warnings.warn('boom', UserWarning)\n",
        "import pytest\nfrom pkg import w\n\n\ndef test_f():\n    with pytest.warns(UserWarning, match='(?i)BOOM'):\n"
        "        w()\n"),
    # 4. (threads) the subject's end frees the test module's tree object before its non-daemon threads are joined:
    # plain pytest joins them first, so a thread waiting for that object to go never ends there (its limit)
    "thread_waiting_for_a_test_held_object_to_go": (
        _THREAD.format(body="    while ref() is not None:  # (until the connection is dropped)\n        time.sleep(0.05)\n"),
        _CONNECTS),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 4b. a finalizer that must run after the atexit hooks
    "finalizer_run_after_the_atexit_hooks": (_AT_EXIT.format(cond="not "), _KEEPS_CONN),
    "thread_flushing_a_test_held_object_at_the_end": (
        _THREAD.format(body="    time.sleep(1.0)\n    if ref() is None:\n"
                            "        os._exit(3)  # (the connection went before its last flush)\n"), _CONNECTS),
    # 10. jm fails an assertion closed though its expectation reads nothing of the module the tree changed
    "re_cache_size_raised_and_an_expectation_of_str_methods": (
        "import re\n\nre._MAXCACHE = 2048  # (a parser with many patterns: a larger cache)\n\n\ndef g():\n"
        "    return re.sub('a', 'b', 'abc')\n",
        "from pkg import g\n\n\ndef test_f():\n    assert g() == 'abc'.replace('a', 'b')\n"),
    # 11. the import request's pad: the stand-in's importer's frames over importlib's (20 frames less at import)
    "import_time_recursion_935_deep": (
        _DESCEND + "DEPTH = descend(935)\n", "from pkg import DEPTH\n\n\ndef test_f():\n    assert DEPTH == 0\n"),
    # 8. (noticed) ExceptionInfo.group_contains
    "exception_group_member_with_a_note": (
        "def h():\n    v = ValueError('v')\n    v.add_note('deep')\n    raise ExceptionGroup('g', [v])\n",
        "import pytest\nfrom pkg import h\n\n\ndef test_f():\n    with pytest.raises(ExceptionGroup) as ei:\n        h()\n"
        "    assert ei.group_contains(ValueError, match='deep')\n"),
    # 9. (noticed) the tree and the test's visitor calling each other 100 times
    "tree_and_visitor_calling_each_other_a_hundred_times": (
        "def walk(n, visit):\n    return visit(n)\n",
        "from pkg import walk\n\n\ndef visit(n):\n    return walk(n - 1, visit) if n else 0\n\n\n"
        "def test_f():\n    assert walk(100, visit) == 0\n"),
}
ATK17_CLOSED: frozenset[str] = frozenset({
    # subject_main: the protocol's objects released by an atexit callback registered first (run last), after the
    # tree's threads are joined and its atexit callbacks ran
    "finalizer_failing_the_process_after_the_atexit_hooks", "thread_waiting_for_a_test_held_object_to_go",
    "finalizer_run_after_the_atexit_hooks", "thread_flushing_a_test_held_object_at_the_end",
    # subject_rpc STACK_DEPTH_RULE: a nested request pads the driver's frames since the outer one; the pad to 10 below
    "recursion_alternating_with_a_visitor_of_the_test", "test_deeper_than_the_pads_cap",
    # judge _computes: a literal's method reads no changed module
    "re_cache_size_raised_and_an_expectation_of_str_methods"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk17: the judge passes a tree plain pytest fails (the subject's stack counts max(sd, its own) and stops "
    "its pad 50 frames below the limit and runs a release's finalizer unpadded; the subject's end frees the test's "
    "tree objects before the threads' join and atexit; notes cut at 64 x 64 KiB and read once; a raises or warns "
    "match computed with the judge's re, jm unread)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk17: the judge fails a right tree plain pytest passes (the subject's end frees the test's tree objects "
    "before the threads' join and atexit; jm fails closed an expectation reading no moved module; the import's pad "
    "20 frames deeper; no ExceptionInfo.group_contains; the protocol's frames of a tree and a test calling each other)"))


def _params(cases: dict, mark) -> list:
    return [pytest.param(n, marks=[] if n in ATK17_CLOSED else [mark]) for n in sorted(cases)]


def _judged_as_plain_within(tmp_path: Path, case: tuple, *, plain_passes: bool, limits: Limits) -> None:
    """As test_atk16_attacks ``_judged_as_plain``, both runs under ``limits`` (a plain run that hangs waits them out)."""
    module, test = case
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text(module)
    test_file = tmp_path / "test_harness_owned.py"
    test_file.write_text(test)
    plain = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True, judged=False, limits=limits)
    if plain.passed is not plain_passes:
        pytest.fail(f"premise: plain pytest's verdict: {plain.output}")
    judged = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True, limits=limits)
    out = judged.output + "\n--- plain pytest ---\n" + plain.output
    assert judged.passed is plain_passes and not judged.subverted, out


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_its_stack_its_end_its_notes_or_its_re(tmp_path, executor, name):
    if name in _HANGS:
        _judged_as_plain_within(tmp_path, LENIENT[name], plain_passes=False, limits=Limits(timeout_s=12))
    else:
        _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_with_an_ordered_finalizer_a_group_or_a_visitor_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


# name -> (the tree's package, the harness's test, plain pytest's verdict)
HELD: dict[str, tuple] = {
    # a finalizer at the subject's end calling back the test's function (the driver gone): status 0, as plain pytest
    "finalizer_at_the_end_calls_back_the_test": (
        "_KEPT = []\n\n\nclass Keeper:\n    def __init__(self, cb):\n        self.cb = cb\n\n    def __del__(self):\n"
        "        self.cb()\n\n\ndef keep(cb):\n    _KEPT.append(Keeper(cb))\n    return 1\n",
        "from pkg import keep\n\n\ndef note():\n    return None\n\n\ndef test_f():\n    assert keep(note) == 1\n", True),
    # re.search rebound, an entry of re._cache: guarded changes (MODULE_STATE_RULE), as plain pytest's match fails
    "re_search_rebound_and_a_cache_entry_under_a_raises_match": (
        "import re\n\n_search = re.search\n\n\ndef _str_dropped(pattern, string, flags=0):\n"
        "    return _search(pattern, string, flags) if isinstance(string, bytes) else None\n\n\ndef f():\n"
        "    re.search = _str_dropped\n    raise ValueError('boom')\n\n\ndef g():\n"
        "    re._cache[(str, 'boom', 0)] = re.compile('never')\n    raise ValueError('boom')\n",
        "import pytest\nfrom pkg import f, g\n\n\ndef test_binding():\n    with pytest.raises(ValueError, match='boom'):\n"
        "        f()\n\n\ndef test_cache_entry():\n    with pytest.raises(ValueError, match='boom'):\n        g()\n", False),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_the_judge_ends_the_subject_and_reads_re_as_plain_pytest(tmp_path, executor, name):
    module, test, plain_passes = HELD[name]
    _judged_as_plain(tmp_path, (module, test), plain_passes=plain_passes)


# 1e. ``_stack_depth``'s audit exemption (by code identity) covers whatever its ``_getframe`` parameter calls from C:
# the tree reaches the function through a stdlib frame walk (``traceback.walk_stack``: unreported, the open case of
# test_two_process_judge_attacks ``INSPECT_STACK``) and passes a partial whose C call (a deque's ``__init__`` consuming
# a ``map``) runs ``gc.get_objects()`` with ``_stack_depth`` as the innermost Python frame: no evidence, where the
# same call made by the tree itself is reported (the judge fails it as tampering)
EXEMPTION = '''
import collections
import functools
import gc
import traceback

_GOT = []


class _Into(collections.deque):
    f_back = None  # (ends _stack_depth's walk at once)

    def __new__(cls, *args):
        inst = super().__new__(cls)
        _GOT.append(inst)
        return inst


def f():
    for frame, _ in traceback.walk_stack(None):
        depth = frame.f_globals.get("_stack_depth")
        if depth is not None and getattr(depth, "__name__", "") == "_stack_depth":
            depth(functools.partial(_Into, map(gc.get_objects, [None])))
            return 1 if _GOT and len(_GOT[0][0]) > 1000 else 2
    return 0
'''


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk17: _stack_depth's audit exemption covers a gc.get_objects its _getframe argument runs from C"))
def test_a_gc_traversal_run_through_the_stack_depths_exemption_is_evidence(tmp_path, executor):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text(EXEMPTION)
    test_file = tmp_path / "test_harness_owned.py"
    test_file.write_text("from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n")
    judged = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True)
    assert judged.subverted and not judged.passed, judged.output
