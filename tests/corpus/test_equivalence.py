"""The cheap equivalence check: identical bytecode, compared on what decides behaviour."""
import pytest

from corpus.equivalence import compiles, identical_bytecode
from corpus.model import EQUIVALENT, ArtifactSpec
from corpus.operators import generate

SAME = [
    ("x = 1\n", "x = (1)\n"),                                              # parentheses
    ("x = 1  # a\n", "x = 1  # b\n"),                                      # comments
    ("def f():\n    return 1\n", "\n\ndef f():\n\n    return 1\n"),        # line numbers only
    ("def f():\n    if 0:\n        return 1\n    return 2\n",
     "def f():\n    if 0:\n        return 7\n    return 2\n"),              # dead branch (constant renumbered)
    ("def f():\n    return 1\n    g()\n", "def f():\n    return 1\n    pass\n"),  # after return
    ("def f():\n    return None\n", "def f():\n    return\n"),
]
DIFFERENT = [
    ("x = 1\n", "x = 2\n"),
    ("x = 1\n", "x = 1.0\n"),                   # == would call these equal; behaviour differs
    ("x = 1\n", "x = True\n"),
    ("x = 0.0\n", "x = -0.0\n"),
    ("s = t.upper()\n", "s = t.lower()\n"),     # names, not constants
    ("n = min(a, b)\n", "n = max(a, b)\n"),
    ("def f():\n    x = 1\n    return x\n", "def f():\n    pass\n    return x\n"),  # local -> global
    ("x = 1\n", "x = (\n"),                     # the mutant does not compile
]


@pytest.mark.parametrize("a,b", SAME)
def test_identical(a, b):
    assert identical_bytecode(a, b)


@pytest.mark.parametrize("a,b", DIFFERENT)
def test_different(a, b):
    assert not identical_bytecode(a, b)


def test_compiles():
    assert compiles("x = 1\n") and not compiles("def (:\n")


def test_generate_labels_bytecode_identical_fine_mutants_equivalent():
    src = b"def f(x):\n    if False:\n        return x + 1\n    return x - 1\n"
    ms = generate(ArtifactSpec("t", "python", "m.py", src, {"role": "code"}), "fine")
    eq = [m for m in ms if m.label == EQUIVALENT]
    assert eq and all("if False" in m.content.decode() and "return x - 1" in m.content.decode() for m in eq)
    assert all("[equivalent: identical bytecode]" in m.note for m in eq)
    assert any(m.label == "destroying" and "return x + 1" in m.content.decode() for m in ms)


# A function's docstring is its first constant, loaded by no instruction, yet ``f.__doc__`` (and
# every doctest) observes it: a mutant that changes or removes one is not proven equivalent.
DOCSTRING_DIFFERENT = [
    ('def f(a):\n    """Return a."""\n    return a\n', "def f(a):\n    return a\n"),
    ('def f(a):\n    """>>> f(1)\n    1\n    """\n    return a\n',
     'def f(a):\n    """>>> f(1)\n    2\n    """\n    return a\n'),
    ('def f():\n    """Doc."""\n', "def f():\n    pass\n"),          # hollowing a docstring-only stub
]


@pytest.mark.parametrize("a,b", DOCSTRING_DIFFERENT)
def test_a_function_docstring_change_is_not_identical(a, b):
    assert not identical_bytecode(a, b)


# swap_method's "trivially equivalent" forms hold for str only; without types the receiver may be
# anything with a ``split`` (os.path, a compiled pattern) or the list may be a starred unpacking
def _swap_labels(src: str) -> dict[str, str]:
    ms = generate(ArtifactSpec("t", "python", "m.py", src.encode(), {"role": "code"}), "fine")
    return {m.note: m.label for m in ms if m.operator == "swap_method"}


@pytest.mark.parametrize("src", [
    "import os\n\ndef head(p):\n    return os.path.split(p)[0]\n",
    "import re\nPAT = re.compile(',')\n\ndef parts(s):\n    return PAT.split(s)\n",
    "def lo(xs):\n    return min([*xs])\n",
    "def every(xs):\n    return any((*xs,))\n",
])
def test_swap_method_never_calls_a_non_str_or_starred_call_equivalent(src):
    assert EQUIVALENT not in _swap_labels(src).values(), _swap_labels(src)


def test_swap_method_keeps_the_provable_equivalences():
    assert set(_swap_labels("p = 'a,b'.split(',')\n").values()) == {EQUIVALENT}
    assert set(_swap_labels("n = min([x])\n").values()) == {EQUIVALENT}
