"""Red team atk23: 584682b's closings of atk22 (harness.judge.subject_rpc ``INPLACE``, the ``exit`` request given the
block's exception, ``_members_getattribute``'s answer once the subject has ended, ``_TreeObject``/``_TreeCallable``)
attacked with concrete trees, each judged and run under plain pytest in the same sandbox, cold and warm.

The promise (issue 32): a judged verdict is never more lenient than plain pytest's on the same tree, and an honest
tree's verdict does not change. ``LENIENT``: plain pytest fails the tree, the judge passes it; ``HONEST``: plain pytest
passes the tree, the judge fails it.

Open (strict xfails; a name moved into ``ATK23_CLOSED`` runs as an ordinary test):

1. (the ``exit`` request) The block's exception reaches the live ``__exit__`` as a copy (``enc_exc``: by value), with no
   traceback (``tb`` None, ``ev.__traceback__`` None). What a tree's ``__exit__`` does to it is done to the copy, never
   to the exception that goes on propagating in the driver, and what it keeps is not the block's exception:
   LENIENT: an ``__exit__`` that wrongly wipes ``ev.args`` (``pytest.raises(KeyError, match='k')`` passes judged), or
   wrongly adds a note, or fails (raises) only when given a traceback, or keeps the exception for a test demanding a
   copy (``x.ev is not err``); HONEST: one that adds a note, sets an attribute, rewrites ``args``, reads
   ``tb.tb_lineno``, ``ev.__traceback__`` or ``traceback.extract_tb(tb)[-1]``. The same holds of the tree's own
   exception (raised by a method of the manager inside the block): the live ``__exit__`` is given the live one, but the
   driver's copy, which goes on propagating, was made when it crossed, so a note the ``__exit__`` adds is not in it
   (HONEST: ``pytest.raises(pkg.Abort, match='in tx')``; LENIENT: a wrong note).
2. (the same, the other way: the driver's ``exit`` of a test's context manager the tree's code enters) a test's
   ``__exit__`` given the tree's exception has no traceback (HONEST).
3. (the ``exit`` request cannot carry every exception) an exception whose ``args`` hold a self-containing list ("too
   large or too deep to send") or whose class has an ``args`` property that raises is a protocol fault where plain
   pytest's tree ``__exit__`` never reads it (HONEST).
4. (remained) ``pytest.raises`` inside a ``with`` of a tree context manager that swallows the block's exceptions:
   plain pytest's "DID NOT RAISE" is swallowed, the judge's observation fails the test (HONEST).
5. (remained: ``_members_getattribute``'s fallback covers reads, not requests) a test module's object whose
   ``__del__`` does ``x += 1`` or ``with x:`` on a tree object when the driver's module is cleared (the subject has
   ended): "the request 'iadd'/'enter' could not be sent" fails the module (HONEST).
6. (remained, no tree code involved) an exception the test raised and caught is not itself in an observed
   assertion: ``try: raise err`` / ``except KeyError as e: got = e`` then ``assert got is err`` fails judged (HONEST;
   so does every ``is`` of a raised exception against one the tree kept or chained, which is why the identity cases of
   finding 1 are stated the lenient way only).

Tried and held (judged as plain, cold): a test's own exception class (a ``ValueError`` subclass and not) through a
tree ``__exit__`` testing ``issubclass(et, ValueError)``; ``pytest.fail`` and ``pytest.skip`` inside a swallowing
``with``; an exception group's members; ``KeyboardInterrupt``, ``SystemExit.code`` and ``GeneratorExit`` (a generator
closed inside the block); a 30 MB exception message; ``__exit__`` returning a truthy list, or a tree object whose
``__bool__`` raises; ``__exit__`` raising a different exception (its ``__context__``'s class and args); nested
``with x, y``; ``contextlib.ExitStack`` of two tree managers; a tree ``@contextmanager``; the tree's own exception
given to a test's ``__exit__`` (``et is pkg.Oops``); the tree's own exception raised in the block and tested by
``isinstance`` and by identity (``ev is self.err``) in its ``__exit__``; the tree's ``+=`` on a test's list (clearing
it: written back), ``collections.Counter`` and ``deque``; a test's ``a += x`` of a tree object (its ``__radd__``, read by
the test's ``__iadd__``); a tree class with ``__add__`` alone: ``hasattr(x, '__iadd__')`` and of its class False,
``x.__iadd__(1)`` an AttributeError, ``operator.iadd(x, 1)`` its ``__add__``'s, ``inspect.getattr_static`` an
AttributeError; ``with`` of a tree object without ``__exit__`` raising; ``+=`` of a callable tree object; and ``contextlib.suppress`` entered by the tree; ``x += [..]`` and
``x += test_object`` (iterated by the live ``__iadd__``); a tree object's ``__iadd__`` returning ``NotImplemented``
(the test's ``__radd__``; the TypeError's message); ``x['a'] += 1``; ``x.inner += 3`` of a tree member; ``@=``/``**=``;
a tree ``list`` subclass's ``+=`` (identity, its class, its methods); one with a wrong ``__iadd__``; the tree's ``c +=
1`` on a test's object with ``__iadd__`` (identity) and with ``__add__`` alone, and ``c += [1]`` on a test's list; a
module-scoped fixture's teardown doing ``with x: x += 5``; an atexit callback of the test module doing ``X += 1``.
Noticed, no case: a tree ``int`` subclass defining ``__add__`` alone makes ``x == 1`` undecidable judged (its
``__eq__`` is ``int``'s; remained, no in-place operator involved).
"""
from __future__ import annotations

