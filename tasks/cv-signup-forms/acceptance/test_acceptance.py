"""Visible acceptance test for cv-signup-forms."""
from signup import validate_signup

FREE = {"username": "ada_lovelace_1815", "email": "ada@example.org", "age": 36, "plan": "free"}


def test_accepts_a_free_signup():
    assert validate_signup(FREE) == {}
    assert validate_signup({**FREE, "newsletter": True, "referrer": "grace"}) == {}


def test_team_plan_with_seats():
    assert validate_signup({**FREE, "plan": "team", "seats": 12}) == {}
    assert validate_signup({**FREE, "plan": "team", "seats": 1}) == {"seats": "range"}


def test_age_and_plan():
    assert validate_signup({**FREE, "age": 12}) == {"age": "range"}
    assert validate_signup({**FREE, "age": "36"}) == {"age": "type"}
    assert validate_signup({**FREE, "plan": "enterprise"}) == {"plan": "value"}


def test_missing_and_unexpected():
    form = dict(FREE)
    del form["email"]
    form["coupon"] = "X1"
    assert validate_signup(form) == {"email": "missing", "coupon": "unexpected"}


def test_reserved_name():
    assert validate_signup({**FREE, "username": "admin"}) == {"username": "reserved"}
