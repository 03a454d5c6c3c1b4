"""Red team atk18: the judge's changes a212611, 584b0d3, e93cbc5 and 339ef39 (the subject's end releasing the protocol's
objects from an atexit callback, PROCESS_END_RULE's 5 s kill, STACK_DEPTH_RULE's split, CANARY_FAULT_RULE), attacked
with concrete trees, each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change.

Open (strict xfails; a name moved into ``ATK18_CLOSED`` runs as an ordinary test). 1-3 are each a finalizer of a tree object
the test module keeps (``_C = Conn()`` at the test's import), which the subject's end runs in the release
(``atexit.register(peer.__dict__.clear)`` in subject_main), where plain pytest's process runs it when the interpreter
clears the test module, after every atexit callback. Each kind comes in both directions: ``LENIENT`` (plain pytest
fails the tree, the judge passes it: the finalizer exits 3 on what it sees under plain pytest) and ``HONEST`` (plain
pytest passes, the judge fails: it exits 3 on what it sees judged).

1. The release is registered *after* the subject's own atexit callbacks (``weakref.finalize``'s ``_exitfunc``, which
   subject_main registers first on purpose, and ``logging.shutdown``, registered when the protocol's load imports
   ``logging``): atexit runs the last registered first, so the release runs *before* them. Under plain pytest both
   ran before the test module's objects are freed: a tree's ``weakref.finalize`` of a module-level object (default
   ``atexit=True``) is already dead, its logging handler already closed, when the test-held object's ``__del__`` runs;
   judged, neither.
2. The release runs while the interpreter is whole; plain pytest frees the test module's objects during
   ``finalize_modules``, after ``sys.modules`` entries and ``sys.meta_path`` were set to None: an ``import`` in the
   finalizer raises ImportError under plain pytest and succeeds judged. Closed: the release moves the protocol's
   tables into a module the interpreter frees as it clears its modules (subject_main ``_released_with_the_modules``).
3. The order of the finalizers: plain pytest's is the order the test module's containers deallocate (a list frees its
   items last to first; the module's dict its globals in definition order), the judge's the order of the protocol's
   tables (seen: a list's two items freed first to last, two globals last to first).
4. (``test_the_judge_reads_the_subjects_end_whatever_the_tree_signals_its_parent``) the subject sees its parent, the
   driver (``os.getppid()``; plain pytest's process sees none: it is its namespace's first, ``getppid()`` is 0), and may
   signal it: a SIGINT sent from the tree's atexit callback reaches the driver while its own atexit callback
   ``_stop_subject`` waits for the subject's end; the KeyboardInterrupt ends that callback ("Exception ignored in
   atexit callback"), the subject's status 3 is never read, no fault is recorded and the driver's status stays
   pytest's 0: the judge passes a tree whose process fails plain pytest (status 3). The driver being its namespace's
   first process, a signal it has no handler for (SIGTERM, SIGUSR1, SIGKILL from inside) is dropped: held.
5. (``test_a_ctypes_cell_made_through_dict_cells_ofs_exemption_is_evidence``) 584b0d3's ``_load_protocol`` exempts
   ``_dict_cells_of`` from the audit's ctypes evidence by code identity, and that function makes a
   ``c_uint64.from_address(id(d) + 24)`` for each ``d`` of the iterable its caller passes: a tree that reached the
   function (a stdlib frame walk, ``traceback.walk_stack``: unreported, the open ``INSPECT_STACK`` case, as atk17's
   1e reached ``_stack_depth``) gets a readable and writable 8-byte cell at any object it names (a list's item-array
   pointer) with no evidence, and the judge passes a tree that tells the subject from plain pytest (plain pytest
   fails it). The same kind as atk17's 1e (an exemption by code identity covers what the caller hands the
   function), a second function: a fix for ``_stack_depth`` alone leaves this one.
6. (``test_the_judge_fails_a_tree_whose_process_ends_with_its_last_flush_failing``) at plain pytest's process end
   (its capture stopped) ``sys.stdout`` is the interpreter's own buffered stream: text the tree's atexit callback
   wrote is still pending when it closes descriptor 1, the interpreter's last flush fails (EBADF) and the process
   exits 120. The subject's ``sys.stdout`` is written through (STREAMS_RULE), nothing is pending, the subject exits
   0: the judge passes a tree whose process fails plain pytest.

Held (ordinary tests, ``HELD``): a tree that clears atexit's callbacks (``atexit._clear()``, the open case subject_main
names) with a non-daemon thread that collects garbage until a test-held object goes: the object stays alive judged as
under plain pytest (the protocol still holds it after ``del peer``), both fail.

Tried and held without a case here (each run judged and plain once): ``sys.exit`` rebound by the tree at import
(MODULE_STATE_RULE's fault), or by the finalizer of a raising call's local after its reply (the subject's status 3
still read), or by a released stand-in's finalizer (a fault at the next reply); a signal handler of the tree's (a
guarded change); SIGTERM, SIGUSR1, SIGSEGV, SIGSTOP and SIGKILL sent to the parent (dropped by the driver, its
namespace's first process: the status-3 fault stands); a finalizer the test's ``gc.collect`` runs (padded: 950
frames of room judged, 960 plain: stricter); a module-scoped fixture's object whose finalizer appends to the test's
list (released with the canary's message: passes both); ``fractions._PyHASH_MODULUS`` changed under an assertion of
builtins and observed values only (``len({f(), 0.25}) == 1``, ``hash(f()) == hash(0.25)``: computed in the driver,
which has the change: both fail); ``fractions.Fraction`` rebound (guarded). ``CANARY_FAULT_RULE`` (read, not run):
only ``fault`` records (the driver's, under the nonce) move, to the test that left last, which then fails; the canary's
own check (``a * b`` in the driver) still decides "altered": no way seen for a tree to turn a failure into a pass or
an altered canary into a fault.
"""
from __future__ import annotations