import pytest

from tests.harness.judge.test_atk16_attacks import _judged_as_plain


def _cm(exit_body: str, head: str = "") -> str:
    """A tree package whose ``f()`` returns a context manager with ``exit_body`` as its ``__exit__``'s body."""
    return (head + "class Cm:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, et, ev, tb):\n"
            + exit_body + "\n\ndef f():\n    return Cm()\n")


_HEAD = "from pkg import f\n\n\ndef test_f():\n    x = f()\n"
_RAISES = "import pytest\n" + _HEAD + "    with pytest.raises(KeyError{}) as ei:\n        with x:\n            raise KeyError('k')\n"
_ACC = ("class Acc:\n    def __init__(self):\n        self.n = 0\n\n    def __iadd__(self, k):\n        self.n += k\n"
        "        return self\n\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
        "        return False\n\n\ndef f():\n    return Acc()\n")
_KEEP = "from pkg import f\n\n\nclass Keep:\n    def __init__(self, x):\n        self.x = x\n\n    def __del__(self):\n"
_ABORT = ("class Abort(Exception):\n    pass\n\n\nclass Tx:\n    def __enter__(self):\n        return self\n\n"
          "    def abort(self):\n        raise Abort('stop')\n\n    def __exit__(self, et, ev, tb):\n"
          "        if ev is not None:\n            ev.add_note({!r})\n\n\ndef f():\n    return Tx()\n")
_ABORTED = ("import pkg\nimport pytest\n" + _HEAD + "    with pytest.raises(pkg.Abort{}) as ei:\n        with x:\n"
            "            x.abort()\n")
_RUN = "def run(cm):\n    with cm:\n        raise ValueError('v')\n    return 'ok'\n\n\ndef f():\n    return 1\n"

