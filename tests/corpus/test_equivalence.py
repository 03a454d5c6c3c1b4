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


# ---------------------------------------------------------------- residues of ints (issue 26)
import random  # noqa: E402
from decimal import Decimal  # noqa: E402

from corpus.equivalence import residue_equivalent  # noqa: E402

_ACC = "def f(xs):\n    t = 0\n    for i, x in enumerate(xs):\n        t += (10 - i) * int(x)\n    return {}\n"
# (original, mutant): the screen removes these; each is checked equal on many inputs below
PROVED = [(_ACC.format("t % 11 == 0"), _ACC.format("t % 11 <= 0")),
          (_ACC.format("t % 11 != 0"), _ACC.format("t % 11 > 0")),
          (_ACC.format("0 == t % 7"), _ACC.format("0 >= t % 7")),
          ("def f(xs):\n    t = sum(int(x) * 3 for x in xs)\n    return t % 10 == 0\n",
           "def f(xs):\n    t = sum(int(x) * 3 for x in xs)\n    return t % 10 <= 0\n"),
          ("def f(xs):\n    n = len(xs) - 9\n    return n % 4 == 0\n", "def f(xs):\n    n = len(xs) - 9\n    return n % 4 <= 0\n")]
# (original, mutant, a killing input): never removed
KILLABLE = [("def f(x):\n    return x % 5 == 0\n", "def f(x):\n    return x % 5 <= 0\n", Decimal(-7)),
            ("def f(xs):\n    t = 0.0\n    for x in xs:\n        t += x\n    return t % 5 != 0\n",
             "def f(xs):\n    t = 0.0\n    for x in xs:\n        t += x\n    return t % 5 > 0\n", [float("nan")]),
            ("from decimal import Decimal as int\n" + _ACC.format("t % 11 == 0"),
             "from decimal import Decimal as int\n" + _ACC.format("t % 11 <= 0"), ["-7"]),
            (_ACC.format("0 == t % 7"), _ACC.format("0 <= t % 7"), ["1"]),
            (_ACC.format("t % -5 == 0"), _ACC.format("t % -5 <= 0"), ["0", "1"]),
            ("def f(xs):\n    t = xs\n    return t % 5 == 0\n", "def f(xs):\n    t = xs\n    return t % 5 <= 0\n",
             Decimal(-3)),
            ("def f(xs):\n    t = 0\n    t = xs\n    return t % 5 == 0\n",
             "def f(xs):\n    t = 0\n    t = xs\n    return t % 5 <= 0\n", Decimal(-3))]


def _f(src: str):
    ns: dict = {}
    exec(compile(src, "<t>", "exec"), ns)    # test code: runs the two versions to show (in)equivalence
    return ns["f"]


@pytest.mark.parametrize("orig,mut", PROVED)
def test_residue_screen_removes_only_equivalent(orig, mut):
    assert residue_equivalent(orig, orig, mut)
    f, g = _f(orig), _f(mut)
    rng = random.Random(26)
    for _ in range(300):
        xs = [str(rng.randint(-40, 40)) for _ in range(rng.randint(0, 12))]
        assert f(xs) == g(xs), xs


@pytest.mark.parametrize("orig,mut,kill", KILLABLE)
def test_residue_screen_never_removes_a_killable_mutant(orig, mut, kill):
    assert _f(orig)(kill) != _f(mut)(kill)          # killable: some input tells them apart
    assert not residue_equivalent(orig, orig, mut)


def test_residue_screen_on_the_bundled_isbn_module():
    from pathlib import Path
    src = (Path(__file__).resolve().parents[2] / "corpus" / "examples" / "isbn" / "isbn.py").read_bytes()
    ms = generate(ArtifactSpec("isbn", "python", "isbn.py", src, {"role": "code"}), "fine")
    removed = [m for m in ms if "never negative" in m.note]
    assert [m.note.split(" [")[0] for m in removed] == ["L22: total % 11 == 0 -> total % 11 <= 0"]
    assert all(m.label == EQUIVALENT for m in removed)


# --------------------------------------------------- negated int accumulators (issue 26, +=/-=)
from corpus.equivalence import accumulator_equivalent  # noqa: E402

_SUM = "def f(xs):\n    t = 0\n    for i, x in enumerate(xs):\n        t {op} (10 - i) * int(x)\n    return {read}\n"


def _neg(src: str) -> str:
    return src.replace("t += (10", "t -= (10", 1)


class _Odd:
    """0 + o and 0 - o disagree modulo 11: a value the screen cannot prove an int kills it."""
    def __radd__(self, other):
        return other + 1

    def __rsub__(self, other):
        return other + 11


