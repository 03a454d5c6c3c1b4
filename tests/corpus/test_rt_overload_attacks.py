"""Red team rt-ovl: removing ``@overload`` from a stub is a mutant a module or a test can tell apart.

First written against a screen rule ("overload stub", corpus/screen.py, 2026-12-07, removed the same day) that
labelled such a mutant equivalent under stated conditions; its one assumption was closed world ("a test does not read
typing's overload registry"). Each case below is a module, the stub whose ``@overload`` is removed, and a check that
passes on the original and fails on the mutant without naming ``get_overloads``/``clear_overloads``/
``_overload_registry``:

- the name read between the stub and the implementation by what a syntactic check does not see: ``globals()`` /
  ``locals()`` in a default, a module function called in a default or used as a decorator that reads the global;
- an identical stub in a body a metaclass records (or in a function body);
- what a proof would take for granted but the module changes at run time: a base class rebound through
  ``globals()`` to a class whose metaclass records the namespace, ``typing.overload`` itself replaced, an unhashable
  ``__name__`` (typing's ``overload`` raises);
- the registry's effect seen without reading it: it keeps the stub, and so the stub's defaults, alive.

What holds now: these removals are the opt-in operator ``remove_overload`` (corpus/operators/fine.py), never
screened; generated with the opt-in, each is judged (label destroying) and each check here kills it.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from corpus.model import EQUIVALENT, ArtifactSpec
from corpus.operators import generate

_RECORDING = '''

class Recording(type):
    seen = []

    @classmethod
    def __prepare__(mcls, name, bases):
        return _Log()

    def __new__(mcls, name, bases, ns):
        return super().__new__(mcls, name, bases, dict(ns))


class _Log(dict):
    def __setitem__(self, key, value):
        Recording.seen.append(getattr(value, "__name__", None))
        super().__setitem__(key, value)
'''

# name: (module, the line of the stub whose mutant is screened, a check run after ``import m``)
CASES = {
    "globals() in the implementation's default": ('''from typing import overload


@overload
def f(x: int) -> int: ...


def f(x, _prev=globals()["f"]):
    return _prev.__name__
''', 5, "assert m.f(1) == '_overload_dummy'"),
    "locals() in a class body default": ('''from typing import overload


class C:
    @overload
    def get(self, i: int) -> int: ...

    def get(self, i, _prev=locals()["get"]):
        return _prev.__name__
''', 6, "assert m.C().get(1) == '_overload_dummy'"),
    "a module function called in a default reads the global": ('''from typing import overload


def _current():
    return f.__name__


@overload
def f(x: int) -> int: ...


def f(x, _prev=_current()):
    return _prev
''', 9, "assert m.f(1) == '_overload_dummy'"),
    "a decorator whose body reads the global": ('''from typing import overload


def remember(fn):
    fn.previous = f.__name__
    return fn


@overload
def f(x: int) -> int: ...


@remember
def f(x):
    return f.previous
''', 10, "assert m.f(1) == '_overload_dummy'"),
    "the identical stub in a metaclass class (its plain twin's proof)": ('''from typing import overload
''' + _RECORDING + '''

class A(metaclass=Recording):
    @overload
    def get(self, i: int) -> int: ...

    def get(self, i):
        return i


class B:
    @overload
    def get(self, i: int) -> int: ...

    def get(self, i):
        return i
''', 23, "assert '_overload_dummy' in m.Recording.seen, m.Recording.seen"),
    "the identical stub in a function body (its module-level twin's proof)": ('''from typing import overload


@overload
def f(x: int) -> int: ...


def f(x):
    return x


def make():
    @overload
    def f(x: int) -> int: ...
    seen = f.__name__

    def f(x):
        return seen
    return f
''', 14, "assert m.make()(1) == '_overload_dummy'"),
    "a base class rebound through globals() to a recording metaclass": ('''from typing import overload
''' + _RECORDING + '''

class Base:
    pass


globals()["Base"] = Recording("Base", (), {})


class C(Base):
    @overload
    def get(self, i: int) -> int: ...

    def get(self, i):
        return i
''', 30, "assert '_overload_dummy' in m.Recording.seen, m.Recording.seen"),
    "typing.overload replaced by the module": ('''import typing

SEEN = []
typing.overload = lambda fn: SEEN.append(fn.__name__) or fn

from typing import overload


@overload
def f(x: int) -> int: ...


def f(x):
    return x
''', 10, "assert m.SEEN == ['f'], m.SEEN"),
    "the registry keeps the stub's default alive": ('''from typing import overload


class Tracker:
    alive = 0

    def __init__(self):
        Tracker.alive += 1

    def __del__(self):
        Tracker.alive -= 1


@overload
def f(x: int, t: Tracker = Tracker()) -> int: ...


def f(x, t=None):
    return x
''', 15, "assert m.Tracker.alive == 1, m.Tracker.alive"),
}


def _screened(src: str, line: int):
    """The ``@overload`` removal at ``line``, generated with the opt-in: never by default, never labelled equivalent."""
    default = generate(ArtifactSpec("l", "python", "m.py", src.encode(), {"role": "code"}), "fine")
    assert not [m for m in default if m.operator == "remove_overload" or "'@overload'" in m.note
                or "'@typing.overload'" in m.note]
    ms = generate(ArtifactSpec("l", "python", "m.py", src.encode(),
                               {"role": "code", "extra_operators": ["remove_overload"]}), "fine")
    found = [m for m in ms if m.operator == "remove_overload" and m.note.startswith(f"L{line}:")]
    assert len(found) == 1, [m.note for m in ms if m.operator == "remove_overload"]
    assert found[0].label != EQUIVALENT and "[equivalent" not in found[0].note, found[0].note
    return found[0]


def _passes(tmp_path, name: str, src: str, check: str, *, import_first: bool = True) -> bool:
    d = tmp_path / name
    d.mkdir()
    (d / "m.py").write_text(src)
    code = ("import m\n" if import_first else "") + check
    return subprocess.run([sys.executable, "-c", code], cwd=d, capture_output=True, timeout=60).returncode == 0


@pytest.mark.parametrize("case", list(CASES))
def test_an_overload_removal_a_check_tells_apart_is_judged_never_screened(case, tmp_path):
    """Off by default, judged with the opt-in: the check passes on the original and fails on the mutant."""
    src, line, check = CASES[case]
    assert _passes(tmp_path, "original", src, check)
    mu = _screened(src, line)
    assert not _passes(tmp_path, "mutant", mu.content.decode(), check), (case, mu.note)


def test_an_unhashable_module_name_makes_typing_overload_raise(tmp_path):
    """typing's ``overload`` keys its registry by ``func.__module__`` (the module's ``__name__``): unhashable, the
    original fails at import (TypeError) and the mutant imports."""
    src = "from typing import overload\n\n__name__ = ['m']\n\n\n@overload\ndef f(x: int) -> int: ...\n\n\n" \
          "def f(x):\n    return x\n"
    check = "try:\n    import m\nexcept TypeError:\n    pass\nelse:\n    raise SystemExit(1)\n"
    assert _passes(tmp_path, "original", src, check, import_first=False)
    mu = _screened(src, 7)
    assert not _passes(tmp_path, "mutant", mu.content.decode(), check, import_first=False), mu.note


_STUBS = ("from typing import overload\n\n\nclass C:\n    @overload\n    def get(self, i: int) -> int: ...\n\n"
          "    @overload\n    def get(self, i: str) -> str: ...\n\n    def get(self, i):\n        return i\n")


def test_the_plain_case_told_apart_by_a_test_that_replaces_typing_overload(tmp_path):
    """tests/corpus/test_screen.py's own screened module: a test that installs its own ``typing.overload`` before the
    import (no registry read; the docstring's out-of-scope list names replacing the module's functions or their
    defaults, not typing's) sees two stubs decorated in the original, one in the mutant."""
    check = ("import typing\nseen = []\ntyping.overload = lambda fn: seen.append(fn.__qualname__) or fn\nimport m\n"
             "assert seen == ['C.get', 'C.get'], seen\n")
    assert _passes(tmp_path, "original", _STUBS, check, import_first=False)
    mu = _screened(_STUBS, 6)
    assert not _passes(tmp_path, "mutant", mu.content.decode(), check, import_first=False), mu.note
