"""Red team atk29: 76be0a1's ``_IMPORT_DUNDERS`` (every name of a tree module's namespace is a binding its proxy in the
driver holds, read and written by request, but the import system's own dunders; ``_ProxyModule.__getattr__`` forwards
any other dunder) attacked through module dunders, each tree judged and run under plain pytest in the same sandbox.

``LENIENT``: plain pytest fails the tree, the judge must fail it too; ``HONEST``: plain pytest passes the tree, the
judge must pass it. A case the judge gets wrong is a strict xfail (a name in ``_OPEN``), cold and warm.

Findings (open, both executors):
- a miss of the tree's PEP 562 ``__getattr__`` runs the hook twice judged: ``ModuleType.__getattribute__`` calls the
  proxy dict's ``__getattr__`` (a call of the tree's hook in the subject), and on its AttributeError the proxy class's
  ``_ProxyModule.__getattr__`` sends a ``getattr`` request, which the subject's module answers through the same hook
  (a hook that answers its second call passes a wrong tree; one that counts its misses fails an honest tree);
- the import system's own dunders are the driver's import's, not the tree's: ``__builtins__`` and ``__cached__`` are
  absent, ``__spec__.origin`` is None, ``__warningregistry__`` (bound by the tree's ``warnings.warn``) is absent;
- ``typing.get_type_hints(pkg)`` on string annotations evals with the proxy's ``__dict__`` as globals, and ``eval``
  writes ``__builtins__`` there itself: a fault (or a broken audit heartbeat), an honest tree fails;
- the test's first read of ``pkg.__annotations__`` of a tree without annotations creates ``{}`` in the proxy's dict
  (ModuleType's getset), which no request carries: the test's write into it is a fault;
- a tree that deletes its ``__doc__`` at import: the proxy keeps the ``__doc__ = None`` its ``ModuleType(name)``
  set (the import's namespace never drops it); plain pytest reads ModuleType's class docstring.

Held (judged as plain; every name outside ``_OPEN``): doctest of the tree's
functions and ``__test__``, ``__all__`` grown at run time, ``__file__`` rebound, ``mock.patch.object`` of a dunder
(and ``create=True``) and its undo, ``monkeypatch.setattr`` of ``__version__`` and of ``__getattr__``, ``from pkg
import *`` with a dunder in ``__all__``, a ``__dir__`` hook, ``vars`` with dunders, a module class's dunder property,
``inspect.unwrap``, ``pkgutil.get_data``, ``importlib.resources.files``, a lazy submodule hook, the hook deleted by
the tree, ``inspect.get_annotations(eval_str=True)``.
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

# PEP 562 ``__getattr__`` that fails its first call and answers later ones: a miss is asked again by the proxy's own
# ``__getattr__`` (a getattr request, which the subject's module answers through the same hook)
_FLAKY_HOOK = ("_seen = set()\n\n\ndef __getattr__(name):\n    if name != 'feature' or name not in _seen:\n"
               "        _seen.add(name)\n        raise AttributeError(name)\n    return 1\n")
_MISSES = ("misses = []\n\n\ndef __getattr__(name):\n    misses.append(name)\n    raise AttributeError(name)\n")
_WARN = "import warnings\n\n\ndef warn():\n    warnings.warn('old', UserWarning)\n"
_HINTS = "def hints():\n    return globals().get('__annotations__')\n"
_NO_DOC = "del __doc__\n"
_DOCTEST = 'def f():\n    """\n    >>> f()\n    2\n    """\n    return 1\n'
_LAZY = ("import importlib\n\n\ndef __getattr__(name):\n    if name == 'sub':\n"
         "        return importlib.import_module('.sub', __name__)\n    raise AttributeError(name)\n")
_ANN = "from __future__ import annotations\n\n\nclass C:\n    pass\n\n\nx: int = 1\nc: C | None = None\n"

LENIENT: dict[str, tuple] = {
    # the tree's hook raises on its first call: hasattr is False under plain pytest
    "getattr_hook_asked_twice_on_a_miss": (_FLAKY_HOOK, "import pkg\n\n\ndef test_f():\n    assert hasattr(pkg, 'feature')\n"),
    # a miss counted by the tree's hook: once under plain pytest
    "getattr_hook_miss_counted": (_MISSES, "import pkg\n\n\ndef test_f():\n    assert not hasattr(pkg, 'x')\n"
                                           "    assert pkg.misses.count('x') == 2\n"),
    # the test reading ``pkg.__annotations__`` creates it in the module's dict (ModuleType's getset) under plain pytest
    "annotations_read_creates_them": (_HINTS, "import pkg\n\n\ndef test_f():\n    assert pkg.__annotations__ == {}\n"
                                              "    assert pkg.hints() is None\n"),
    # the tree's warn binds its module's ``__warningregistry__``
    "warningregistry_after_a_warning": (_WARN, "import pkg, warnings\n\n\ndef test_f():\n"
                                               "    with warnings.catch_warnings():\n        warnings.simplefilter('ignore')\n"
                                               "        pkg.warn()\n    assert not hasattr(pkg, '__warningregistry__')\n"),
    # a module's ``__builtins__`` under plain pytest
    "builtins_absent": ("x = 1\n", "import pkg\n\n\ndef test_f():\n    assert not hasattr(pkg, '__builtins__')\n"),
    # ``__cached__`` under plain pytest
    "cached_absent": ("x = 1\n", "import pkg\n\n\ndef test_f():\n    assert getattr(pkg, '__cached__', None) is None\n"),
    # ``__spec__.origin`` is the tree's file under plain pytest
    "spec_origin_none": ("x = 1\n", "import pkg\n\n\ndef test_f():\n    assert pkg.__spec__.origin is None\n"),
    # the tree deleted its ``__doc__``: plain reads ModuleType's class docstring
    "doc_deleted_reads_the_class_doc": (_NO_DOC, "import pkg\n\n\ndef test_f():\n"
                                                 "    assert pkg.__doc__ is None\n"),
    # a failing doctest of the tree's function
    "doctest_of_a_function": (_DOCTEST, "import doctest, pkg\n\n\ndef test_f():\n"
                                        "    assert doctest.testmod(pkg).failed == 0\n"),
    # a failing doctest in the tree's ``__test__``
    "doctest_in_dunder_test": ("__test__ = {'t': '>>> 1 + 1\\n3\\n'}\n", "import doctest, pkg\n\n\ndef test_f():\n"
                                                                        "    assert doctest.testmod(pkg).failed == 0\n"),
    # the tree drops its hook after import: plain pytest's miss raises
    "getattr_hook_deleted_by_the_tree": (
        "def __getattr__(name):\n    return 1\n\n\ndef drop():\n    global __getattr__\n    del __getattr__\n",
        "import pkg\n\n\ndef test_f():\n    pkg.drop()\n    assert pkg.anything == 1\n"),
    # ``__all__`` changed by the tree at run time
    "all_grown_by_the_tree": ("__all__ = ['f']\n\n\ndef f():\n    __all__.append('g')\n\n\ndef g():\n    pass\n",
                              "import pkg\n\n\ndef test_f():\n    pkg.f()\n    ns = {}\n    exec('from pkg import *', ns)\n"
                              "    assert 'g' not in ns\n"),
    # the tree rebinds its ``__file__``
    "file_rebound_by_the_tree": ("def f():\n    global __file__\n    __file__ = '/x/y.py'\n",
                                 "import inspect, pkg\n\n\ndef test_f():\n    pkg.f()\n"
                                 "    assert inspect.getfile(pkg) != '/x/y.py'\n"),
    # mock's patch of a dunder and its undo: the tree reads its own after the undo
    "mock_patch_object_undo": ("__author__ = 'a'\n\n\ndef author():\n    return __author__\n",
                               "from unittest import mock\nimport pkg\n\n\ndef test_f():\n"
                               "    with mock.patch.object(pkg, '__author__', 'b'):\n        assert pkg.author() == 'b'\n"
                               "    assert pkg.author() == 'b'\n"),
}

HONEST: dict[str, tuple] = {
    "getattr_hook_miss_counted_once": (_MISSES, "import pkg\n\n\ndef test_f():\n    assert not hasattr(pkg, 'x')\n"
                                                "    assert pkg.misses.count('x') == 1\n"),
    "annotations_read_then_written": (_HINTS, "import pkg\n\n\ndef test_f():\n    pkg.__annotations__['z'] = int\n"
                                              "    assert pkg.hints() == {'z': int}\n"),
    "warningregistry_read": (_WARN, "import pkg, warnings\n\n\ndef test_f():\n"
                                    "    with warnings.catch_warnings():\n        warnings.simplefilter('ignore')\n"
                                    "        pkg.warn()\n    assert isinstance(pkg.__warningregistry__, dict)\n"),
    "builtins_present": ("x = 1\n", "import pkg\n\n\ndef test_f():\n    assert hasattr(pkg, '__builtins__')\n"),
    "cached_is_a_pyc": ("x = 1\n", "import pkg\n\n\ndef test_f():\n    assert pkg.__cached__.endswith('.pyc')\n"),
    "spec_origin_is_the_file": ("x = 1\n", "import pkg\n\n\ndef test_f():\n"
                                           "    assert pkg.__spec__.origin.endswith('__init__.py')\n"),
    "pkgutil_get_data": ("x = 1\n", "import pkgutil, pkg\n\n\ndef test_f():\n"
                                    "    assert pkgutil.get_data('pkg', 'data.txt') == b'hi'\n", {"pkg/data.txt": "hi"}),
    "resources_files": ("x = 1\n", "import importlib.resources, pkg\n\n\ndef test_f():\n"
                                   "    assert (importlib.resources.files(pkg) / 'data.txt').read_text() == 'hi'\n",
                        {"pkg/data.txt": "hi"}),
    "doc_deleted_class_doc": (_NO_DOC, "import pkg\n\n\ndef test_f():\n"
                                       "    assert pkg.__doc__.startswith('Create a module')\n"),
    "doctest_passing_function": ('def f():\n    """\n    >>> f()\n    1\n    """\n    return 1\n',
                                 "import doctest, pkg\n\n\ndef test_f():\n    r = doctest.testmod(pkg)\n"
                                 "    assert r.attempted == 1 and r.failed == 0\n"),
    "lazy_submodule_hook": (_LAZY, "import pkg\n\n\ndef test_f():\n    assert pkg.sub.x == 1\n",
                            {"pkg/sub.py": "x = 1\n"}),
    "type_hints_of_the_module": (_ANN, "import typing, pkg\n\n\ndef test_f():\n"
                                       "    h = typing.get_type_hints(pkg)\n    assert h['x'] is int\n"
                                       "    assert h['c'] == typing.Optional[pkg.C]\n"),
    "inspect_get_annotations_eval": (_ANN, "import inspect, pkg\n\n\ndef test_f():\n"
                                           "    assert inspect.get_annotations(pkg, eval_str=True)['x'] is int\n"),
    "monkeypatch_version_undo": ("__version__ = '1'\n\n\ndef v():\n    return __version__\n",
                                 "import pkg\n\n\ndef test_f(monkeypatch):\n    monkeypatch.setattr(pkg, '__version__', '2')\n"
                                 "    assert pkg.v() == '2'\n\n\ndef test_g():\n    assert pkg.v() == '1'\n"),
    "mock_patch_create_dunder": ("def a():\n    return globals().get('__author__')\n",
                                 "from unittest import mock\nimport pkg\n\n\ndef test_f():\n"
                                 "    with mock.patch.object(pkg, '__author__', 'b', create=True):\n"
                                 "        assert pkg.a() == 'b'\n    assert pkg.a() is None\n"
                                 "    assert not hasattr(pkg, '__author__')\n"),
    "import_star_all_with_a_dunder": ("__all__ = ['__author__', 'f']\n__author__ = 'a'\n\n\ndef f():\n    return 1\n",
                                      "from pkg import *\n\n\ndef test_f():\n    assert __author__ == 'a' and f() == 1\n"),
    "dir_hook": ("def __dir__():\n    return ['a', 'b']\n", "import pkg\n\n\ndef test_f():\n"
                                                             "    assert dir(pkg) == ['a', 'b']\n"),
    "vars_has_dunders": ("__author__ = 'a'\n", "import pkg\n\n\ndef test_f():\n"
                                               "    assert vars(pkg)['__author__'] == 'a' and '__name__' in vars(pkg)\n"),
    "module_class_dunder_property": (
        "import sys, types\n\n\nclass M(types.ModuleType):\n    @property\n    def __version__(self):\n"
        "        return '3'\n\n\nsys.modules[__name__].__class__ = M\n",
        "import pkg\n\n\ndef test_f():\n    assert pkg.__version__ == '3'\n"),
    "wrapped_absent": ("x = 1\n", "import inspect, pkg\n\n\ndef test_f():\n    assert inspect.unwrap(pkg) is pkg\n"
                                  "    assert not hasattr(pkg, '__wrapped__')\n"),
    "monkeypatch_getattr_hook": ("x = 1\n", "import pkg\n\n\ndef test_f(monkeypatch):\n"
                                            "    monkeypatch.setattr(pkg, '__getattr__', lambda n: 42, raising=False)\n"
                                            "    assert pkg.foo == 42\n\n\ndef test_g():\n    assert not hasattr(pkg, 'foo')\n"),
}

_OPEN: frozenset[str] = frozenset({
    "getattr_hook_asked_twice_on_a_miss", "getattr_hook_miss_counted", "builtins_absent", "cached_absent",
    "spec_origin_none", "warningregistry_after_a_warning", "doc_deleted_reads_the_class_doc",
    "getattr_hook_miss_counted_once", "builtins_present", "cached_is_a_pyc", "spec_origin_is_the_file",
    "warningregistry_read", "type_hints_of_the_module", "annotations_read_then_written", "doc_deleted_class_doc"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "open: a miss of the tree's __getattr__ hook is asked twice (the dict's hook, then the proxy class's getattr "
    "request); the import system's dunders are the driver's import's; a deleted __doc__ stays None in the proxy"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "open: the same, and the driver's own writes into the proxy's __dict__ (eval's __builtins__, ModuleType's "
    "__annotations__ getset) are faults"))


def _params(cases: dict, mark) -> list:
    return [pytest.param(n, marks=[mark] if n in _OPEN else []) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_a_module_dunder(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_reading_a_module_dunder_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
