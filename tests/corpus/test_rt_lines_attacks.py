"""Red team helper-135 against a1af5e9 (fine.lines_kept: a shortened unit padded with empty lines) and b0398ab
(forkserver._swap_target/_functions_of: a property's fget/fset/fdel and a cached_property's func swapped).

Each test judges a fine mutant with PytestSession and cold (gates.judge on the materialized mutant) and
asserts equal verdicts; each failed on b0398ab (the fast verdict ACCEPT where cold REJECTs) and passes since:
the swap child pairs each live def of the name with the conforming module's def at its line (equal code,
else no swap) and swaps only the one the mutant changed; a padded mutant must keep the module's line count.

- test_rt_lines_a_redefined_propertys_old_getter_still_bound: NEW with b0398ab (main forks it). The mutant
  changes a property getter that a later ``@property def`` of the same name replaced in the class dict but
  that is still bound (``plus_one = n``). _swap_target pairs the live property's one fget by line; with a
  single pair ``changed = pairs`` is taken without checking that its code is the one the mutant changed,
  so the child swaps the live getter's code for an identical copy and runs the original.
- test_rt_lines_a_redefined_functions_old_def_still_bound: the same hole for a plain function; PRE-EXISTING
  (fails on ddf7396 too).
- test_rt_lines_crlf_without_final_newline_moves_a_module_line: NEW with a1af5e9. In a CRLF file without a
  final newline the unit spans are cut inside a CRLF (pre-existing, libcst/span); lines_kept counts the cut
  halves as line ends and pads with a lone CR, so the padded mutant has one line MORE and the module-level
  statement after the function moves down a line. changed_function ignores a parent's line table and
  names f: swapped, the module-level code keeps its old line. On ddf7396 this mutant kept every line.
Tried and held (verdicts equal): a getter called at import by a class decorator and by __init_subclass__
(coverage puts the import in the selection: the whole suite, forked); the LF or lone-CR file without a final
newline (the def line moves too, so the swap child finds no code at the live line and exits 75: forked).
"""
from __future__ import annotations

from support.swap_cases import judged_both_ways

PROP = b'''class Box:
    def __init__(self, n):
        self._n = n

    @property
    def n(self):
        return self._n + 1

    plus_one = n

    @property
    def n(self):
        return self._n
'''
PROP_TESTS = '''from m import Box


def test_plus_one():
    assert Box(3).plus_one == 4


def test_n():
    assert Box(3).n == 3
'''


def test_rt_lines_a_redefined_propertys_old_getter_still_bound(tmp_path):
    fast, cold = judged_both_ways(tmp_path, PROP, PROP_TESTS, "L7: self._n + 1 -> self._n - 1")
    assert cold.verdict.value == "reject"
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


FUNC = b'''def f(x):
    return x + 1


g = f


def f(x):
    return x
'''
FUNC_TESTS = '''import m


def test_g():
    assert m.g(3) == 4


def test_f():
    assert m.f(3) == 3
'''


def test_rt_lines_a_redefined_functions_old_def_still_bound(tmp_path):
    fast, cold = judged_both_ways(tmp_path, FUNC, FUNC_TESTS, "L2: x + 1 -> x - 1")
    assert cold.verdict.value == "reject"
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement)


LINE_MOD = "import sys\n\n\ndef f(x):\n    return max(\n        x, 1)\nLINE = sys._getframe().f_lineno"
LINE_TESTS = '''import m


def test_f():
    m.f(5)
    assert m.LINE == 7
'''


def test_rt_lines_crlf_without_final_newline_moves_a_module_line(tmp_path):
    fast, cold = judged_both_ways(tmp_path, LINE_MOD.replace("\n", "\r\n").encode(), LINE_TESTS,
                       "L5: return max( x, 1) -> return")
    assert fast.judgement.verdict == cold.verdict, (fast.executor, fast.judgement, cold)

