"""harness.judge.subject_rpc ``ABC_CHECKS_RULE``: the test's ``isinstance``/``issubclass`` of a tree object's stand-in
(or of its class, ``type(x)``) against an ABC of the interpreter's is the subject's answer on the live object, as
plain pytest's check runs on the tree's object. Each case is judged and run under plain pytest in the same sandbox,
cold and warm, in both directions (red team atk14's six lenient and two honest cases are in
test_final_check_attacks.py; these are the rule's own, the class path and the honest shapes around it)."""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_UNHASHABLE = "class C:\n    def __eq__(self, o):\n        return self is o\n\n\ndef f():\n    return C()\n"
_SIZED = ("class C:\n    def __iter__(self):\n        return iter([1])\n\n    def __len__(self):\n        return 1\n\n\n"
          "def f():\n    return C()\n")
_HEAD = "import collections.abc\nimport typing\nfrom pkg import f\n\n\ndef test_f():\n"

# name -> (the tree's package, the harness's test, whether plain pytest passes)
CASES: dict[str, tuple[str, str, bool]] = {
    # the class of the stand-in (``type(x)``, ``x.__class__``) is the tree's class to an ABC: wrong trees
    "type_of_an_unhashable_object_is_not_hashable": (
        _UNHASHABLE, _HEAD + "    assert issubclass(type(f()), collections.abc.Hashable)\n", False),
    "class_attribute_of_an_unhashable_object_is_not_hashable": (
        _UNHASHABLE, _HEAD + "    assert issubclass(f().__class__, collections.abc.Hashable)\n", False),
    "object_without_index_is_no_supports_index": (
        _SIZED, _HEAD + "    assert isinstance(f(), typing.SupportsIndex)\n", False),
    # honest: what the tree's class has, the check finds
    "iterable_and_sized_object": (
        _SIZED, _HEAD + "    x = f()\n    assert isinstance(x, collections.abc.Iterable)\n"
                        "    assert isinstance(x, collections.abc.Sized)\n    assert isinstance(x, collections.abc.Hashable)\n",
        True),
    "collection_that_is_no_sequence": (
        _SIZED + "\n\nclass D(C):\n    def __contains__(self, v):\n        return True\n\n\ndef g():\n    return D()\n",
        "import collections.abc\nfrom pkg import g\n\n\ndef test_f():\n    assert isinstance(g(), collections.abc.Collection)\n"
        "    assert not isinstance(g(), collections.abc.Sequence)\n", True),
    "iterable_through_a_typing_alias": (_SIZED, _HEAD + "    assert isinstance(f(), typing.Iterable)\n", True),
    "hashable_list_subclass": (
        "class L(list):\n    def __hash__(self):\n        return 1\n\n\ndef f():\n    return L([1])\n",
        _HEAD + "    assert isinstance(f(), collections.abc.Hashable)\n", True),
    "tree_class_itself": (
        "class C:\n    pass\n\n\ndef f():\n    return C\n",
        _HEAD + "    assert issubclass(f(), collections.abc.Hashable)\n    assert not issubclass(f(), collections.abc.Sized)\n",
        True),
    "class_registered_by_the_tree": (
        "import collections.abc\n\n\nclass C:\n    def __len__(self):\n        return 0\n\n    def __getitem__(self, i):\n"
        "        raise IndexError\n\n\ncollections.abc.Sequence.register(C)\n\n\ndef f():\n    return C()\n",
        _HEAD + "    assert issubclass(type(f()), collections.abc.Sequence)\n"
                "    assert isinstance(f(), collections.abc.Sequence)\n", True),
    # one stand-in class per class of the tree, as under plain pytest
    "two_tree_classes_of_one_name": (
        "class C:\n    pass\n\n\nA = C\n\n\nclass C:\n    pass\n\n\ndef f():\n    return A(), C()\n",
        _HEAD + "    a, b = f()\n    assert type(a) is not type(b)\n", True),
    "two_objects_of_one_class": (
        "class C:\n    pass\n\n\ndef f():\n    return C(), C()\n", _HEAD + "    a, b = f()\n    assert type(a) is type(b)\n", True),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_abcs_check_of_a_tree_object_or_its_class_reads_as_plain_pytest(tmp_path, executor, name):
    module, test, plain_passes = CASES[name]
    _judged_as_plain(tmp_path, (module, test), plain_passes=plain_passes)
