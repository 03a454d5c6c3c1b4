"""harness.judge.subject_rpc ``STAND_IN_MEMBERS_RULE``: whether a tree object, or its class (``type(x)``), has a special
method is the subject's answer on the live object or class, never the stand-in's (whose machinery defines every special
method an operation may forward). Each case is judged and run under plain pytest in the same sandbox, cold and warm, in
both directions (red team atk21's three lenient class cases are in test_atk21_attacks.py; these are the rule's own:
the object's members, the honest shapes around them, and what must still work through the stand-in's methods)."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_NOTHING = "class C:\n    pass\n\n\ndef f():\n    return C()\n"
_SIZED = ("class C:\n    def __init__(self):\n        self.items = [1, 2]\n\n    def __len__(self):\n        return 2\n\n"
          "    def __iter__(self):\n        return iter(self.items)\n\n\ndef f():\n    return C()\n")
_HEAD = "from pkg import f\n\n\ndef test_f():\n"

# name -> (the tree's package, the harness's test, whether plain pytest passes)
CASES: dict[str, tuple[str, str, bool]] = {
    # wrong trees: the tree's class has none of the names the test reads
    "hasattr_of_the_object": (_NOTHING, _HEAD + "    assert hasattr(f(), '__len__')\n", False),
    "getattr_of_the_object_with_a_default": (
        _NOTHING, _HEAD + "    assert getattr(f(), '__iter__', None) is not None\n", False),
    "dir_of_the_object": (_NOTHING, _HEAD + "    assert '__getitem__' in dir(f())\n", False),
    "hasattr_of_the_object_for_its_context_manager": (_NOTHING, _HEAD + "    assert hasattr(f(), '__enter__')\n", False),
    "getattr_hook_of_the_object": (_NOTHING, _HEAD + "    assert hasattr(type(f()), '__getattr__')\n", False),
    # honest: what the tree's class lacks, the test finds lacking; what it has, found and working
    "object_lacking_len": (_NOTHING, _HEAD + "    assert not hasattr(f(), '__len__')\n"
                                             "    assert not hasattr(type(f()), '__iter__')\n", True),
    "object_with_len_and_iter": (
        _SIZED, _HEAD + "    x = f()\n    assert hasattr(x, '__len__') and hasattr(type(x), '__iter__')\n"
                        "    assert x.__len__() == 2 and type(x).__len__(x) == 2 and list(x.__iter__()) == [1, 2]\n"
                        "    assert '__len__' in dir(x) and 'items' in dir(x) and '__iter__' in dir(type(x))\n", True),
    "copies_of_the_object": (
        _SIZED, "import copy\n" + _HEAD + "    x = f()\n    y, z = copy.copy(x), copy.deepcopy(x)\n"
                "    assert y.items is x.items and z.items is not x.items and z.items == x.items\n", True),
    "names_the_class_gains_after_the_object_crossed": (
        _NOTHING + "\n\ndef grow():\n    C.__len__ = lambda self: 0\n",
        "from pkg import f, grow\n\n\ndef test_f():\n    x = f()\n    assert not hasattr(x, '__len__')\n    grow()\n"
        "    assert hasattr(type(x), '__len__')\n", True),
    "object_answering_through_its_getattr": (
        "class C:\n    def __getattr__(self, name):\n        if name == '__len__':\n            return lambda: 7\n"
        "        raise AttributeError(name)\n\n\ndef f():\n    return C()\n",
        _HEAD + "    x = f()\n    assert x.__len__() == 7 and hasattr(x, '__len__') and not hasattr(type(x), '__len__')\n",
        True),
    "tests_subclass_of_the_objects_class": (
        _NOTHING, _HEAD + "    class My(type(f())):\n        def __len__(self):\n            return 1\n\n"
                          "    assert hasattr(My, '__len__') and not hasattr(My, '__iter__')\n", True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_tree_objects_special_members_read_as_plain_pytest(tmp_path, executor, name):
    module, test, plain_passes = CASES[name]
    _judged_as_plain(tmp_path, (module, test), plain_passes=plain_passes)
