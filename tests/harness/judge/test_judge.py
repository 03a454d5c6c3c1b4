"""The judge's reading of observations: framing, what equals what, and what is tampering."""
import json

import pytest

from harness.judge.judge import Opaque, Undecidable, decode, judge
from harness.judge.probes import transform

PLAN = transform("from pkg import f\n\ndef test_f():\n    assert f() == 1\n").plan
NONCE = b"n0nce"


def _lines(*records, nonce=NONCE) -> bytes:
    return b"".join(nonce + json.dumps(r).encode() + b"\n" for r in records)


RUN = ({"k": "enter", "t": "test_f", "c": []}, {"k": "obs", "s": 1, "v": [["v", 1]]}, {"k": "leave"})


def test_records_framed_with_the_runs_nonce_are_judged():
    j = judge(PLAN, _lines(*RUN), nonce=NONCE)
    assert j.passed and not j.subverted


def test_a_record_without_the_nonce_is_tampering_and_never_parsed():
    forged = _lines({"k": "obs", "s": 1, "v": [["v", 1]]}, nonce=b"")
    j = judge(PLAN, _lines(*RUN[:1]) + forged + _lines(*RUN[2:]), nonce=NONCE)
    assert not j.passed and j.subverted and "no run nonce" in j.tamper[0]


def test_a_line_nested_past_the_recursion_limit_is_tampering_not_a_crash():
    j = judge(PLAN, _lines(*RUN) + NONCE + b"[" * 100000 + b"\n", nonce=NONCE)
    assert not j.passed and j.subverted


def test_opaque_objects_equal_nothing_not_even_an_equal_repr():
    """An opaque object is itself only (``a in [a]``); any other comparison with it, negated or not, is
    undecidable (plain pytest runs its own ``__eq__``): it raises, so the site fails."""
    a, b = (decode({"t": "o", "type": "pkg.P", "repr": "P(1)"}) for _ in range(2))
    assert isinstance(a, Opaque) and a in [a] and not (a != a)  # itself only
    for compare in (lambda: a == b, lambda: a != b, lambda: a != "x", lambda: "x" != a, lambda: a not in ["x"],
                    lambda: not a == "x", lambda: a not in {"x"}, lambda: [a] == ["x"]):
        with pytest.raises(Undecidable):
            compare()


def test_a_set_of_opaque_objects_still_decodes():
    s = decode({"t": "s", "v": [{"t": "o", "type": "pkg.P", "repr": "P(1)"}, 1]})
    assert len(s) == 2


def test_an_int_past_the_decimal_digit_limit_travels_as_hex():
    n = 7 ** 20000
    assert decode({"t": "I", "v": format(n, "x")}) == n


def test_a_protocol_fault_fails_the_test_it_happened_in_and_is_not_tampering():
    """harness.judge.subject_rpc ``Peer._serve``: a reply that could not cross (the probe runtime's
    ``fault`` record) fails the test even when every check it made held; outside a test it fails the run."""
    fault = {"k": "fault", "what": "its result could not be sent"}
    j = judge(PLAN, _lines(RUN[0], fault, *RUN[1:]), nonce=NONCE)
    assert not j.passed and not j.subverted and j.failures == 1 and "protocol fault" in j.results[0].reason
    j = judge(PLAN, _lines(*RUN, fault), nonce=NONCE)
    assert not j.passed and not j.subverted and any(r.name == "<module>" for r in j.results)
    j = judge(PLAN, _lines(RUN[0], {"k": "fault", "what": 3}, *RUN[1:]), nonce=NONCE)
    assert j.subverted  # a malformed record is never the runtime's


def test_a_tree_value_is_its_base_where_it_reads_storage_and_undecidable_where_the_tree_answers():
    """``tree_value``: the judge's copy of a tree object observed by its base value compares, hashes and
    measures as the base (its storage), and every name the tree's class answers (``answered_names``)
    raises Undecidable, so a builtin that plain pytest answers through the tree's code fails the check."""
    import fractions
    s = decode({"t": "tv", "v": "ok", "n": ["__format__", "__str__"], "type": "<tree> pkg.S"})
    assert isinstance(s, str) and s == "ok" and len(s) == 2 and s in {"ok"} and "o" in s
    for use in (lambda: "%s" % s, lambda: "{}".format(s), lambda: f"{s}"):
        with pytest.raises(Undecidable):
            use()
    n = decode({"t": "tv", "v": 3, "n": ["numerator"], "type": "<tree> pkg.N"})
    assert n == 3 and n + 1 == 4
    with pytest.raises(Undecidable):
        fractions.Fraction(n)
    b = decode({"t": "tv", "v": {"t": "b", "v": "b2s="}, "n": ["__bytes__"], "type": "<tree> pkg.B"})
    assert b == b"ok"
    with pytest.raises(Undecidable):
        bytes(b)
    assert decode({"t": "f", "v": "nan", "m": True}) is __import__("math").nan  # the sandbox's math.nan
    assert decode({"t": "f", "v": "nan"}) is not __import__("math").nan


