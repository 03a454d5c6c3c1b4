"""One mutant of a one-module project judged two ways, for the red teams' swap cases
(tests/corpus/test_rt_lines_attacks.py, test_rt_lines2_attacks.py, test_rt_swap3_attacks.py): by the fast
path (``PytestSession``: a swap when it can) and cold (``gates.judge`` on the materialized mutant, plain
pytest). A judged verdict is never more lenient than plain pytest's (issue 33's rule, issue 35's speed)."""
from __future__ import annotations

import time
from pathlib import Path

from corpus.fast_pytest import FastJudgement, PytestSession
from corpus.gates import Gate, Judgement, judge, load_gate
from corpus.model import ArtifactSpec
from corpus.operators import generate
from corpus.workdir import materialize

# the red teams' commonest artifact: a function and a cache of its results, which code run with the
# conforming function before the swap fills (b''-joined into each case's module text)
CACHED = b"""def compute(x):
    return x * 2


_CACHE = {}


def cached(x):
    if x not in _CACHE:
        _CACHE[x] = compute(x)
    return _CACHE[x]
"""
CACHED_TESTS = """import m


def test_cached():
    assert m.compute(0) == 0
    assert m.cached(3) == 6
"""


def one_module_gate(tmp_path: Path, stem: str, module: bytes, tests: str) -> tuple[Gate, Path]:
    """``module`` as ``art/<stem>.py`` and ``tests`` as ``gate/tests/test_<stem>.py`` under a pytest gate:
    (the gate, the artifact directory)."""
    art, gdir = tmp_path / "art", tmp_path / "gate"
    art.mkdir()
    (gdir / "tests").mkdir(parents=True)
    (art / f"{stem}.py").write_bytes(module)
    (gdir / "tests" / f"test_{stem}.py").write_text(tests)
    (gdir / "gate.toml").write_text('[gate]\nname = "p"\nkind = "pytest"\ntests = "tests"\ntimeout_s = 60\n')
    return load_gate(gdir / "gate.toml"), art


def judged_both_ways(tmp_path: Path, module: bytes, tests: str, note: str, swapping: bool = True,
                     wait_s: float = 0.0) -> tuple[FastJudgement, Judgement]:
    """``module`` as ``art/m.py``, ``tests`` as the gate's ``tests/test_m.py``; the fine mutant noted ``note``
    judged fast (the session must swap or not, as ``swapping`` says; ``wait_s``: the server idles first, as
    for a later mutant of a real run) and cold."""
    g, art = one_module_gate(tmp_path, "m", module, tests)
    mutant = next(m for m in generate(ArtifactSpec("p", "python", "m.py", module, {"role": "code"}), "fine")
                  if m.note == note)
    with PytestSession(g, art, "m.py", workers=1) as s:
        assert s.swapping is swapping
        time.sleep(wait_s)
        fast = s.judge(mutant)
    cold = judge(g, materialize(art, mutant, tmp_path / "cold"), "m.py")
    return fast, cold


def assert_killed_as_cold(tmp_path: Path, module: bytes, tests: str, note: str, swapping: bool = True,
                          wait_s: float = 0.0) -> None:
    """Plain pytest kills the mutant, and the fast path's verdict is the same."""
    fast, cold = judged_both_ways(tmp_path, module, tests, note, swapping, wait_s)
    assert cold.verdict.value == "reject", cold
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)
