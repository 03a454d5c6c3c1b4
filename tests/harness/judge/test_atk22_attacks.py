"""Red team atk22: bcbffff's ``STAND_IN_MEMBERS_RULE`` (harness.judge.subject_rpc ``_MACHINERY``,
``_members_getattribute``, ``_members_dir``, ``_TreeClassView``, ``_COPY_TABLES``, ``_named``; probe_runtime
``_answered_by_the_subject``) attacked with concrete trees, each judged and run under plain pytest in the same sandbox,
cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. The rule: a special method name (``_MACHINERY``) read by attribute on a tree object's
stand-in is the live object's, read on its class the subject's ``hasattr`` on the live class, and ``dir`` of either the
subject's.

Open (strict xfails; a name moved into ``ATK22_CLOSED`` runs as an ordinary test). ``LENIENT``: plain pytest fails the
tree, the judge passes it; ``HONEST``: plain pytest passes the tree, the judge fails it. "New" marks what bcbffff
introduced (its parent 54c885f judged the case as plain pytest); the others remained (the same verdict on 54c885f).

1. (new) The rule's own names in the stand-in's class: ``_named`` puts ``__getattribute__`` and ``__dir__`` into the
   stand-in class's namespace, so ``'__getattribute__' in vars(type(x))`` is True judged for a tree class with no
   ``__getattribute__`` (LENIENT), and ``type(x).__getattribute__ is object.__getattribute__`` is False judged for one
   (HONEST; on 54c885f the stand-in's was ``object``'s).
2. (new) A request where there was none: a special name read on a tree object is now a ``getattr`` request, so a test
   module's object whose ``__del__`` reads ``hasattr(x, '__iter__')`` when the driver's module is cleared (the subject
   has ended) is a protocol fault ("the request 'getattr' could not be sent": the module's verdict fails), where plain
   pytest reads True (HONEST; on 54c885f the stand-in answered locally). The same read of ``type(x)`` held: its
   failed request is swallowed.
3. Names ``object`` has stay the stand-in's (``_MACHINERY`` excludes ``dir(object)``; the docs name ``__hash__`` a
   residual): ``type(x).__hash__ is not None`` for a tree class that defines ``__eq__`` alone (its ``__hash__`` None),
   and ``type(x).__repr__ is not object.__repr__`` for one with no ``__repr__``, are True judged (LENIENT).
4. Of the class the rule asks only *whether* the live class has the name; the value is the machinery's: a tree class
   with ``__iter__ = None`` (not iterable, by the data model) reads ``getattr(type(x), '__iter__', None)`` as
   ``RemoteObject.__iter__`` (LENIENT: ``is not None``; HONEST: ``type(x).__iter__ is None``), and a tree class with
   ``__slots__ = ('a',)`` reads ``type(x).__slots__`` as the stand-in's (``('_hx_peer', '_hx_ref', ...)``: HONEST).
5. The class's own namespace is the stand-in class's: ``'__len__' in vars(type(x))`` is False judged for a tree class
   that defines ``__len__`` (the machinery's is in ``RemoteObject``'s namespace: HONEST), and
   ``inspect.getmembers(type(x))`` has no ``__len__`` (HONEST).
6. Only tree objects (``_named``'s ``klass``) have the rule: an object of a library class the tree returns (a
   generator) or a tree function keeps every special method of the machinery: ``hasattr(f(), '__len__')`` of a
   generator (LENIENT; HONEST the other way) and ``hasattr(pkg.f, '__iter__')`` (LENIENT); so does a tree value
   subclass's stand-in (a shadow: ``hasattr(type(x), '__getattr__')`` of a ``list`` subclass, LENIENT).
7. ``dir`` of a test's subclass of ``type(x)`` is the stand-in's (``_TreeClassView.__dir__`` reads only a class with
   ``_hx_cls`` of its own, where ``hasattr`` walks the MRO): ``'__len__' in dir(My)`` is True judged for a tree class
   without it (LENIENT), and the machinery's ``_q`` is in it (HONEST).
8. The stand-in's class is fixed when the object crosses: after the tree assigns the object's ``__class__`` (to a class
   without ``__len__``), ``hasattr(type(x), '__len__')`` still asks the old class (LENIENT; HONEST the other way).
9. A raw lookup bypasses the rule: ``object.__getattribute__(x, '__len__')`` finds the machinery's (LENIENT; only
   ``inspect.getattr_static`` held).
10. ``type(type(x))`` is the judge's metaclass ``_TreeClassView``, not ``type`` (LENIENT: ``is not type``, a test
   demanding a metaclass; HONEST: ``is type``; on 54c885f ``is type`` failed too).
11. The stand-in class is not the tree class in what it builds and describes: ``type(x)(2)`` (``RemoteObject.__init__``
   missing arguments), ``inspect.signature(type(x))``, ``type(x).__module__``/``__doc__`` (the live-object
   properties), ``dataclasses.fields(type(x))``, ``len(type(x))`` through a tree metaclass's ``__len__`` (HONEST).
12. ``copy.deepcopy`` of a container holding a tree object and its member (``_COPY_TABLES``: each tree object is
   deep-copied in the subject with a memo of its own), so ``y['b'] is y['a'].child`` is False judged (HONEST), and
   ``x == pytest.approx([...])`` of a tree sequence is undecidable judged (HONEST).
13. (the interpreter's own special-method calls, which the rule leaves to the stand-in's type) The machinery lacks
   ``__reversed__``, ``__complex__``, ``__length_hint__``, ``__round__``, ``__floor__``, so the interpreter falls back
   to another protocol of the stand-in's: ``reversed(x)`` of a tree sequence whose ``__reversed__`` is wrong reads
   ``__len__``/``__getitem__`` (right), and ``complex(x)`` of a tree class whose ``__complex__`` is wrong reads its
   ``__float__`` (LENIENT); the other way ``reversed(x)`` of a class with ``__reversed__`` alone is a TypeError,
   ``operator.length_hint(x)`` 0, ``round(x)``/``math.floor(x)`` TypeErrors, and ``os.fspath`` of an object with no
   ``__fspath__`` an AttributeError, not plain pytest's TypeError, and ``pow(x, 2, 5)`` a TypeError (the binary operators'
   forwarders take one operand: HONEST).
14. (the same kind) A tree descriptor in a test's class: the stand-in's type has no ``__get__``/``__set_name__``, so
   ``Model.title`` of ``class Model: title = pkg.Field()`` is the stand-in itself: a ``__get__`` that wrongly answers
   the class's access with a value passes ``isinstance(Model.title, pkg.Field)`` judged (LENIENT), and a right
   ``__set_name__`` never runs (``Model.title.name`` an AttributeError: HONEST).
15. (the same kind, the most likely in a wrong tree) The in-place operators (``__iadd__``, ``__isub__``, ... not in
   ``SLOTS``): ``x += 1`` of a tree object runs the live ``__add__``, so an ``__iadd__`` that forgets ``return self``
   (plain pytest: ``x`` becomes None) passes judged when the class has a right ``__add__`` (LENIENT), and a class with
   ``__iadd__`` alone (mutating in place, returning self) is a TypeError judged (HONEST).
16. (``with``, through the stand-in's ``__exit__``) ``RemoteObject.__exit__(self, *exc)`` sends ``exit`` without the
   block's exception, and the subject calls the live ``__exit__(None, None, None)``: a tree context manager that
   wrongly swallows the block's error (``return et is not None``) lets ``pytest.raises(KeyError)`` around ``with f():
   raise KeyError`` pass judged (LENIENT), and one that rightly suppresses a ``ValueError`` (and records it) fails
   judged (HONEST).

Tried and held (judged as plain, cold): ``inspect.getattr_static`` of the object (both ways);
``inspect.getmembers(x)``; ``'__len__' in dict(inspect.getmembers(type(x)))`` for a class without it;
``hasattr``/``__slots__`` of the object and of its class for a class without slots; a tree object in a list or a dict;
the stand-in of a tree iterator (``hasattr(iter(x), '__iter__')``); a callable tree object (``hasattr`` of it and its
class, both ways); a tree metaclass (``hasattr(type(type(x)), '__len__')``); a tree int/list subclass's
``__len__``/``__enter__``/``__fspath__``; ``contextlib.ExitStack.enter_context`` (both ways: it reads
``type(cm).__enter__``); ``unittest.mock.patch.object`` of an instance method and of ``type(x).__len__``;
``MagicMock(spec=x)`` (its magic methods by ``dir``); ``dataclasses.is_dataclass``/``asdict``;
``json.dumps(x, default=vars)``; a tree callback reading ``hasattr(type(x), ...)``/``dir(x)`` inside a request; 300
rounds of ``hasattr``/``dir`` of the object and its class; an atexit callback of the test module reading
``hasattr(type(X), '__len__')`` and ``dir(X)``; a ``__del__`` at the module clearing reading only ``hasattr(type(X),
...)``; cyclic garbage whose ``__del__`` reads ``hasattr(X, '__iter__')`` and ``hasattr(type(X), '__len__')``,
collected (threshold 5) between a test's requests (400 rounds: no nested-request corruption); a session fixture's
teardown and a test's thread after the test reading ``hasattr``/``dir`` of a tree object; ``copy.copy``/``deepcopy``
of a class whose ``__copy__``/``__deepcopy__`` return self (``is`` holds); ``asyncio.run`` of a tree coroutine.
Noticed, no case: a harness test with an ``async def`` function is refused by the probe (``ProbeError``: not a
verdict); the judge's own messages name a tree class ``<tree> <property object at 0x...>.Field`` (finding 11's
``__module__`` property, read of the stand-in's class).
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain

_NOTHING = "class C:\n    pass\n\n\ndef f():\n    return C()\n"
_SIZED = ("class C:\n    def __init__(self, n=2):\n        self.n = n\n\n    def __len__(self):\n        return self.n\n\n"
          "    def __iter__(self):\n        return iter(range(self.n))\n\n\ndef f():\n    return C()\n")
_EQ_ONLY = "class C:\n    def __eq__(self, other):\n        return True\n\n\ndef f():\n    return C()\n"
_NOT_ITERABLE = "class C:\n    __iter__ = None\n\n\ndef f():\n    return C()\n"
_GENERATOR = "def f():\n    return (i for i in range(3))\n"
_MORPH = ("class C:\n    def __len__(self):\n        return 1\n\n\nclass D:\n    pass\n\n\ndef f():\n    return C()\n\n\n"
          "def morph(x):\n    x.__class__ = D\n")
_SEQUENCE = ("class C:\n    def __len__(self):\n        return 2\n\n    def __getitem__(self, i):\n"
             "        return [1, 2][i]\n\n    def __reversed__(self):\n        return iter([1, 2])  # wrong\n\n\n"
             "def f():\n    return C()\n")
_ROUNDS = ("class C:\n    def __reversed__(self):\n        return iter([2, 1])\n\n    def __round__(self, n=None):\n"
           "        return 7\n\n    def __length_hint__(self):\n        return 4\n\n    def __floor__(self):\n"
           "        return 3\n\n\ndef f():\n    return C()\n")
_HEAD = "from pkg import f\n\n\ndef test_f():\n    x = f()\n"
_MORPHED = "from pkg import f, morph\n\n\ndef test_f():\n    x = f()\n    morph(x)\n"
_SUBCLASS = _HEAD + "    class My(type(x)):\n        pass\n\n"
# 2. a test module's object, freed at the driver's module clearing, reading a special name of a tree object
_KEEPS = ("from pkg import f\n\n\nclass Keep:\n    def __init__(self, x):\n        self.x = x\n\n    def __del__(self):\n"
          "        print('read', hasattr(self.x, '__iter__'))\n\n\nK = Keep(f())\n\n\ndef test_f():\n"
          "    assert len(K.x) == 2\n")

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    "getattribute_in_the_classs_namespace": (_NOTHING, _HEAD + "    assert '__getattribute__' in vars(type(x))\n"),
    "hash_of_a_class_with_eq_alone": (_EQ_ONLY, _HEAD + "    assert type(x).__hash__ is not None\n"),
    "repr_of_a_class_without_one": (_NOTHING, _HEAD + "    assert type(x).__repr__ is not object.__repr__\n"),
    "member_set_to_none_in_the_class": (
        _NOT_ITERABLE, _HEAD + "    assert getattr(type(x), '__iter__', None) is not None\n"),
    "generator_returned_by_the_tree": (_GENERATOR, _HEAD + "    assert hasattr(x, '__len__')\n"),
    "tree_function": (_GENERATOR, "import pkg\n\n\ndef test_f():\n    assert hasattr(pkg.f, '__iter__')\n"),
    "tree_list_subclasss_class": (
        "class C(list):\n    pass\n\n\ndef f():\n    return C([1])\n", _HEAD + "    assert hasattr(type(x), '__getattr__')\n"),
    "dir_of_the_tests_subclass": (_NOTHING, _SUBCLASS + "    assert '__len__' in dir(My)\n"),
    "class_changed_after_crossing": (_MORPH, _MORPHED + "    assert hasattr(type(x), '__len__')\n"),
    "raw_lookup_on_the_object": (_NOTHING, _HEAD + "    assert callable(object.__getattribute__(x, '__len__'))\n"),
    "metaclass_demanded": (_NOTHING, _HEAD + "    assert type(type(x)) is not type\n"),
    # 13. the interpreter's fallbacks: a wrong __reversed__ / __complex__ the stand-in's type lacks
    "reversed_of_a_tree_sequence": (_SEQUENCE, _HEAD + "    assert list(reversed(x)) == [2, 1]\n"),
    "complex_of_a_tree_number": (
        "class C:\n    def __float__(self):\n        return 2.0\n\n    def __complex__(self):\n        return 3j  # wrong\n\n\n"
        "def f():\n    return C()\n", _HEAD + "    assert complex(x) == 2\n"),
    # 14. a tree descriptor in the test's class; 15. an in-place operator
    "descriptor_in_the_tests_class": (
        "class Field:\n    def __get__(self, obj, owner=None):\n        return 'v'  # wrong for the class's access\n\n\n"
        "def f():\n    return 1\n",
        "import pkg\n\n\nclass Model:\n    title = pkg.Field()\n\n\ndef test_f():\n"
        "    assert isinstance(Model.title, pkg.Field)\n"),
    "iadd_without_return_self": (
        "class Acc:\n    def __init__(self, total=0):\n        self.total = total\n\n    def __add__(self, n):\n"
        "        return Acc(self.total + n)\n\n    def __iadd__(self, n):\n        self.total += n  # no return self\n\n\n"
        "def f():\n    return Acc()\n", _HEAD + "    x += 1\n    assert x.total == 1\n"),
    # 16. the block's exception never reaches the live __exit__
    "exit_swallowing_the_blocks_error": (
        "class Tx:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, et, ev, tb):\n"
        "        return et is not None  # wrong: swallows the block's error\n\n\ndef f():\n    return Tx()\n",
        "import pytest\nfrom pkg import f\n\n\ndef test_f():\n    with pytest.raises(KeyError):\n        with f():\n"
        "            raise KeyError('k')\n"),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    "getattribute_of_the_class_is_objects": (
        _NOTHING, _HEAD + "    assert type(x).__getattribute__ is object.__getattribute__\n"),
    "finalizer_reading_a_special_name_at_the_end": (_SIZED, _KEEPS),
    "member_set_to_none_in_the_class": (_NOT_ITERABLE, _HEAD + "    assert type(x).__iter__ is None\n"),
    "slots_of_the_class": ("class C:\n    __slots__ = ('a',)\n\n\ndef f():\n    return C()\n",
                           _HEAD + "    assert type(x).__slots__ == ('a',)\n"),
    "len_in_the_classs_namespace": (_SIZED, _HEAD + "    assert '__len__' in vars(type(x))\n"),
    "members_of_the_class": (_SIZED, "import inspect\n" + _HEAD + "    assert '__len__' in dict(inspect.getmembers(type(x)))\n"),
    "generator_returned_by_the_tree": (_GENERATOR, _HEAD + "    assert not hasattr(x, '__len__')\n"),
    "dir_of_the_tests_subclass": (_SIZED, _SUBCLASS + "    assert '__len__' in dir(My) and '_q' not in dir(My)\n"),
    "class_changed_after_crossing": (_MORPH, _MORPHED + "    assert not hasattr(type(x), '__len__')\n"),
    "metaclass_is_type": (_NOTHING, _HEAD + "    assert type(type(x)) is type\n"),
    "object_built_from_its_class": (
        "class C:\n    def __init__(self, a):\n        self.a = a\n\n\ndef f():\n    return C(1)\n",
        _HEAD + "    assert type(x)(2).a == 2\n"),
    "signature_of_the_class": (
        "class C:\n    def __init__(self, a, b=2):\n        pass\n\n\ndef f():\n    return C(1)\n",
        "import inspect\n" + _HEAD + "    assert list(inspect.signature(type(x)).parameters) == ['a', 'b']\n"),
    "module_and_doc_of_the_class": (
        "class C:\n    \"\"\"A thing.\"\"\"\n\n\ndef f():\n    return C()\n",
        _HEAD + "    assert (type(x).__module__, type(x).__doc__) == ('pkg', 'A thing.')\n"),
    "dataclass_fields_of_the_class": (
        "import dataclasses\n\n\n@dataclasses.dataclass\nclass C:\n    a: int = 1\n\n\ndef f():\n    return C()\n",
        "import dataclasses\n" + _HEAD + "    assert [g.name for g in dataclasses.fields(type(x))] == ['a']\n"),
    "len_of_the_class_by_a_tree_metaclass": (
        "class M(type):\n    def __len__(cls):\n        return 3\n\n\nclass C(metaclass=M):\n    pass\n\n\n"
        "def f():\n    return C()\n", _HEAD + "    assert len(type(x)) == 3\n"),
    "deepcopy_sharing_a_memo": (
        "class Child:\n    pass\n\n\nclass C:\n    def __init__(self):\n        self.child = Child()\n\n\n"
        "def f():\n    return C()\n",
        "import copy\n" + _HEAD + "    y = copy.deepcopy({'a': x, 'b': x.child})\n    assert y['b'] is y['a'].child\n"),
    "approx_of_a_tree_sequence": (
        "class C:\n    def __init__(self):\n        self.v = [0.1 + 0.2, 1.0]\n\n    def __len__(self):\n        return 2\n\n"
        "    def __getitem__(self, i):\n        return self.v[i]\n\n    def __iter__(self):\n        return iter(self.v)\n\n\n"
        "def f():\n    return C()\n", "import pytest\n" + _HEAD + "    assert x == pytest.approx([0.3, 1.0])\n"),
    # 13. the other way
    "reversed_length_hint_round_floor": (
        _ROUNDS, "import math\nimport operator\n" + _HEAD
        + "    assert (list(reversed(x)), operator.length_hint(x), round(x), math.floor(x)) == ([2, 1], 4, 7, 3)\n"),
    "fspath_of_an_object_without_one": (
        _NOTHING, "import os\nimport pytest\n" + _HEAD + "    with pytest.raises(TypeError):\n        os.fspath(x)\n"),
    "pow_with_a_modulus": (
        "class M:\n    def __init__(self, v):\n        self.v = v\n\n    def __pow__(self, e, mod=None):\n"
        "        return M(pow(self.v, e, mod))\n\n\ndef f():\n    return M(3)\n", _HEAD + "    assert pow(x, 2, 5).v == 4\n"),
    # 14. 15. the other way
    "descriptor_in_the_tests_class": (
        "class Field:\n    def __set_name__(self, owner, name):\n        self.name = name\n\n"
        "    def __get__(self, obj, owner=None):\n        return self if obj is None else 'v:' + self.name\n\n\n"
        "def f():\n    return 1\n",
        "import pkg\n\n\nclass Model:\n    title = pkg.Field()\n\n\ndef test_f():\n"
        "    assert Model.title.name == 'title'\n"),
    "iadd_alone": (
        "class Acc:\n    def __init__(self):\n        self.total = 0\n\n    def __iadd__(self, n):\n        self.total += n\n"
        "        return self\n\n\ndef f():\n    return Acc()\n",
        _HEAD + "    y = x\n    x += 2\n    assert x is y and y.total == 2\n"),
    # 16. the other way
    "exit_suppressing_a_value_error": (
        "class Suppress:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, et, ev, tb):\n"
        "        self.seen = et\n        return et is ValueError\n\n\ndef f():\n    return Suppress()\n",
        _HEAD + "    with x:\n        raise ValueError('boom')\n    assert x.seen is ValueError\n"),
}
# closed (subject_rpc): the rule's reads in bases of their own (``_TreeObject``), the stand-in's own answer once the subject
# has ended, in-place operators forwarded (``INPLACE``), ``__exit__`` given the block's exception (the ``exit`` request)
ATK22_CLOSED: frozenset[str] = frozenset({
    "getattribute_in_the_classs_namespace", "finalizer_reading_a_special_name_at_the_end", "iadd_without_return_self",
    "iadd_alone", "exit_swallowing_the_blocks_error", "exit_suppressing_a_value_error"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk22: the judge passes a tree plain pytest fails (a tree object's or class's member read by name "
    "finds the stand-in's: the rule's own namespace, object's names, a member set to None, a library object or tree "
    "function, a test's subclass's dir, a changed __class__, a raw lookup, the metaclass; the interpreter's fallback for a "
    "special method the stand-in's type lacks: __reversed__, __complex__, a descriptor's __get__, __iadd__; "
    "__exit__ never given the block's exception)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk22: the judge fails a right tree plain pytest passes (the stand-in's class read for the tree's: "
    "its namespace, members, metaclass, constructor, signature, module, dataclass fields; a special name read at the "
    "driver's end; deepcopy's memo; approx; special methods the stand-in's type lacks: __reversed__, "
    "__length_hint__, __round__, __floor__, os.fspath's TypeError, a 3-argument pow, __set_name__, "
    "__iadd__, "
    "__exit__ never given the block's exception)"))


def _params(cases: dict, mark) -> list:
    return [pytest.param(n, marks=[] if n in ATK22_CLOSED else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_whose_members_the_test_reads_by_name(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN))
def test_an_honest_tree_whose_members_the_test_reads_by_name_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