# name -> (the tree's package, the harness's test); plain pytest fails each
LENIENT: dict[str, tuple] = {
    # 1. the live __exit__ works on a copy of the block's exception, with no traceback
    "exit_wiping_the_blocks_args": (
        _cm("        if ev is not None:\n            ev.args = ()  # wrong: loses the message\n"),
        _RAISES.format(", match='k'")),
    "exit_adding_a_note": (
        _cm("        if ev is not None:\n            ev.add_note('secret=hunter2')  # wrong: leaks\n"),
        _RAISES.format("") + "    assert not getattr(ei.value, '__notes__', None)\n"),
    "exit_failing_given_a_traceback": (
        _cm("        if tb is not None:\n            raise RuntimeError('bug')\n"), _RAISES.format("")),
    "exit_keeping_the_blocks_exception": (
        _cm("        self.ev = ev\n        return True\n"),
        _HEAD + "    err = KeyError('k')\n    with x:\n        raise err\n    assert x.ev is not err\n"),
    # 1b. the tree's own exception, given a note by the live __exit__: the driver's copy was made before
    "exit_adding_a_note_to_the_trees_exception": (
        _ABORT.format("secret"), _ABORTED.format("") + "    assert not getattr(ei.value, '__notes__', None)\n"),
}
# name -> (the tree's package, the harness's test); plain pytest passes each
HONEST: dict[str, tuple] = {
    # 1. the other way
    "exit_adding_a_note": (
        _cm("        if ev is not None:\n            ev.add_note('in tx')\n"), _RAISES.format(", match='in tx'")),
    "exit_adding_a_note_to_the_trees_exception": (_ABORT.format("in tx"), _ABORTED.format(", match='in tx'")),
    "exit_setting_an_attribute": (
        _cm("        if ev is not None:\n            ev.tx = 'rolled back'\n"),
        _RAISES.format("") + "    assert ei.value.tx == 'rolled back'\n"),
    "exit_rewriting_args": (
        _cm("        if ev is not None:\n            ev.args = ('changed',)\n"), _RAISES.format(", match='changed'")),
    "exit_reading_the_line": (
        _cm("        self.line = tb.tb_lineno if tb is not None else -1\n        return True\n"),
        _HEAD + "    with x:\n        raise KeyError('k')\n    assert x.line > 0\n"),
    "exit_reading_the_exceptions_traceback": (
        _cm("        self.has = ev is not None and ev.__traceback__ is tb is not None\n        return True\n"),
        _HEAD + "    with x:\n        raise KeyError('k')\n    assert x.has\n"),
    "exit_extracting_the_traceback": (
        _cm("        self.where = traceback.extract_tb(tb)[-1].name if et else None\n        return True\n",
            "import traceback\n\n\n"),
        _HEAD + "    with x:\n        raise KeyError('k')\n    assert x.where == 'test_f'\n"),
    # 2. a test's __exit__ given the tree's exception
    "tests_exit_given_the_trees_exception": (
        _RUN, "import pkg\n\n\nclass Cm:\n    def __enter__(self):\n        return self\n\n"
              "    def __exit__(self, et, ev, tb):\n        self.tb = tb\n        return True\n\n\n"
              "def test_f():\n    c = Cm()\n    assert pkg.run(c) == 'ok' and c.tb is not None\n"),
    # 3. exceptions the exit request cannot carry
    "exception_holding_a_cycle": (
        _cm("        return False\n"),
        "import pytest\n" + _HEAD + "    loop = []\n    loop.append(loop)\n    with pytest.raises(ValueError):\n"
        "        with x:\n            raise ValueError(loop)\n"),
    "exception_with_an_args_property": (
        _cm("        return False\n"),
        "import pytest\n" + _HEAD + "    class E(Exception):\n        @property\n        def args(self):\n"
        "            raise RuntimeError('no args')\n    with pytest.raises(E):\n        with x:\n            raise E()\n"),
    # 4. pytest.raises inside a swallowing with
    "pytest_raises_inside_a_swallowing_with": (
        _cm("        return True\n"),
        "import pytest\n" + _HEAD + "    with x:\n        with pytest.raises(KeyError):\n            pass\n"),
    # 5. a finalizer's requests once the subject has ended
    "finalizer_adding_in_place_at_the_end": (
        _ACC, _KEEP + "        self.x += 1\n\n\nK = Keep(f())\n\n\ndef test_f():\n    K.x += 1\n    assert K.x.n == 1\n"),
    "finalizer_entering_at_the_end": (
        _ACC, _KEEP + "        with self.x:\n            pass\n\n\nK = Keep(f())\n\n\ndef test_f():\n    with K.x:\n"
                      "        pass\n"),
    # 6. a raised exception's identity, no tree code involved
    "raised_exception_identity": (
        "def f():\n    return 1\n",
        "def test_f():\n    err = KeyError('k')\n    try:\n        raise err\n    except KeyError as e:\n        got = e\n"
        "    assert got is err\n"),
}
# closed (subject_rpc ``Peer._exit``): the live __exit__ is given a real traceback (the exception raised and caught in the
# subject), and a change it makes to the block's exception (a copy of the driver's) is a fault: the wrong trees fail
# judged as under plain pytest; a right tree reading its traceback passes; one changing the exception fails (stricter)
ATK23_CLOSED: frozenset[str] = frozenset({
    "exit_wiping_the_blocks_args", "exit_adding_a_note", "exit_failing_given_a_traceback",
    "exit_adding_a_note_to_the_trees_exception"})
ATK23_CLOSED_HONEST: frozenset[str] = frozenset({
    "exit_reading_the_line", "exit_reading_the_exceptions_traceback", "tests_exit_given_the_trees_exception"})

_LENIENT_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk23: the judge passes a tree plain pytest fails (the live __exit__ works on a copy of the block's "
    "exception with no traceback: its args wiped, a note added, a failure only given a traceback, the copy kept)"))
_HONEST_OPEN = pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "red team atk23: the judge fails a right tree plain pytest passes (the live __exit__'s copy of the block's "
    "exception: a note, an attribute, args, the traceback; a test's __exit__ given the tree's exception without one; "
    "an exception the exit request cannot send; pytest.raises in a swallowing with; a finalizer's += or with at the "
    "driver's end; a raised exception's identity)"))


def _params(cases: dict, mark, closed: frozenset = ATK23_CLOSED) -> list:
    return [pytest.param(n, marks=[] if n in closed else [mark]) for n in sorted(cases)]


@pytest.mark.parametrize("name", _params(LENIENT, _LENIENT_OPEN))
def test_the_judge_fails_a_wrong_tree_through_a_with_block_or_an_in_place_operator(tmp_path, executor, name):
    _judged_as_plain(tmp_path, LENIENT[name], plain_passes=False)


@pytest.mark.parametrize("name", _params(HONEST, _HONEST_OPEN, ATK23_CLOSED_HONEST))
def test_an_honest_tree_through_a_with_block_or_an_in_place_operator_passes_judged(tmp_path, executor, name):
    _judged_as_plain(tmp_path, HONEST[name], plain_passes=True)