import pytest

from harness.judge.testrun import run_pytest
from tests.harness.judge.test_atk16_attacks import _judged_as_plain
from tests.harness.judge.test_identity import HIDE

_KEEPS_CONN = "from pkg import Conn\n\n_C = Conn()\n\n\ndef test_f():\n    assert _C.get() == 1\n"
# 1. a weakref.finalize (atexit=True) of a module-level object, read by the finalizer of the test-held object
_WEAKREF_FINALIZE = (
    "import os\nimport weakref\n\n\nclass _Res:\n    pass\n\n\n_RES = _Res()\n_FIN = weakref.finalize(_RES, int)\n\n\n"
    "class Conn:\n    def get(self):\n        return 1\n\n    def __del__(self, _fin=_FIN, _exit=os._exit):\n"
    "        if {cond}_fin.alive:\n            _exit(3)\n")
# 1. a logging handler of the tree's, closed by logging.shutdown, read by the finalizer of the test-held object
_LOGGING_SHUTDOWN = (
    "import logging\nimport os\n\n\nclass _Closing(logging.Handler):\n    closed = False\n\n    def emit(self, record):\n"
    "        pass\n\n    def close(self):\n        _Closing.closed = True\n        super().close()\n\n\n"
    "logging.getLogger('pkg').addHandler(_Closing())\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n"
    "    def __del__(self, _h=_Closing, _exit=os._exit):\n        if {cond}_h.closed:\n            _exit(3)\n")
# 2. an import in the finalizer of the test-held object
_IMPORTS = (
    "import os\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n    def __del__(self, _exit=os._exit):\n"
    "        try:\n            import colorsys  # noqa: F401\n        except ImportError:\n            {failed}\n"
    "        else:\n            {imported}\n")
