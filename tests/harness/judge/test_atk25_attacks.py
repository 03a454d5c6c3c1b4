"""Red team atk25: c26c6e0's ``TREE_NAMESPACE_RULE`` (a tree module's proxy in the driver holds the namespace the
``import`` reply sent, its containers linked; the bindings the tree changes cross with the subject's next message,
``tm``, set by ``Peer.set_namespace``; modules left out, read by a ``getattr`` request) attacked with concrete trees,
each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. ``LENIENT``: plain pytest fails the tree, the judge passes it; ``HONEST``: plain pytest
passes the tree, the judge fails it. Strict xfails while open; a name in ``ATK25_CLOSED`` runs as an ordinary test
(25 of 30 closed: below). Findings, in the dicts' comments: a binding a tree's thread changes while the test computes without sending a
message never crosses (no message, no ``tm``); a module whose class (``__class__ = M``, a ModuleType subclass) has a
property reads its dict's shadowed binding, not the property, and a setter's normalized value is lost (the proxy keeps
what the test wrote as its own attribute); a module-valued binding of the parent (a submodule the driver's import
system bound in the proxy) is never watched, so re-importing or deleting it is missed; a container past the link bounds
(``MAX_LINKED_ITEMS``, ``MAX_LINKS``) crosses as a copy, at import (the rule's Open) and when bound by a call (not the
rule's fault for a binding that cannot cross); a tree global named ``_hx_ref`` overwrites the proxy's own handle (the
test's ``pkg.x = 5`` never reaches the tree, a module-valued read raises); the test's write of a dunder
(``pkg.__version__ = '2'``, by hand or by ``monkeypatch``) sends no request; a dunder that is not the import system's
(``__author__``) is absent; ``from pkg import *``, ``vars(pkg)`` and ``dir(pkg)`` lack the submodules; the test's ``del
pkg.x`` (so ``monkeypatch.delattr`` and the undo of ``monkeypatch.setattr(..., raising=False)``) raises AttributeError
after the subject deleted it (the reply's ``tm`` already popped it from the proxy); a deep structure bound by a call,
never read by the test, is a fault.

Tried and held (judged as plain, cold): a finalizer (``__del__``) run when the test drops the tree's object, one run by
the test's ``gc.collect()`` on a cycle, a generator's ``finally`` on ``del``/``close()``; a tree thread's change while
the test ``time.sleep``s; ``importlib.reload(pkg)`` by the test (both ways); a cycle bound by a call; a linked dict
grown past ``MAX_LINKED_ITEMS`` by the tree; ``monkeypatch.setattr`` of a binding the tree then rebinds, and its undo;
the test binding its own list that the tree appends to; a tree subclass of list, a deque, defaultdict, Counter,
OrderedDict, array, bytearray, a tuple holding a list and a list nested ten deep bound at module level and changed by
the tree; a global named ``_hx_ref`` set by a call while the test only calls the tree's functions. Not a premise
(stricter, documented ``PROCESS_STATE``): ``sys.modules['pkg']`` replaced by the tree and read by a later ``from pkg
import x``.
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

# a thread of the tree rebinds ``n`` shortly after ``start()``; the test computes (no message) long enough for it
_THREAD = ("import threading, time\nn = 0\n\n\ndef start():\n    def run():\n        global n\n        time.sleep(0.01)\n"
           "        n = 1\n\n    threading.Thread(target=run).start()\n")
_BUSY = "import pkg\n\n\ndef test_f():\n    pkg.start()\n    x = 0\n    for i in range(4_000_000):\n        x += i\n"
# the module's class has a property ``n`` (a data descriptor: it wins over the dict's ``n = 0`` under plain pytest)
_MODULE_CLASS = ("import sys, types\n_c = [0]\nn = 0\n\n\nclass M(types.ModuleType):\n    @property\n    def n(self):\n"
                 "        return _c[0]\n\n\nsys.modules[__name__].__class__ = M\n\n\ndef f():\n    _c[0] += 1\n")
_CNT = "n = 0\n\n\ndef f():\n    global n\n    n += 1\n"
# the tree imports its submodule afresh: the parent's ``sub`` is a new module object
_REIMPORT = "import importlib, sys\n\n\ndef reset():\n    sys.modules.pop('pkg.sub', None)\n    importlib.import_module('pkg.sub')\n"
# the module class's property with a setter that normalizes: the test's ``pkg.level = 'debug'`` reaches it (a setattr
# request), but the proxy then keeps 'debug' as its own attribute
_SETTER = ("import sys, types\n_level = ['INFO']\n\n\nclass M(types.ModuleType):\n    @property\n    def level(self):\n"
           "        return _level[0]\n\n    @level.setter\n    def level(self, v):\n        _level[0] = v.upper()\n\n\n"
           "sys.modules[__name__].__class__ = M\n")
_VERSION = "__version__ = '1'\n\n\ndef version():\n    return __version__\n"
_X = "x = 1\n\n\ndef get():\n    return globals().get('x')\n"
_SUB_TEST = "import pkg.sub\n\n\ndef test_f():\n    pkg.sub.f()\n    pkg.reset()\n    assert pkg.sub.n == {}\n"

# name -> (the tree's package, the harness's test[, more files]); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. no message while the test computes: the thread's rebinding never crosses (n == 1 under plain pytest)
    "thread_rebinding_while_the_test_computes": (_THREAD, _BUSY + "    assert pkg.n == 0\n"),
    # 2. the proxy holds the dict's shadowed ``n``; plain pytest reads the module class's property (1)
    "module_class_property_shadowing_a_binding": (_MODULE_CLASS, "import pkg\n\n\ndef test_f():\n    pkg.f()\n"
                                                                  "    assert pkg.n == 0\n"),
    # 3. the parent's submodule binding is never watched: the proxy keeps the old module (n == 1), plain reads the new
    "submodule_reimported_by_the_tree": (_REIMPORT, _SUB_TEST.format(1), {"pkg/sub.py": _CNT}),
    # 4. the same: the tree deletes the parent's submodule binding, the proxy keeps it
    "submodule_deleted_from_the_parent": (
        "def drop():\n    global sub\n    del sub\n",
        "import pkg.sub\n\n\ndef test_f():\n    pkg.drop()\n    assert hasattr(pkg, 'sub')\n", {"pkg/sub.py": "x = 1\n"}),
    # 5. (the rule's Open) a list past MAX_LINKED_ITEMS crosses as a copy at import: the tree's append is missed
    "list_past_the_link_bounds": ("big = list(range(20001))\n\n\ndef f():\n    big.append(-1)\n",
                                  "import pkg\n\n\ndef test_f():\n    pkg.f()\n    assert len(pkg.big) == 20001\n"),
    # 6. the same for a dict bound by a call: a copy, not the rule's fault for a binding that cannot cross
    "dict_past_the_link_bounds_bound_by_a_call": (
        "t = {}\n\n\ndef build():\n    global t\n    t = {i: i for i in range(20001)}\n\n\ndef add():\n    t[-1] = 0\n",
        "import pkg\n\n\ndef test_f():\n    pkg.build()\n    pkg.add()\n    assert -1 not in pkg.t\n"),
    # 7. the same past MAX_LINKS (1100 lists bound in the module): the later ones cross as copies
    "lists_past_the_link_count": (
        "for _i in range(1100):\n    globals()[f'l{_i}'] = []\n\n\ndef f():\n    l1099.append(1)\n    l0.append(1)\n",
        "import pkg\n\n\ndef test_f():\n    pkg.f()\n    assert pkg.l1099 == [] or pkg.l0 == []\n"),
    # 8. the module class's setter normalizes the test's value; the proxy reads back the value the test wrote
    "module_class_setter": (_SETTER, "import pkg\n\n\ndef test_f():\n    pkg.level = 'debug'\n"
                                     "    assert pkg.level == 'debug'\n"),
    # 9. the test's write of a dunder (``__version__``) stays in the driver (the proxy's __setattr__ sends no request
    # for a name starting with "__"): the tree reads its own
    "a_dunder_the_test_writes": (_VERSION, "import pkg\n\n\ndef test_f():\n    pkg.__version__ = '2'\n"
                                           "    assert pkg.version() == '1'\n"),
    # 10. the test reads the parent's submodule by attribute (a getattr request each time): the re-imported module
    # crosses as the driver's proxy of the old one, by its name
    "submodule_reimported_read_by_attribute": (
        "import importlib, sys\nfrom . import sub\n\n\ndef reset():\n    global sub\n    sys.modules.pop('pkg.sub', None)\n"
        "    sub = importlib.import_module('pkg.sub')\n",
        "import pkg\n\n\ndef test_f():\n    pkg.sub.f()\n    pkg.reset()\n    assert pkg.sub.n == 1\n", {"pkg/sub.py": _CNT}),
    # 11. the test's ``del pkg.x`` (a delattr request) deletes it in the subject, whose reply's ``tm`` pops it from the
    # proxy; the proxy's own ``object.__delattr__`` then raises AttributeError, which a wrong tree's test expects
    "del_raising_for_a_name_the_tree_binds": (
        _X, "import pkg, pytest\n\n\ndef test_f():\n    with pytest.raises(AttributeError):\n        del pkg.x\n"),
    # 12. the tree's global ``_hx_ref`` overwrites the proxy's handle: the test's ``pkg.x = 5`` stays in the driver
    "a_global_named_like_the_proxys_handle": (
        "_hx_ref = None\nx = 0\n\n\ndef f():\n    return x\n",
        "import pkg\n\n\ndef test_f():\n    pkg.x = 5\n    assert pkg.f() == 0\n"),
}
# name -> (the tree's package, the harness's test[, more files]); plain pytest passes each
HONEST: dict[str, tuple] = {
    "thread_rebinding_while_the_test_computes": (_THREAD, _BUSY + "    assert pkg.n == 1\n"),
    "module_class_property_shadowing_a_binding": (_MODULE_CLASS, "import pkg\n\n\ndef test_f():\n    pkg.f()\n"
                                                                  "    assert pkg.n == 1\n"),
    "submodule_reimported_by_the_tree": (_REIMPORT, _SUB_TEST.format(0), {"pkg/sub.py": _CNT}),
    "module_class_setter": (_SETTER, "import pkg\n\n\ndef test_f():\n    pkg.level = 'debug'\n"
                                     "    assert pkg.level == 'DEBUG'\n"),
    "a_dunder_the_test_writes": (_VERSION, "import pkg\n\n\ndef test_f():\n    pkg.__version__ = '2'\n"
                                           "    assert pkg.version() == '2'\n"),
    "a_dunder_the_test_monkeypatches": (_VERSION, "import pkg\n\n\ndef test_f(monkeypatch):\n"
                                                  "    monkeypatch.setattr(pkg, '__version__', '2')\n"
                                                  "    assert pkg.version() == '2'\n"),
    # 13. the same AttributeError: ``del pkg.x``, ``monkeypatch.delattr`` and the undo of a ``monkeypatch.setattr``
    # of a new name (``raising=False``) fail judged
    "del_of_a_binding": (_X, "import pkg\n\n\ndef test_f():\n    del pkg.x\n    assert pkg.get() is None\n"),
    "monkeypatch_delattr": (_X, "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.delattr(pkg, 'x')\n"
                                "    assert pkg.get() is None\n\n\ndef test_g():\n    assert pkg.x == 1\n"),
    "monkeypatch_setattr_of_a_new_name": (
        _X, "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, 'y', 2, raising=False)\n"
            "    assert pkg.y == 2\n\n\ndef test_g():\n    assert not hasattr(pkg, 'y')\n"),
    # 14. a dunder that is not the import system's own is not in the proxy, and __getattr__ refuses dunders
    "a_dunder_of_the_tree": ("__author__ = 'me'\n", "import pkg\n\n\ndef test_f():\n    assert pkg.__author__ == 'me'\n"),
    # 15. modules are left out of the proxy's namespace: ``from pkg import *``, ``vars(pkg)`` and dir() lack the
    # submodule the package imported
    "star_import_of_a_submodule": ("from . import sub\n", "from pkg import *\n\n\ndef test_f():\n    assert sub.x == 1\n",
                                   {"pkg/sub.py": "x = 1\n"}),
    "vars_holds_a_submodule": ("from . import sub\n",
                               "import pkg\n\n\ndef test_f():\n    assert vars(pkg)['sub'].x == 1\n",
                               {"pkg/sub.py": "x = 1\n"}),
    "dir_lists_a_submodule": ("from . import sub\n", "import pkg\n\n\ndef test_f():\n    assert 'sub' in dir(pkg)\n",
                              {"pkg/sub.py": "x = 1\n"}),
    # 16. a deep structure the tree binds in a call, which the test never reads, is a fault (it cannot cross)
    "deep_structure_bound_by_a_call": (
        "def f():\n    global a\n    a = x = []\n    for _ in range(3000):\n        y = []\n        x.append(y)\n"
        "        x = y\n    return 1\n", "import pkg\n\n\ndef test_f():\n    assert pkg.f() == 1\n"),
    # 17. the tree's global ``_hx_ref``: a module-valued read (a getattr request) raises AttributeError
    "a_global_named_like_the_proxys_handle": ("_hx_ref = None\nimport os\n",
                                              "import pkg\n\n\ndef test_f():\n    assert pkg.os.sep == '/'\n"),
}
# closed (subject_rpc ``Peer._namespace_change``/``set_namespace``, probe_runtime ``_ProxyModule``): the subject's messages
# are the proxy's one writer (the test's set and delete are requests whose reply's ``tm`` writes them: a setter's value,
# a deletion, a dunder of the import system's); a module class keeps nothing in the proxy (every name a request); a
# module-valued binding's change drops it from the proxy (read again by a request) and ``vars``/``dir``/``import *``
# read every such name; a container past the link bounds is dropped, read by a request; the harness's ``_hx`` names
# are never a binding the proxy takes; a thread of the tree frozen while the test computes without a clock or a message
# (closed: the freeze's switch interval crossed to the driver as the tree's and kept the pulse off the GIL, subject_rpc
# ``_switch_interval``, tests/harness/judge/test_switch_interval.py); a dunder no import sets (closed: every name but the
# import system's is a binding, subject_rpc ``_IMPORT_DUNDERS``). Open: a deep binding that cannot cross (a fault,
# stricter).
_OPEN = {"deep_structure_bound_by_a_call"}
ATK25_CLOSED: frozenset[str] = frozenset((set(LENIENT) | set(HONEST)) - _OPEN)

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk25: the judge passes a tree plain pytest fails through a tree module's namespace (a binding no "
    "message carries, a module class's property or setter, a submodule binding, a container past the link bounds, "
    "_hx_ref, a dunder the test writes)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk25: the judge fails a right tree plain pytest passes through a tree module's namespace (the same; a "
    "dunder, dir()'s submodules, a deep binding that cannot cross)"))


def _params(cases: dict, mark, closed: frozenset = ATK25_CLOSED) -> list:
    return [pytest.param(n, marks=[] if n in closed else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_its_modules_namespace(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_reading_its_modules_namespace_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