def test_a_tree_value_whose_repr_is_the_trees_is_shown_by_its_base_repr():
    obs = {"k": "obs", "s": 1, "v": [["v", {"t": "tv", "v": 2, "n": ["__repr__"], "type": "<tree> pkg.N"}]]}
    j = judge(PLAN, _lines(RUN[0], obs, RUN[2]), nonce=NONCE)
    assert not j.passed and not j.subverted and "observed 2" in j.results[0].reason


def test_a_tree_value_too_large_to_observe_stays_opaque():
    v = decode({"t": "tv", "v": {"t": "big"}, "n": ["shout"], "type": "<tree> pkg.S"})
    assert isinstance(v, Opaque)


def test_an_assertion_is_evaluated_under_the_decimal_context_and_digit_limit_the_driver_had():
    """(harness.judge.judge ``_Under``) an observation's ``x``: the driver's decimal context and int/str digit
    limit when it observed the assertion (harness.judge.subject_rpc ``eval_state``); restored after."""
    import decimal
    import sys

    from harness.judge import judge as jm
    x = {"dc": [4, "ROUND_HALF_EVEN", -999999, 999999, 1, 0, ["DivisionByZero", "InvalidOperation", "Overflow"]],
         "im": 640}
    assert jm._eval_state_ok(x)
    assert not jm._eval_state_ok({"dc": [4, "ROUND_HALF_EVEN", 0, 0, 1, 0, ["NoSuchTrap"]]})
    assert not jm._eval_state_ok({"other": 1})
    before = (decimal.getcontext().prec, sys.get_int_max_str_digits())
    with jm._Under(x):
        assert decimal.Decimal(1) / 3 == decimal.Decimal("0.3333")
        with pytest.raises(ValueError):
            str(10 ** 1000)
    assert (decimal.getcontext().prec, sys.get_int_max_str_digits()) == before


def test_the_evaluation_imports_nothing():
    """probes ``JUDGE_STATE_RULE``: a call whose C code imports a module (``strptime`` imports ``_strptime``) reads the
    process's state and is observed in the driver, so the judge's evaluation imports nothing; its ``__import__`` is an
    ImportError (never a KeyError of the judge's builtins, red team atk13), the harness's ``_strptime`` handed out to
    no expression (red team atk14: its caches are the harness's, never the tree's)."""
    from harness.judge import judge
    env = {"__builtins__": judge._BUILTINS, "datetime": judge._MODULES["datetime"]}
    for name in ("_strptime", "time", "os", "subprocess"):
        with pytest.raises(ImportError):
            eval(f"__import__({name!r})", env)


def test_an_expectation_the_judge_computes_fails_closed_where_the_tree_changed_a_module_it_reads():
    """probes ``JUDGE_STATE_RULE``: a binding the tree set in a module the judge computes with (``string.digits``,
    carried to the driver: subject_rpc ``JUDGE_STATE_MODULES``) arrives as the observation's "jm"; an assertion whose
    skeleton the judge computes with anything but the observed values fails closed, one of observed values and
    literals alone is judged as before."""
    from harness.judge import judge as jm
    from harness.judge.probes import Site
    computed = Site(1, "assert", "_v[0] == string.digits", 1, 3, "f() == string.digits")
    plain = Site(2, "assert", "_v[0] == '0123456789'", 1, 4, "f() == '0123456789'")
    env = {"__builtins__": jm._BUILTINS, "string": jm._MODULES["string"]}
    moved = {"v": [["v", "0123456789"]], "x": {"jm": ["string.digits"]}}
    assert jm._eval_state_ok(moved["x"]) and not jm._eval_state_ok({"jm": []}) and not jm._eval_state_ok({"jm": [1]})
    assert "failed closed" in jm._check(computed, moved, env)
    assert jm._check(plain, moved, env) is None
    assert jm._check(computed, {"v": [["v", "0123456789"]]}, env) is None


def test_a_fault_found_at_the_canarys_message_fails_the_last_test_and_is_not_tampering():
    """``CANARY_FAULT_RULE``: a thread of the tree that ran during a long freeze on a loaded machine is found at the
    canary's message (CI, red team r32atk5's daemon thread); the last test fails, the run is not subverted. The
    canary's own failed check is still tampering."""
    plan = transform("from pkg import f\n\ndef test_f():\n    assert f() == 1\n\n\n"
                     "def test_zz_canary():\n    assert f() == 6\n").plan
    canary = [{"k": "enter", "t": "test_zz_canary", "c": []}, {"k": "obs", "s": 2, "v": [["v", 6]]}, {"k": "leave"}]
    fault = {"k": "fault", "what": "the subject's linked containers changed after its last message"}
    j = judge(plan, _lines(*RUN, *canary), canary="test_zz_canary", nonce=NONCE)
    assert j.passed and not j.subverted  # the premise: the run passes with nothing found
    j = judge(plan, _lines(*RUN, canary[0], fault, *canary[1:]), canary="test_zz_canary", nonce=NONCE)
    assert not j.passed and not j.subverted and j.failures == 1 and "protocol fault" in j.results[0].reason
    altered = {"k": "obs", "s": 2, "v": [["v", 7]]}
    j = judge(plan, _lines(*RUN, canary[0], altered, canary[2]), canary="test_zz_canary", nonce=NONCE)
    assert not j.passed and j.subverted