# 3. two test-held objects whose finalizers record their order; 'b' then 'a' exits 3
_ORDERED = (
    "import os\n\n_ORDER = []\n\n\nclass Conn:\n    def __init__(self, name):\n        self.name = name\n\n"
    "    def get(self):\n        return 1\n\n    def __del__(self, _order=_ORDER, _exit=os._exit):\n"
    "        _order.append(self.name)\n        if _order == ['b', 'a']:\n            _exit(3)\n")

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. plain pytest: weakref's atexit callback ran before the test module is cleared; judged: after the release
    "weakref_finalize_at_exit_run_before_a_test_held_objects_finalizer": (
        _WEAKREF_FINALIZE.format(cond="not "), _KEEPS_CONN),
    # 1. plain pytest: logging.shutdown closed the tree's handler before the test module is cleared; judged: after
    "logging_shutdown_run_before_a_test_held_objects_finalizer": (_LOGGING_SHUTDOWN.format(cond=""), _KEEPS_CONN),
    # 2. plain pytest: the import system is gone when the test module's objects are freed; judged: whole
    "import_in_a_test_held_objects_finalizer_at_the_interpreters_end": (
        _IMPORTS.format(failed="_exit(3)", imported="pass"), _KEEPS_CONN),
    # 3. plain pytest: the test module's list frees its items last to first ('b', 'a'); judged: first to last
    "test_held_list_freeing_its_items_last_to_first": (
        _ORDERED, "from pkg import Conn\n\n_CONNS = [Conn('a'), Conn('b')]\n\n\ndef test_f():\n"
                  "    assert _CONNS[0].get() == 1\n"),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 1. (the other way) a finalizer that must run after the tree's weakref.finalize callbacks at exit
    "finalizer_after_the_weakref_finalize_callbacks_at_exit": (_WEAKREF_FINALIZE.format(cond=""), _KEEPS_CONN),
    # 1. (the other way) a finalizer that must run after logging.shutdown closed the tree's handlers
    "finalizer_after_logging_shutdown": (_LOGGING_SHUTDOWN.format(cond="not "), _KEEPS_CONN),
    # 2. (the other way) a finalizer that imports nothing once the interpreter is ending (an import there succeeding
    # means it ran before the interpreter's end: exits 3)
    "finalizer_run_while_the_interpreter_ends": (_IMPORTS.format(failed="pass", imported="_exit(3)"), _KEEPS_CONN),
    # 3. (the other way) two globals freed in their definition order ('a', 'b'); judged: 'b' first
    "test_held_globals_freed_in_their_definition_order": (
        _ORDERED, "from pkg import Conn\n\nA = Conn('a')\nB = Conn('b')\n\n\ndef test_f():\n    assert A.get() == 1\n"),
}
# closed (subject_main: the release is the first atexit callback registered, so it runs after every other one; it frees
# the tables as the interpreter clears its modules, the import system torn down: ``_released_with_the_modules``)
ATK18_CLOSED: frozenset[str] = frozenset({
    "logging_shutdown_run_before_a_test_held_objects_finalizer", "weakref_finalize_at_exit_run_before_a_test_held_objects_finalizer",
    "finalizer_after_logging_shutdown", "finalizer_after_the_weakref_finalize_callbacks_at_exit",
    "import_in_a_test_held_objects_finalizer_at_the_interpreters_end", "finalizer_run_while_the_interpreter_ends",
    # (passes since the held dict is the protocol's, atk21: by the order the last collection frees the tables in, not
    # by a rule; its lenient mirror, a list's items last to first, stays open)
    "test_held_globals_freed_in_their_definition_order"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk18: the judge passes a tree plain pytest fails (the end's release frees the test-held objects in the "
    "protocol's tables' order, not the test module's containers')"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk18: the judge fails a right tree plain pytest passes (the end's release frees the test-held objects in "
    "the protocol's tables' order, not the test module's containers')"))


def _params(cases: dict, mark) -> list:
    return [pytest.param(n, marks=[] if n in ATK18_CLOSED else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_whose_test_held_objects_finalizer_reads_the_process_end(
        tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_whose_test_held_objects_finalizer_needs_the_process_end_passes_judged(
        tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


# a tree that clears atexit's callbacks (the release among them), with a non-daemon thread collecting garbage until the
# test-held object goes, else exiting 3: the protocol still holds the object after subject_main's ``del peer``, so it
# stays alive judged as under plain pytest (until the interpreter clears the modules) and both fail
_CLEARS_ATEXIT = (
    "import atexit\nimport gc\nimport os\nimport threading\nimport time\nimport weakref\n\natexit._clear()\n\n\n"
    "class Conn:\n    def get(self):\n        return 1\n\n\ndef _watch(ref):\n    for _ in range(40):\n        gc.collect()\n"
    "        if ref() is None:\n            return\n        time.sleep(0.05)\n    os._exit(3)\n\n\ndef connect():\n"
    "    c = Conn()\n    threading.Thread(target=_watch, args=(weakref.ref(c),)).start()\n    return c\n")
HELD: dict[str, tuple] = {
    "atexit_cleared_and_a_thread_collecting_until_a_test_held_object_goes": (
        _CLEARS_ATEXIT, "from pkg import connect\n\n_C = connect()\n\n\ndef test_f():\n    assert _C.get() == 1\n",
        False),
}


@pytest.mark.parametrize("name", sorted(HELD))
def test_a_tree_clearing_atexit_keeps_its_test_held_objects_as_plain_pytest(tmp_path, executor, name):
    module, test, plain_passes = HELD[name]
    _judged_as_plain(tmp_path, (module, test), plain_passes=plain_passes)


# 4. the tree's atexit callback signals its parent (the driver, judged; none under plain pytest) and fails the process
_SIGNALS_PARENT = (
    "import atexit\nimport os\nimport signal\nimport time\n\n\ndef _end():\n    parent = os.getppid()\n"
    "    if parent:  # (the process that started this one, when one is in view)\n"
    "        os.kill(parent, signal.SIGINT)\n        time.sleep(0.5)\n    os._exit(3)\n\n\natexit.register(_end)\n\n\n"
    "def f():\n    return 1\n")


# closed (probe_runtime ``DRIVER_SIGINT_RULE``: the driver's SIGINT handler returns); was: the SIGINT interrupted the
# driver's _stop_subject (an atexit callback), the subject's status 3 was never read and the judge passed the tree
def test_the_judge_reads_the_subjects_end_whatever_the_tree_signals_its_parent(tmp_path, executor):
    _judged_as_plain(tmp_path, (_SIGNALS_PARENT, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"),
                     plain_passes=False)


# 5. a ctypes cell over a list the tree names, made by ``_dict_cells_of`` (reached through a stdlib frame walk)
CELLS_OF = '''
import traceback


def f():
    for frame, _ in traceback.walk_stack(None):
        cells_of = frame.f_globals.get("_dict_cells_of")
        if cells_of is not None and getattr(cells_of, "__name__", "") == "_dict_cells_of":
            target = [1, 2, 3]  # (a list: the address of its item array lies 24 bytes in)
            cells = cells_of([target])
            return 1 if cells and cells[0].value else 2
    return 0
'''


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk18: _dict_cells_of's audit exemption covers a ctypes cell over any object its caller names"))
def test_a_ctypes_cell_made_through_dict_cells_ofs_exemption_is_evidence(tmp_path, executor):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text(CELLS_OF)
    test_file = tmp_path / "test_harness_owned.py"
    test_file.write_text("from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n")
    plain = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True, judged=False)
    if plain.passed:
        pytest.fail(f"premise: plain pytest's verdict: {plain.output}")
    judged = run_pytest(tree, test_file, dest_rel="tests/test_t.py", hide=HIDE, show=True)
    assert judged.subverted and not judged.passed, judged.output


# 6. the tree's atexit callback leaves text in sys.stdout and closes descriptor 1: plain pytest's last flush fails
_LAST_FLUSH = (
    "import atexit\nimport os\nimport sys\n\n\ndef _end():\n    sys.stdout.write('bye')\n    os.close(1)\n\n\n"
    "atexit.register(_end)\n\n\ndef f():\n    return 1\n")


# closed (subject_main ``_pytest_session_end``: the interpreter's own streams after the last request, as pytest's capture
# restores them); was: the subject's written-through stream could not fail its last flush, status 0, judged passed
def test_the_judge_fails_a_tree_whose_process_ends_with_its_last_flush_failing(tmp_path, executor):
    _judged_as_plain(tmp_path, (_LAST_FLUSH, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"),
                     plain_passes=False)


def test_an_honest_tree_writing_at_its_end_passes_judged(tmp_path, executor):
    """The same streams, honest: an atexit callback that writes and leaves descriptor 1 open ends 0 in both."""
    module = "import atexit\nimport sys\n\n\natexit.register(lambda: sys.stdout.write('bye'))\n\n\ndef f():\n    return 1\n"
    _judged_as_plain(tmp_path, (module, "from pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"),
                     plain_passes=True)
