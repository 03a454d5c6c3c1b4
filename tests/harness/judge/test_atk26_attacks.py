"""Red team atk26: 72d0fca's ``TREE_NAMESPACE_RULE`` (the driver's proxy module of a tree module is written by the
subject's messages alone, ``tm``; the test's set and delete are requests; a module-valued name, a container past the
link bounds and every name of a module whose class is not the module type are read by a ``getattr`` request) attacked
with concrete trees, each judged and run under plain pytest in the same sandbox, cold and warm; none of atk25's cases
again.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. ``LENIENT``: plain pytest fails the tree, the judge passes it; ``HONEST``: plain pytest
passes the tree, the judge fails it. Strict xfails while open; a name in ``ATK26_CLOSED`` runs as an ordinary test.
Findings, in the dicts' comments: the test's write into the proxy's dict itself (``mock.patch.dict(pkg.__dict__, ...)``,
``vars(pkg).update``) is no request: it stays in the driver, the tree reads its own binding; what the proxy holds is
not the tree module's namespace where the test reads the dict whole rather than by name (``from pkg import *``
without ``__all__``, ``vars``, ``dir``): a container past the link bounds and every name of a module class are absent
(only module-valued names are filled in), the harness's ``_hx_ref`` is present; the tree's module-level ``__dir__``
(PEP 562) is not in the proxy, so ``dir(pkg)`` lists the proxy's dict instead; a dunder of the import system's that the
tree's module-level ``__getattr__`` answers (a lazy ``__version__``) is refused by the proxy's ``__getattr__``; the
proxy's own ``__path__``, ``__spec__`` and class (the driver's import) stand for the tree's: a directory the tree adds to its
``__path__`` is not searched, ``__spec__.origin`` is None, ``isinstance(pkg, pkg.M)`` is False for a module class; pytest's ``MonkeyPatch.setattr`` takes what to restore from
``target.__dict__``, so its undo deletes a binding the proxy's dict lacks (past the link bounds, a module class's);
the driver's import of a submodule the tree's package shadows with a binding of the same name (``from .version
import version``) rebinds the package's name to the submodule, in the driver and in the tree; every ``_hx`` name (not only the proxy's handle) is refused as a binding, so the test's patch of a tree's ``_hx711``
stays in the driver. And the waiver of ``unread_links``: ``Peer.expose`` walks what the test reads through the proxy
at the moment of reading, so a list the tree binds after the test took ``vars(pkg)`` is reached through that dict
without being named, and a tree thread's change to it during the test's wait passes as unread although the test read
it stale.

Tried and held (judged as plain, cold): ``f.__globals__['x'] = 5`` by the test (a request: the subject's dict);
``monkeypatch.setattr`` of a module-valued name and its undo; ``__all__`` extended by a call, then ``import *``;
``importlib.resources.files``; a call-out reading a binding the tree sets before calling back and restores after; a
module toggling its ``__class__`` between the module type and a class with a property; a module class's
``__setattr__`` refusing the test's write; the hand-written swap and restore of a binding past the link bounds (no
``__dict__`` read); ``Event.wait``/``select``/a clock loop then a read of the held dict (the wait is given at the test's
next instruction: only a wait and a read in one C call leave the stale window); a tree list subclass (mirrored) holding
a namespace list read through the test's earlier handle of it (a fault, as for ``pkg.DONE``).
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_X = "x = 0\n\n\ndef f():\n    return x\n"
# a tree off by one at its limit: right for the module's own LIMIT (10), wrong for the LIMIT the test patches in (3)
_CLAMP = "LIMIT = 10\n\n\ndef clamp(v):\n    return v if v < LIMIT else LIMIT - 1\n"
# a module class (the usual home of a deprecation property): every name of such a module is a request judged
_MODCLASS = ("import sys, types\n\n\nclass M(types.ModuleType):\n    pass\n\n\nsys.modules[__name__].__class__ = M\n\n\n"
             "def f():\n    return 1\n")
_STAR = "ns = {}\n    exec('from pkg import *', ns)\n"
# a thread of the tree appends to the list ``start`` binds, 0.1 s after; the test holds the module's dict from before
_DONE = ("import threading, time\nDONE = None\n\n\ndef start():\n    global DONE\n    DONE = []\n    def w():\n"
         "        time.sleep(0.1)\n        DONE.append(1)\n    threading.Thread(target=w).start()\n")
# the test waits 0.4 s on a lock, then counts DONE, in one C call (no instruction of the test's own between: no pulse)
_DONE_TEST = ("import functools, operator, threading, pkg\n\n\ndef test_f():\n    ns = vars(pkg)\n    pkg.start()\n"
              "    done = {}\n    lock = threading.Lock()\n    lock.acquire()\n"
              "    _, n = map(operator.call, [functools.partial(lock.acquire, True, 0.4), functools.partial(len, done)])\n"
              "    assert n == 0\n")
# the tree extends its package's ``__path__`` with a plugins directory
_PATH = "import os\n\n__path__.append(os.path.join(os.path.dirname(__file__), '..', 'plugins'))\n"
# a private binding whose name starts with ``_hx`` (a HX711 load cell's driver): the proxy takes no ``_hx`` name
# the package binds its submodule's string under the submodule's name
_SHADOW = "from .version import version\n"
_HX711 = "import types\n\n_hx711 = types.SimpleNamespace(value=0)\n\n\ndef read():\n    return _hx711.value\n"

# name -> (the tree's package, the harness's test[, more files]); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. the test patches the module's dict (``mock.patch.dict``): the proxy's dict alone changes, the tree reads its
    # own LIMIT (10) and is right at 3; plain pytest's tree reads 3 and is off by one
    "patch_dict_of_the_module": (_CLAMP, "import pkg\nfrom unittest import mock\n\n\ndef test_f():\n"
                                         "    with mock.patch.dict(pkg.__dict__, LIMIT=3):\n"
                                         "        assert pkg.clamp(3) == 3\n"),
    # 2. the same by ``vars(pkg).update``
    "vars_update_of_the_module": (_CLAMP, "import pkg\n\n\ndef test_f():\n    vars(pkg).update(LIMIT=3)\n"
                                          "    assert pkg.clamp(3) == 3\n"),
    # 3. the tree's ``__dir__`` (PEP 562) forgets ``b``: plain's dir(pkg) lacks it, the proxy's dir lists its dict
    "module_dir_hook_forgetting_a_name": ("b = 1\n\n\ndef __dir__():\n    return ['a']\n",
                                          "import pkg\n\n\ndef test_f():\n    assert 'b' in dir(pkg)\n"),
    # 4. a star import with no ``__all__`` leaks the tree's big cache (plain); the proxy's dict lacks it (past the
    # link bounds, read by request only by name)
    "star_import_leaking_a_big_cache": ("cache = list(range(20001))\n",
                                        f"def test_f():\n    {_STAR}    assert 'cache' not in ns\n"),
    # 5. the same for a module class: the proxy's dict holds none of its names, so nothing leaks judged
    "star_import_leaking_a_helper_of_a_module_class": (_MODCLASS, f"def test_f():\n    {_STAR}    assert 'f' not in ns\n"),
    # 6. ``vars`` of a module class's proxy lacks the removed API the tree still binds
    "vars_of_a_module_class": (_MODCLASS, "import pkg\n\n\ndef test_f():\n    assert 'f' not in vars(pkg)\n"),
    # 7. the test reaches the module's list through the proxy's dict it held before ``start`` bound it (a plain dict
    # read: no ``_ProxyModule.__getattribute__``, so ``Peer.expose`` never walks it), so ``unread_links`` names it
    # unread: the tree's thread's change during the test's wait is waived as one the test cannot have read, yet the
    # test read it stale (0; plain pytest's test counts 1). Read as ``pkg.DONE`` the same change is a fault
    "a_list_read_through_the_held_module_dict_while_a_thread_changes_it": (_DONE, _DONE_TEST.format("ns['DONE']")),
    # 8. the tree extends its ``__path__``: the driver's import system finds submodules by the proxy's own
    # ``__path__`` (a dunder the proxy does not take), so the plugin is not found judged, as the wrong test expects
    "submodule_of_a_path_the_tree_extends": (_PATH, "import pytest\n\n\ndef test_f():\n    with pytest.raises(ImportError):\n"
                                                    "        import pkg.extra\n", {"plugins/extra.py": "x = 1\n"}),
    # 9. the test's ``monkeypatch.setattr(pkg, '_hx711', None)`` stays in the driver (``namespace_name`` refuses every
    # ``_hx`` name): the tree reads its own sensor and does not meet the None it mishandles
    "a_trees_name_starting_with_hx_patched_by_the_test": (_HX711, "import pkg\n\n\ndef test_f(monkeypatch):\n"
                                                                  "    monkeypatch.setattr(pkg, '_hx711', None)\n"
                                                                  "    assert pkg.read() == 0\n"),
    # 10. pytest's ``MonkeyPatch.setattr`` takes the value to restore from ``target.__dict__`` (pytest #10644): the
    # proxy's dict of a module class holds no name, so the undo deletes the tree's binding, and a wrong tree that
    # still binds its removed ``LEGACY`` passes the next test
    "monkeypatch_undo_in_a_module_class_deletes_the_binding": (
        _MODCLASS + "\n\nLEGACY = 1\n", "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, 'LEGACY', 2)\n"
                                          "    assert pkg.LEGACY == 2\n\n\ndef test_g():\n    assert not hasattr(pkg, 'LEGACY')\n"),
    # 11. ``from .version import version`` shadows the submodule with its string in the package (plain pytest's
    # ``import pkg.version`` finds the submodule in sys.modules and leaves the parent's binding alone); the driver's
    # import system, importing the submodule afresh, sets the parent's ``version`` to it (a setattr request: the
    # tree's own binding is rebound too), so ``pkg.version.version`` reads the submodule judged
    "submodule_shadowed_by_a_binding_of_the_same_name": (_SHADOW, "import pkg.version\n\n\ndef test_f():\n"
                                                                  "    assert pkg.version.version == '1.0'\n",
                                                         {"pkg/version.py": "version = '1.0'\n"}),
}
# name -> (the tree's package, the harness's test[, more files]); plain pytest passes each
HONEST: dict[str, tuple] = {
    "patch_dict_of_the_module": (_X, "import pkg\nfrom unittest import mock\n\n\ndef test_f():\n"
                                     "    with mock.patch.dict(pkg.__dict__, x=5):\n        assert pkg.f() == 5\n"),
    "vars_update_of_the_module": (_X, "import pkg\n\n\ndef test_f():\n    vars(pkg).update(x=5)\n"
                                      "    assert pkg.f() == 5\n"),
    "module_dir_hook": ("def __dir__():\n    return ['a', 'b']\n",
                        "import pkg\n\n\ndef test_f():\n    assert dir(pkg) == ['a', 'b']\n"),
    "star_import_of_a_big_list": ("big = list(range(20001))\n",
                                  "from pkg import *\n\n\ndef test_f():\n    assert len(big) == 20001\n"),
    "star_import_of_a_module_class": (_MODCLASS, "from pkg import *\n\n\ndef test_f():\n    assert f() == 1\n"),
    # 7. the harness's handle is a name of the proxy's dict: ``vars``/``dir`` list ``_hx_ref``
    "vars_lists_only_the_trees_names": ("x = 1\n", "import pkg\n\n\ndef test_f():\n"
                                                  "    assert [n for n in vars(pkg) if not n.startswith('__')] == ['x']\n"),
    # 8. a lazy ``__version__`` (the module's ``__getattr__``, PEP 562): the proxy's ``__getattr__`` refuses dunders
    "lazy_version_by_module_getattr": ("def __getattr__(name):\n    if name == '__version__':\n        return '1.0'\n"
                                       "    raise AttributeError(name)\n",
                                       "import pkg\n\n\ndef test_f():\n    assert pkg.__version__ == '1.0'\n"),
    "submodule_of_a_path_the_tree_extends": (_PATH, "import pkg.extra\n\n\ndef test_f():\n    assert pkg.extra.x == 1\n",
                                             {"plugins/extra.py": "x = 1\n"}),
    "a_trees_name_starting_with_hx_patched_by_the_test": (_HX711, "import pkg, types\n\n\ndef test_f(monkeypatch):\n"
                                                                  "    monkeypatch.setattr(pkg, '_hx711', types.SimpleNamespace(value=7))\n"
                                                                  "    assert pkg.read() == 7\n"),
    # 11. the proxy's own ``__spec__`` (the driver's import: no origin) stands for the tree module's
    "spec_origin_of_the_package": ("", "import pathlib, pkg\n\n\ndef test_f():\n"
                                       "    assert (pathlib.Path(pkg.__spec__.origin).parent / 'data.txt').read_text() == 'hi'\n",
                                   {"pkg/data.txt": "hi"}),
    # 12. (10. the other way) monkeypatch's undo deletes a binding the proxy's dict lacks: past the link bounds, or any
    # name of a module class; the tree then raises NameError
    "monkeypatch_undo_of_a_binding_past_the_link_bounds": (
        "big = list(range(20001))\n\n\ndef count():\n    return len(big)\n",
        "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, 'big', [])\n    assert pkg.count() == 0\n"
        "    monkeypatch.undo()\n    assert pkg.count() == 20001\n"),
    "monkeypatch_undo_in_a_module_class": (
        _MODCLASS, "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, 'f', lambda: 2)\n"
                   "    assert pkg.f() == 2\n\n\ndef test_g():\n    assert pkg.f() == 1\n"),
    "submodule_shadowed_by_a_binding_of_the_same_name": (_SHADOW + "\n\ndef banner():\n    return 'pkg ' + version\n",
                                                         "import pkg.version\n\n\ndef test_f():\n"
                                                         "    assert pkg.banner() == 'pkg 1.0'\n",
                                                         {"pkg/version.py": "version = '1.0'\n"}),
    # 13. the proxy's class (``_ProxyModule``) stands for the tree module's class: ``isinstance(pkg, pkg.M)`` is False
    "isinstance_of_the_module_class": (_MODCLASS, "import pkg\n\n\ndef test_f():\n    assert isinstance(pkg, pkg.M)\n"),
    # 14. (IMPORT_STATE_RULE's, the namespace's twin) a submodule the package imports is not in the driver's
    # sys.modules until the test imports it
    "sys_modules_holds_a_submodule_the_package_imports": (
        "from . import sub\n", "import sys\nimport pkg\n\n\ndef test_f():\n    assert sys.modules['pkg.sub'].x == 1\n",
        {"pkg/sub.py": "x = 1\n"}),
    # 15. the test's write of a dunder outside the import system's four (``__author__``) stays in the driver (atk25's
    # ``__version__`` closed by a fixed list): the tree reads its own
    "a_dunder_outside_the_import_systems_the_test_writes": (
        "__author__ = 'me'\n\n\ndef author():\n    return __author__\n",
        "import pkg\n\n\ndef test_f():\n    pkg.__author__ = 'you'\n    assert pkg.author() == 'you'\n"),
}
# closed: a proxy's __dict__ read ends the unread_links waiver (the test may hold the dict); the proxy's handle is kept
# beside it (module_ref), never in its namespace; the module's __getattr__ and __dir__ hooks are bindings; the driver's
# import of a submodule binds nothing the subject's import did not; reading a proxy's __dict__ (vars, import *,
# monkeypatch's undo) puts there every name it reads by a request until the next message (Peer.materialize); a write of
# the test's own into the dict is a fault at its next request (Peer._namespace_written: stricter, so the honest
# patch_dict and vars_update stay open); a dunder outside the kept ones the test writes (closed: every name but the
# import system's is a binding, subject_rpc ``_IMPORT_DUNDERS``). Open: a __path__ the tree extends, the module class's
# isinstance, __spec__.origin, sys.modules' submodules (IMPORT_STATE_RULE's)
_OPEN = {"submodule_of_a_path_the_tree_extends", "isinstance_of_the_module_class", "patch_dict_of_the_module",
         "spec_origin_of_the_package", "sys_modules_holds_a_submodule_the_package_imports", "vars_update_of_the_module"}
ATK26_CLOSED_LENIENT: frozenset[str] = frozenset(set(LENIENT) - {"submodule_of_a_path_the_tree_extends"})
ATK26_CLOSED: frozenset[str] = frozenset(set(HONEST) - _OPEN)  # (the honest trees')

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk26: the judge passes a tree plain pytest fails through a tree module's namespace (the test's write "
    "into the module's dict, the dict read whole: import *, vars, dir, monkeypatch's undo; __path__, _hx names, a held "
    "dict past unread_links)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk26: the judge fails a right tree plain pytest passes through a tree module's namespace (the same; "
    "_hx_ref listed, a module's __dir__ and lazy __version__, __spec__.origin, the module class, sys.modules)"))


def _params(cases: dict, mark, closed: frozenset = ATK26_CLOSED) -> list:
    return [pytest.param(n, marks=[] if n in closed else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN, ATK26_CLOSED_LENIENT))
def test_the_judge_fails_a_wrong_tree_through_its_modules_namespace(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_reading_its_modules_namespace_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
