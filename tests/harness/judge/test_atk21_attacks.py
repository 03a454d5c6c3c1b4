"""Red team atk21: the judge's changes 4ff768c (subject_main ``_pytest_session_end``, ``_HELD_FOR_THE_DRIVER``,
probe_runtime ``DRIVER_SIGINT_RULE``, ``_share``) and f891b9a (subject_main ``_released_with_the_modules``: the tables'
module ``_hx_released`` in a reference cycle), attacked with concrete trees, each judged and run under plain pytest in
the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change.

Open (strict xfails; a name moved into ``ATK21_CLOSED`` runs as an ordinary test). ``LENIENT``: plain pytest fails the
tree, the judge passes it; ``HONEST``: plain pytest passes the tree, the judge fails it.

1. (4ff768c) The test-held objects' tables are held by a module global of the subject's main module,
   ``_HELD_FOR_THE_DRIVER`` (``{"peer": ..., "served": ...}``), which ``_released_with_the_modules`` reads in the
   subject's last atexit callback. The tree runs in that process and can find it (any module in ``sys.modules`` with
   that attribute; none under plain pytest, where the loop finds nothing). A tree's atexit callback that empties it
   drops the last reference to the peer there: its tables and the test-held object are freed inside the tree's
   callback, with the import system whole, where plain pytest frees the test module's objects at the module clearing
   (``import`` raises ImportError). A finalizer that exits 3 on ImportError fails plain pytest and passes judged;
   the other way round (exits 3 when its import works) passes plain and fails judged.
1b. The same with no harness name in the tree: an atexit callback that clears atexit's callbacks (``atexit._clear()``,
   the case 4ff768c's global was for) and its main module's namespace (``vars(sys.modules['__main__']).clear()``).
   Judged those are the only two references to ``_HELD_FOR_THE_DRIVER`` (the release's registered arguments and the
   subject's global), so the peer and the test-held object are freed there, imports working; under plain pytest the
   main module is pytest's ``__main__``, which holds nothing of the test's, and the test module keeps its object to the
   module clearing (ImportError). Both directions, as 1.
2. (f891b9a's ``_structural``, ``ABC_CHECKS_RULE``) The rule's ground: the stand-in's class has every special method, so
   a check that reads a tree class's members in the driver reads the stand-in's. f891b9a fails closed such a check made
   by an ABC (a ``__subclasshook__``, a ``typing`` protocol); the same reading without an ABC is not routed: the test's
   ``hasattr(type(x), '__len__')``, ``'__getitem__' in dir(type(x))``, or its own metaclass's ``__instancecheck__``
   reading ``dir(type(x))`` (no ``abc.ABCMeta``), on a tree object whose class has none of them, is True judged and
   False under plain pytest (LENIENT, cold and warm). (``callable(x)`` of such an object held: judged as plain.)

Tried and held (judged as plain, cold): (f891b9a) a tree's atexit callback ``gc.freeze()`` before the release, with a
test-held object's finalizer reading its module's global (None or not, both ways): ``_hx_released``, made after the
freeze, and plain pytest's frozen test module are freed with the same namespace state. Read, no case: 9f8c006's
``interruption_in`` (harness.cli) finds only an ``Interrupted``, which only the command's signal handler raises, once;
no agent-written code runs in the command's process (trees run sandboxed; a run file is data), and a RuntimeError it
catches without one is re-raised as before (no harness error class derives from RuntimeError, so no later ``except``
of ``_dispatch`` is skipped).
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_KEEPS_CONN = "from pkg import Conn\n\n_C = Conn()\n\n\ndef test_f():\n    assert _C.get() == 1\n"
# 1. a tree whose atexit callback empties a dict some module of its process holds under the name
# ``_HELD_FOR_THE_DRIVER`` (none under plain pytest), and whose test-held object's finalizer tells an import system
# whole (freed there) from one torn down (freed at the module clearing, as under plain pytest)
_EMPTIES_HELD = (
    "import atexit\nimport os\nimport sys\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n"
    "    def __del__(self, _exit=os._exit):\n        try:\n            import json  # noqa: F401\n"
    "        except ImportError:\n            {on_late}\n        {on_early}\n\n\ndef _end():\n"
    "    for m in list(sys.modules.values()):\n        held = getattr(m, '_HELD_FOR_THE_DRIVER', None)\n"
    "        if type(held) is dict:\n            held.clear()\n\n\natexit.register(_end)\n")
# 1b. the same without a harness name: the tree's atexit callback clears atexit's callbacks and its main module's
# namespace (under plain pytest, pytest's ``__main__``, whose namespace holds nothing of the test's)
_CLEARS_MAIN = (
    "import atexit\nimport os\nimport sys\n\n\nclass Conn:\n    def get(self):\n        return 1\n\n"
    "    def __del__(self, _exit=os._exit):\n        try:\n            import json  # noqa: F401\n"
    "        except ImportError:\n            {on_late}\n        {on_early}\n\n\ndef _end():\n"
    "    atexit._clear()\n    vars(sys.modules['__main__']).clear()\n\n\natexit.register(_end)\n")
# 2. a tree object whose class has no special method of its own, and a test that reads its class's members without an ABC
_NOTHING = "class C:\n    pass\n\n\ndef f():\n    return C()\n"

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. plain pytest: freed at the module clearing (ImportError: exits 3); judged: freed in the tree's callback
    "tree_empties_the_held_dict": (_EMPTIES_HELD.format(on_late="_exit(3)", on_early="return"), _KEEPS_CONN),
    "tree_clears_atexit_and_its_main_module": (_CLEARS_MAIN.format(on_late="_exit(3)", on_early="return"), _KEEPS_CONN),
    # 2. plain: the tree's class has no __len__/__getitem__/__iter__; judged the stand-in's class has each
    "hasattr_of_the_objects_class": (
        _NOTHING, "from pkg import f\n\n\ndef test_f():\n    assert hasattr(type(f()), '__len__')\n"),
    "dir_of_the_objects_class": (
        _NOTHING, "from pkg import f\n\n\ndef test_f():\n    assert '__getitem__' in dir(type(f()))\n"),
    "tests_own_metaclass_reading_the_class": (
        _NOTHING, "from pkg import f\n\n\nclass M(type):\n    def __instancecheck__(cls, x):\n"
                  "        return '__iter__' in dir(type(x))\n\n\nclass Iterable(metaclass=M):\n    pass\n\n\n"
                  "def test_f():\n    assert isinstance(f(), Iterable)\n"),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 1. (the other way) plain pytest: ImportError, returns; judged: its import works, exits 3
    "tree_empties_the_held_dict": (_EMPTIES_HELD.format(on_late="return", on_early="_exit(3)"), _KEEPS_CONN),
    "tree_clears_atexit_and_its_main_module": (_CLEARS_MAIN.format(on_late="return", on_early="_exit(3)"), _KEEPS_CONN),
}
# closed: the held dict is the protocol's, in no module of sys.modules (subject_main ``main``): a tree can no longer find
# it by name or drop it with ``__main__``'s namespace in the honest direction; the lenient 1b stays open (a collection
# during the tree's callbacks frees the protocol's namespace once nothing else holds it)
# closed: a stand-in's special members, and its class's, are the subject's answer (subject_rpc STAND_IN_MEMBERS_RULE)
ATK21_CLOSED: frozenset[str] = frozenset({"tree_empties_the_held_dict", "hasattr_of_the_objects_class",
                                          "dir_of_the_objects_class", "tests_own_metaclass_reading_the_class"})
ATK21_CLOSED_HONEST: frozenset[str] = ATK21_CLOSED | {"tree_clears_atexit_and_its_main_module"}

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk21: the judge passes a tree plain pytest fails (the tree's atexit callback drops the subject's "
    "_HELD_FOR_THE_DRIVER, by name or by clearing atexit and __main__: the test-held object freed there, with the "
    "import system whole)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk21: the judge fails a right tree plain pytest passes (the tree's atexit callback drops the "
    "subject's _HELD_FOR_THE_DRIVER: the test-held object freed with the import system whole, the other way)"))


def _params(cases: dict, mark, closed: frozenset = ATK21_CLOSED) -> list:
    return [pytest.param(n, marks=[] if n in closed else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_its_end_or_its_class_members(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN, ATK21_CLOSED_HONEST))
def test_an_honest_tree_whose_test_held_objects_finalizer_reads_the_interpreters_end_passes_judged(
        tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
