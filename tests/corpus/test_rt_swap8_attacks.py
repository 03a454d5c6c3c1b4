"""Red team rt8 (rt-swap8) against e8bcab7 (the swap's soundness rules: ``_module_untouched``,
``_never_run``, the module watch, ``_nothing_else_made_from``, per-child ``req["home"]``, SWAP_BLOCKERS).

Each test judges fine mutants with PytestSession (the fast path) and cold (gates.judge on the
materialized mutant, plain pytest) and asserts equal verdicts for the mutant under attack. Each failed on
e8bcab7 with cold's verdict checked (REJECT) and the fast verdict ACCEPT by the executor named.
"""
from __future__ import annotations

from corpus.fast_pytest import PytestSession
from corpus.gates import judge
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize
from support.swap_cases import one_module_gate


def _judged_in_one_session(tmp_path, module: bytes, tests: str, notes: list[str]):
    """The fine mutants noted ``notes`` judged one after another by one PytestSession (one worker: one
    swap server, as a real run's later mutants), then the last one cold: (fast judgements, cold)."""
    g, art = one_module_gate(tmp_path, "m", module, tests)
    every = list(generate(ArtifactSpec("p", "python", "m.py", module, {"role": "code"}), "fine"))
    mutants = [next(m for m in every if m.note == n) for n in notes]
    with PytestSession(g, art, "m.py", workers=1) as s:
        assert s.swapping is True
        fast = [s.judge(m) for m in mutants]
    cold = judge(g, materialize(art, mutants[-1], tmp_path / "cold"), "m.py")
    return fast, cold


# A. a cache path under ``~`` bound at import: the swap server imported the module with its own HOME
#    (home-swap), and every swap child's ``req["home"]`` (os.environ) does not reach the path the module
#    already built from it. The first mutant's child (a mutant of another function) writes the conforming
#    function's result there; the next mutant's child reads it instead of running its mutated code.
HOME_BOUND_MODULE = b'''import json
import os

CACHE = os.path.join(os.path.expanduser("~"), "m-cache.json")


def compute(x):
    return x * 2


def scale():
    return 10


def cached(x):
    if os.path.exists(CACHE):
        with open(CACHE) as f:
            known = json.load(f)
        if str(x) in known:
            return known[str(x)]
    value = compute(x)
    with open(CACHE, "w") as f:
        json.dump({str(x): value}, f)
    return value
'''

HOME_BOUND_TESTS = '''import m


def test_cached():
    assert m.cached(2) == 4
    assert m.scale() == 10
'''


def test_rt_swap8_cache_path_bound_to_the_servers_home_at_import(tmp_path):
    """``CACHE = os.path.join(os.path.expanduser("~"), ...)`` at import: bound in the swap server to its
    HOME (home-swap), shared by all its children (each child's own HOME is set in ``os.environ`` only).
    Mutant 1 (``scale``'s ``10 -> 11``, killed) runs ``cached(2)`` with the conforming ``compute`` and leaves
    4 in the shared file; mutant 2 (``compute``'s ``2 -> 3``) then reads 4 in its swap child: fast ACCEPT
    (swap), cold (a fresh HOME, the cache empty: 6) REJECT."""
    fast, cold = _judged_in_one_session(tmp_path, HOME_BOUND_MODULE, HOME_BOUND_TESTS,
                                        ["L12: 10 -> 11", "L8: 2 -> 3"])
    assert fast[0].judgement.verdict.value == "reject", fast[0]
    assert cold.verdict.value == "reject", cold
    assert fast[-1].judgement.verdict == cold.verdict, (fast[-1].executor, fast[-1].judgement)
