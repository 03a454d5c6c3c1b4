"""Red team atk20: the judge's changes fc66ad9 (``ABC_CHECKS_RULE``), 3afc1f1 and 82fc7db (subject_main
``_released_with_the_modules``) and ca88533 (``multiprocessing.active_children`` in ``MEASURES_RULE``), attacked with
concrete trees, each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change.

Open (strict xfails; a name moved into ``ATK20_CLOSED`` runs as an ordinary test). ``LENIENT``: plain pytest fails the
tree, the judge passes it; ``HONEST``: plain pytest passes the tree, the judge fails it. Each was run judged and plain,
cold and warm, before it was written down here.

1. (3afc1f1) The release ties the test-held objects' lifetime to a module ``_hx_released`` the subject appends to
   ``sys.modules`` in its last atexit callback; under plain pytest they live in the test module, whose lifetime is
   ``sys.modules``'s entry too (pytest's own references are gone by the atexit callbacks). A tree's atexit callback
   that removes the module holding its objects (``del sys.modules[name]`` of a module whose namespace holds an
   instance of its class, or plainly ``sys.modules.clear()``) frees the test-held object under plain pytest before the
   interpreter's end (by the callback's ``gc.collect()``, or the next collection), with the import system whole
   (``import json`` works); judged the subject's
   ``sys.modules`` holds no test module, the callback finds nothing, and the object is freed with ``_hx_released``
   at the interpreter's module clearing (``import`` raises ImportError). A finalizer that exits 3 when its import
   works fails plain pytest and passes judged; the other way (exit 3 on ImportError) passes plain and fails judged.
   Before 3afc1f1 the release ran with the import system whole (the lenient way was judged as plain).
1b. (3afc1f1) The same lifetime the other way: a tree that rebinds ``sys.modules`` to a copy at its import (the
   docstring's "a tree's rebinding of sys.modules does not move it" holds for ``_hx_released``) keeps plain pytest's
   test module alive past the module clearing's first step (the copy holds it until the sys module's namespace goes),
   so the test-held object is freed after the interpreter cleared the namespaces of the modules still alive, the
   tree's included (its globals None); judged it is freed with ``_hx_released``, the tree's namespace whole. A
   finalizer reading a global of its module (``_FLAG``) exits 3 on None: fails plain, passes judged; the other way
   round, passes plain and fails judged. Without the rebinding both read the namespace whole (run: judged as plain).
1c. (3afc1f1) The moment within the module clearing, with no tree acting on it: under plain pytest the test module's
   namespace is in a cycle with its functions (``test_f.__globals__``), so the test-held objects are freed by the
   interpreter's collection after ``sys.modules`` was emptied (``finalize_clear_modules_dict``) and the builtins dict
   restored to its copy from the start (``finalize_restore_builtins``: a name the tree added is gone); ``_hx_released``
   has no cycle and is freed as its entry is set to None, before both (``sys.modules`` still holds every name, with
   None; the tree's builtin still there). A finalizer reading either (the modules dict it kept, the builtins dict)
   tells the two; both directions. (Its own entry being None, which both see, held.)
2. (fc66ad9, the rule's stated limit) An ABC the subject has no class of that name for, the test's own, is answered in
   the driver, on the stand-in's class, which has every special method a structural check looks for: the harness's
   own ``runtime_checkable`` protocol with ``__len__``, or its own ``abc.ABC`` whose ``__subclasshook__`` reads the
   class's ``__hash__``/``__iter__``, finds a tree object with none of them an instance judged, not under plain pytest
   (the kind atk14's six stdlib cases were, moved to the test's own ABCs).
3. (ca88533) ``MEASURES_RULE`` covers the ``active_children`` functions; ``multiprocessing.process._children``, the set
   they read, is a module attribute read in the driver: a test that checks it directly after the tree's call sees the
   driver's (empty) set while the tree's child runs.
3b. (ca88533, and ``MEASURES_RULE`` before it) The measures are the process's only inside the test's body
   (probe_runtime ``enter``/``leave`` set ``in_test``; ``_share`` answers None outside): a fixture's teardown, where a
   leak check usually sits (``yield`` then ``assert not multiprocessing.active_children()``, or
   ``threading.active_count() == 1``), reads the driver's alone. Plain pytest errors the test on the tree's child or
   thread left running; judged it passes. (A module-scoped fixture's teardown, after the canary: the same, run.)
4. (ca88533, honest) A harness test with a fork ``Pool`` of its own, ended by its ``with`` (``terminate``), fails judged
   on a right tree (the test's next call to the tree is "observed None" and the subject ends with status 1, a protocol
   fault), about three runs in four for one pool, so the case makes five; at ca88533's parent (82fc7db) it passes
   judged (run, cold and warm). Read, not traced: the pool's workers are forks of the driver, whose
   ``multiprocessing.process.active_children`` is now the measure (and ``multiprocessing.util._exit_function``, which
   each worker runs as it ends, holds it as a default bound when ``util`` was imported), so a worker makes the
   "children" request on the driver's channel; one terminated in the middle of that exchange leaves the channel out of
   step. A pool closed and joined, a spawn pool, and a fork ``Process`` of the test's that calls ``active_children``
   and returns, held (judged as plain).
5. (honest, present before fc66ad9, run at its parent; found by the ABC check from a thread of the test) A harness test
   whose threads use a tree object at once (six threads, each ``len(x)`` twenty times: a thread-safety test's shape)
   fails judged on a right tree, most runs as tampering (``subverted``) or "a message over the size limit": the
   driver's ``Peer.request`` holds no lock, so the test's threads' requests interleave on the one channel (the
   subject's ``Schedule`` orders the tree's threads, nothing orders the test's). One thread of the test checking an
   ABC while the main thread joins it was read as tampering once in five runs.

Also open, honest, present before fc66ad9 (run at fc66ad9~1 too), which fc66ad9's one stand-in class per tree class
leaves as it was: the stand-in's class is not the driver's stand-in of the tree's class itself, nor a subclass of the
stand-ins of its bases or of the library classes it derives from, so ``type(f()) is C`` (``from pkg import C``), a
``functools.singledispatch`` registration on the tree's class, ``isinstance(b, type(a))`` for a tree class B(A),
``isinstance(f(), enum.Enum)`` of a tree enum's member (``isinstance(f(), Color)`` holds), ``isinstance(f(),
logging.Handler)`` (or ``threading.Thread``) of a tree subclass, and ``pickle`` of ``type(f())`` (its ``__module__``
is a property: PicklingError) fail judged on a right tree. (A dataclass's ``asdict``, ``is_dataclass`` and
``replace`` held.)

Tried and held without a case here (judged as plain, cold): ``type(a) is type(b)`` for two instances of one tree class
as a namedtuple, a list subclass (one with an attribute), an Enum, an exception; the class's handle after the class
itself crossed and was dropped (``type(a) is type(b)``, ``isinstance(b, type(a))``); ``numbers.Integral`` by the
tree's registration and ``numbers.Number``/``contextlib.AbstractContextManager`` on a tree object with nothing;
a ``functools.singledispatch`` on ``collections.abc.Sized`` (wrong tree); an ABC check in a callback the tree calls and
in a thread of the test (wrong and right trees; the wrong tree's thread case was once read as tampering on a loaded
machine, then judged as plain in three reruns: not reproduced, no case); a tree replacing
``multiprocessing.process.active_children`` or ``BaseContext.active_children`` (fails judged: a fault), hiding
``process._children`` (both pass: plain's ``active_children`` reads the same set), a spawn child left running (both
fail), ``get_context('spawn').active_children()`` and ``len(active_children())`` in the test (both fail), the
measure from a thread of the test (a fault: fails); the stdlib's structural ABCs imported inside the test function
(``contextlib.AbstractContextManager``/``AbstractAsyncContextManager``, ``typing.SupportsAbs``/``SupportsRound``/
``SupportsBytes``: both fail a tree object with nothing); a tree's ``__class__`` property calling back into the test
during the subject's check (both pass); at the release, the test-held object's finalizer reading its own module's
``sys.modules`` entry (None in both) and, without a tree acting on ``sys.modules``, its module's namespace (whole in
both). Noticed, present before fc66ad9, no case: a tree object whose ``__class__`` property raises cannot cross at all
("its result could not be sent", a fault; plain pytest passes a test that never reads its class). Read, no run:
``confine.mount_table`` (5e37dda) splits a line at its first " - " (the fields before it are escaped, so it cannot
occur in a path), and unescapes left to right (``\\134040`` is a backslash and "040"); the mount table is the
harness's namespace's, which a tree cannot add to.
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_KEEPS_CONN = "from pkg import Conn\n\n_C = Conn()\n\n\ndef test_f():\n    assert _C.get() == 1\n"
# 1. a test-held object whose finalizer tells an import system whole (freed early) from one torn down (freed at the
# module clearing), and an atexit callback of the tree that removes the module holding it from sys.modules
_FINALIZER = ("import atexit\nimport gc\nimport os\nimport sys\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n"
              "    def __del__(self):\n        try:\n            import json  # noqa: F401\n        except ImportError:\n"
              "            {on_late}\n        {on_early}\n\n\n")
_DROPS_HOLDER = _FINALIZER + (
    "def _end():\n    for name, m in list(sys.modules.items()):\n"
    "        if m is not None and any(type(v) is Conn for v in list(vars(m).values())):\n"
    "            del sys.modules[name]\n    gc.collect()\n\n\natexit.register(_end)\n")
_CLEARS_MODULES = _FINALIZER + "atexit.register(sys.modules.clear)\n"
# 1b. a tree that rebinds sys.modules to a copy at its import, whose test-held object's finalizer reads its module's
# namespace (cleared, its values None, when the interpreter clears the modules still alive)
_REBINDS_MODULES = (
    "import os\nimport sys\n\n_FLAG = 1\nsys.modules = dict(sys.modules)\n\n\nclass Conn:\n    def get(self):\n"
    "        return 1\n\n    def __del__(self, _exit=os._exit, _ns=globals()):\n"
    "        if _ns.get('_FLAG') is {cond}None:\n            _exit(3)\n")
# 1c. a test-held object's finalizer reading the interpreter's modules dict (emptied) or its builtins (restored: the
# tree's name gone) when the module clearing frees it
_READS_CLEARING = (
    "import builtins\nimport os\nimport sys\n\nbuiltins.pkg_loaded = True\n\n\nclass Conn:\n    def get(self):\n"
    "        return 1\n\n    def __del__(self, _exit=os._exit, _modules=sys.modules, _builtins=builtins.__dict__):\n"
    "        if {cond}:\n            _exit(3)\n")
_NOTHING = "class C:\n    pass\n\n\ndef f():\n    return C()\n"
_CHILD = ("import multiprocessing\nimport time\n\n_P = []\n\n\ndef f():\n"
          "    p = multiprocessing.get_context('fork').Process(target=time.sleep, args=(20,), daemon=True)\n    p.start()\n"
          "    _P.append(p)\n    return 1\n")

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. plain pytest: the test module, removed from sys.modules by the tree's atexit callback, frees the object there
    # (its import works: exits 3); judged: freed at the module clearing (ImportError)
    "tree_end_removes_the_module_holding_its_object": (
        _DROPS_HOLDER.format(on_late="return", on_early="os._exit(3)"), _KEEPS_CONN),
    "tree_end_clears_sys_modules": (_CLEARS_MODULES.format(on_late="return", on_early="os._exit(3)"), _KEEPS_CONN),
    # 1b. plain pytest: the test module, kept by the rebound sys.modules, outlives the module clearing's first step and
    # is freed after the tree's module namespace was cleared (exits 3); judged: freed with _hx_released before
    "tree_rebinds_sys_modules_at_its_import": (_REBINDS_MODULES.format(cond=""), _KEEPS_CONN),
    # 1c. plain pytest: the test-held object is freed with sys.modules emptied and builtins restored (exits 3);
    # judged: freed as _hx_released's entry is set to None, before both
    "finalizer_reads_the_modules_dict": (_READS_CLEARING.format(cond="not _modules"), _KEEPS_CONN),
    "finalizer_reads_the_builtins": (_READS_CLEARING.format(cond="'pkg_loaded' not in _builtins"), _KEEPS_CONN),
    # 2. the harness's own runtime-checkable protocol: plain False (no __len__); judged the stand-in's class has one
    "tests_own_protocol_with_a_special_method": (
        _NOTHING, "import typing\n\nfrom pkg import f\n\n\n@typing.runtime_checkable\nclass HasLen(typing.Protocol):\n"
                  "    def __len__(self):\n        ...\n\n\ndef test_f():\n    assert isinstance(f(), HasLen)\n"),
    # 2. the harness's own ABC with a structural __subclasshook__: plain False; judged the stand-in's class's methods
    "tests_own_abc_with_a_structural_hook": (
        _NOTHING, "import abc\n\nfrom pkg import f\n\n\nclass HashableIterable(abc.ABC):\n    @classmethod\n"
                  "    def __subclasshook__(cls, c):\n        return any(b.__dict__.get('__hash__') is not None and "
                  "'__iter__' in b.__dict__ for b in c.__mro__) or NotImplemented\n\n\n"
                  "def test_f():\n    assert isinstance(f(), HashableIterable)\n"),
    # 3b. plain: the autouse fixture's teardown finds the tree's child (an error); judged the measure outside the test's
    # body is the driver's alone
    "leaked_child_checked_by_a_fixtures_teardown": (
        _CHILD, "import multiprocessing\n\nimport pytest\n\nfrom pkg import f\n\n\n@pytest.fixture(autouse=True)\n"
                "def _no_leaked_children():\n    yield\n    assert not multiprocessing.active_children()\n\n\n"
                "def test_f():\n    assert f() == 1\n"),
    # 3b. the same with threading.active_count (present before ca88533)
    "leaked_thread_checked_by_a_fixtures_teardown": (
        "import threading\nimport time\n\n\ndef f():\n    threading.Thread(target=time.sleep, args=(3,), daemon=True)"
        ".start()\n    return 1\n",
        "import threading\n\nimport pytest\n\nfrom pkg import f\n\n\n@pytest.fixture(autouse=True)\n"
        "def _no_leaked_threads():\n    yield\n    assert threading.active_count() == 1\n\n\n"
        "def test_f():\n    assert f() == 1\n"),
    # 3. plain: the tree's child is in multiprocessing.process._children; judged the driver's set is empty
    "process_children_read_by_the_test": (
        _CHILD, "import multiprocessing.process\n\nfrom pkg import f\n\n\ndef test_f():\n    assert f() == 1\n"
                "    assert not multiprocessing.process._children\n"),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 1. (the other way) a finalizer that must run with the import system whole: under plain pytest the tree's
    # callback frees the object there (import works: passes); judged it is freed at the module clearing (exits 3)
    "tree_end_removes_the_module_holding_its_object": (
        _DROPS_HOLDER.format(on_late="os._exit(3)", on_early="return"), _KEEPS_CONN),
    "tree_end_clears_sys_modules": (_CLEARS_MODULES.format(on_late="os._exit(3)", on_early="return"), _KEEPS_CONN),
    # 1b. (the other way) a finalizer that needs its module's namespace cleared, as under plain pytest
    "tree_rebinds_sys_modules_at_its_import": (_REBINDS_MODULES.format(cond="not "), _KEEPS_CONN),
    # 1c. (the other way) a finalizer that expects the modules dict emptied, or the builtins restored
    "finalizer_reads_the_modules_dict": (_READS_CLEARING.format(cond="_modules"), _KEEPS_CONN),
    "finalizer_reads_the_builtins": (_READS_CLEARING.format(cond="'pkg_loaded' in _builtins"), _KEEPS_CONN),
}
# the tree class's identity (present before fc66ad9): name -> (the tree's package, the harness's test)
CLASS_IDENTITY: dict[str, tuple] = {
    "type_of_an_object_is_its_class": (
        _NOTHING, "from pkg import C, f\n\n\ndef test_f():\n    x = f()\n    assert isinstance(x, C)\n"
                  "    assert type(x) is C\n"),
    "singledispatch_on_the_trees_class": (
        _NOTHING, "import functools\n\nfrom pkg import C, f\n\n\n@functools.singledispatch\ndef g(x):\n    return 0\n\n\n"
                  "@g.register(C)\ndef _(x):\n    return 1\n\n\ndef test_f():\n    assert g(f()) == 1\n"),
    "object_of_a_subclass_is_an_instance_of_the_others_class": (
        "class A:\n    pass\n\n\nclass B(A):\n    pass\n\n\ndef f():\n    return A(), B()\n",
        "from pkg import f\n\n\ndef test_f():\n    a, b = f()\n    assert isinstance(b, type(a))\n"),
    "tree_enum_member_is_an_enum": (
        "import enum\n\n\nclass Color(enum.Enum):\n    R = 1\n\n\ndef f():\n    return Color.R\n",
        "import enum\n\nfrom pkg import Color, f\n\n\ndef test_f():\n    assert isinstance(f(), Color)\n"
        "    assert isinstance(f(), enum.Enum)\n"),
    "tree_handler_is_a_logging_handler": (
        "import logging\n\n\nclass H(logging.Handler):\n    def emit(self, record):\n        pass\n\n\n"
        "def f():\n    return H()\n",
        "import logging\n\nfrom pkg import f\n\n\ndef test_f():\n    assert isinstance(f(), logging.Handler)\n"),
    "pickle_of_the_objects_class": (
        _NOTHING, "import pickle\n\nfrom pkg import f\n\n\ndef test_f():\n    t = type(f())\n"
                  "    assert pickle.loads(pickle.dumps(t)) is t\n"),
}
# 4. a harness test with a fork pool of its own (name -> (the tree's package, the harness's test)); plain pytest passes
FORK_POOLS: dict[str, tuple] = {
    "fork_pool_ended_by_its_with": (
        "def f():\n    return 1\n",
        "import multiprocessing\n\nfrom pkg import f\n\n\ndef _sq(x):\n    return x * x\n\n\ndef test_f():\n"
        "    for _ in range(5):\n        with multiprocessing.get_context('fork').Pool(2) as pool:\n"
        "            assert pool.map(_sq, [1, 2]) == [1, 4]\n    assert f() == 1\n"),
}
# 5. a harness test whose threads use a tree object at once; plain pytest passes
TEST_THREADS: dict[str, tuple] = {
    "six_threads_take_the_len_of_one_tree_object": (
        "class C:\n    def __len__(self):\n        return 1\n\n\ndef f():\n    return C()\n",
        "import threading\n\nfrom pkg import f\n\n\ndef test_f():\n    x = f()\n    out = []\n\n    def run():\n"
        "        for _ in range(20):\n            out.append(len(x))\n\n"
        "    ts = [threading.Thread(target=run) for _ in range(6)]\n    for t in ts:\n        t.start()\n"
        "    for t in ts:\n        t.join()\n    assert out == [1] * 120\n"),
}
# closed: the released tables' module is in a reference cycle, freed in the interpreter's last collection as a test
# module is (subject_main ``_released_with_the_modules``); the test's own ABC or protocol that reads the class's members
# fails closed on a stand-in (probe_runtime ``_structural``: ABC_CHECKS_RULE); MEASURES_RULE's shares are never
# requested from a child the test forked (probe_runtime ``_share``)
ATK20_CLOSED: frozenset[str] = frozenset({
    "finalizer_reads_the_builtins", "finalizer_reads_the_modules_dict", "tests_own_abc_with_a_structural_hook",
    "tests_own_protocol_with_a_special_method", "fork_pool_ended_by_its_with"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk20: the judge passes a tree plain pytest fails (a test-held object freed at another moment of the "
    "module clearing than plain pytest's test module frees it; the test's own ABC answered on the stand-in's class; "
    "multiprocessing.process._children; a measure in a fixture's teardown)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk20: the judge fails a right tree plain pytest passes (a test-held object freed at another moment "
    "of the module clearing than plain pytest's test module frees it, the other way)"))
_IDENTITY_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk20: a tree object's stand-in class is not the stand-in of the tree's class nor a subclass of its "
    "bases' (type(x) is C, singledispatch, isinstance of a base or of a library base, pickle of the class)"))


def _params(cases: dict, mark) -> list:
    return [pytest.param(n, marks=[] if n in ATK20_CLOSED else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_its_end_the_tests_own_abc_or_its_children(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_whose_test_held_objects_finalizer_reads_the_module_clearing_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)


@pytest.mark.parametrize("name", _params(CLASS_IDENTITY, _IDENTITY_OPEN))
def test_a_tree_objects_class_is_the_trees_class_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, CLASS_IDENTITY[name], plain_passes=True)


@pytest.mark.parametrize("name", _params(FORK_POOLS, pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk20: a harness test's fork pool, whose workers run the driver's active_children measure, leaves the "
    "driver's channel out of step (ca88533)"))))
def test_a_harness_test_with_a_fork_pool_of_its_own_passes_judged_on_a_right_tree(tmp_path, executor, name):
    _judged_as_plain(tmp_path, FORK_POOLS[name], plain_passes=True)


@pytest.mark.parametrize("name", _params(TEST_THREADS, pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk20: the test's threads' requests interleave on the driver's one channel (no lock in Peer.request): "
    "a right tree read as tampering"))))
def test_a_harness_test_whose_threads_use_a_tree_object_at_once_passes_judged_on_a_right_tree(tmp_path, executor, name):
    _judged_as_plain(tmp_path, TEST_THREADS[name], plain_passes=True)