# (original, mutant): removed; each is checked equal on many inputs below
ACC_PROVED = [(_SUM.format(op="+=", read="t % 11 == 0"), _neg(_SUM.format(op="+=", read="t % 11 == 0"))),
              (_SUM.format(op="+=", read="t % 10 != 0"), _neg(_SUM.format(op="+=", read="t % 10 != 0"))),
              (_SUM.format(op="+=", read="0 == t % 7"), _neg(_SUM.format(op="+=", read="0 == t % 7"))),
              (_SUM.format(op="-=", read="t % 11 == 0").replace("t -= (10", "t -= (10"),
               _SUM.format(op="+=", read="t % 11 == 0")),
              ("def f(xs):\n    t = 0\n    ok = []\n    for x in xs:\n        t += len(x)\n"
               "        ok.append(t % 3 == 0)\n        if t % 5 == 0:\n            t = 0\n    return ok\n",
               "def f(xs):\n    t = 0\n    ok = []\n    for x in xs:\n        t -= len(x)\n"
               "        ok.append(t % 3 == 0)\n        if t % 5 == 0:\n            t = 0\n    return ok\n")]
# (original, mutant, a killing input): near misses, kept
ACC_KILLABLE = [
    (_SUM.format(op="+=", read="t % 11 == 0").replace("t = 0", "t = 1"),          # starts at 1
     _neg(_SUM.format(op="+=", read="t % 11 == 0").replace("t = 0", "t = 1")), ["1"]),
    (_SUM.format(op="+=", read="t % 11 == 1"), _neg(_SUM.format(op="+=", read="t % 11 == 1")), ["1"]),  # not 0
    (_SUM.format(op="+=", read="t % 11 < 5"), _neg(_SUM.format(op="+=", read="t % 11 < 5")), ["1"]),  # an order
    (_SUM.format(op="+=", read="t"), _neg(_SUM.format(op="+=", read="t")), ["1"]),          # t itself read
    (_SUM.format(op="+=", read="t % 11 == 0").replace("    return", "        t += 1\n    return"),   # two
     _neg(_SUM.format(op="+=", read="t % 11 == 0").replace("    return", "        t += 1\n    return")), ["1"]),
    ("def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t % 11 == 0\n",            # x unproved
     "def f(xs):\n    t = 0\n    for x in xs:\n        t -= x\n    return t % 11 == 0\n", [_Odd()]),
    ("def f(xs, t=1):\n    for x in xs:\n        t += len(x)\n    return t % 11 == 0\n",           # a parameter
     "def f(xs, t=1):\n    for x in xs:\n        t -= len(x)\n    return t % 11 == 0\n", ["a"] * 10),
    ("def f(xs):\n    t = 0\n    for x in xs:\n        t += len(x)\n    return t % 11 == 0, locals()['t']\n",
     "def f(xs):\n    t = 0\n    for x in xs:\n        t -= len(x)\n    return t % 11 == 0, locals()['t']\n", ["a"]),
    ("def f(xs):\n    t = 0\n    for x in xs:\n        t += len(x)\n    g = lambda: t\n    return t % 11 == 0, g()\n",
     "def f(xs):\n    t = 0\n    for x in xs:\n        t -= len(x)\n    g = lambda: t\n    return t % 11 == 0, g()\n", ["a"]),
]


@pytest.mark.parametrize("orig,mut", ACC_PROVED)
def test_accumulator_screen_removes_only_equivalent(orig, mut):
    assert accumulator_equivalent(orig, orig, mut)
    f, g = _f(orig), _f(mut)
    rng = random.Random(2611)
    for _ in range(300):
        xs = [str(rng.randint(0, 40)) for _ in range(rng.randint(0, 12))]
        assert f(xs) == g(xs), xs


@pytest.mark.parametrize("orig,mut,kill", ACC_KILLABLE)
def test_accumulator_screen_never_removes_a_killable_mutant(orig, mut, kill):
    assert _f(orig)(kill) != _f(mut)(kill)          # killable: some input tells them apart
    assert not accumulator_equivalent(orig, orig, mut)


def test_accumulator_screen_on_the_bundled_isbn_module():
    """ISBN-10's weighted sum: 'total += (10 - i) * value' -> '-=' before 'total % 11 == 0' is
    removed (issue 26's fourth equivalent survivor); the module's other += / -= changes are not."""
    from pathlib import Path
    src = (Path(__file__).resolve().parents[2] / "corpus" / "examples" / "isbn" / "isbn.py").read_bytes()
    ms = generate(ArtifactSpec("isbn", "python", "isbn.py", src, {"role": "code"}), "fine")
    removed = [m for m in ms if "accumulator" in m.note]
    assert [m.note.split(" [")[0] for m in removed] == ["L21: total += (10 - i) * value -> total -= (10 - i) * value"]
    assert all(m.label == EQUIVALENT for m in removed)
    kept = [m for m in ms if m.operator == "augmented_assignment" and m not in removed]
    assert kept and all(m.label != EQUIVALENT for m in kept)


def test_a_renamed_keyword_is_not_identical_bytecode():
    # Python 3.11's dis gives KW_NAMES a bare const index: two calls whose keyword names differ
    # must still compare different (issue 35: dict(a=1) -> dict(aXX=1) was screened as equivalent)
    from corpus.equivalence import identical_bytecode
    assert not identical_bytecode("d = dict(a=1)\n", "d = dict(aXX=1)\n")
    assert not identical_bytecode("f(x, key=1)\n", "f(x, other=1)\n")
    assert identical_bytecode("f(x, key=1)\n", "f(x, key=1)  # same\n")
