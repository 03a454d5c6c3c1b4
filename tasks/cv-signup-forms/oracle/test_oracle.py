"""Hidden oracle for cv-signup-forms: cross-field rules, optional typed fields, edge cases."""
import pytest

from signup import validate_signup

F = {"username": "abc", "email": "a@b.co", "age": 13, "plan": "free"}


def test_boundaries_accepted():
    assert validate_signup({**F, "username": "a" * 20, "age": 120}) == {}
    assert validate_signup({**F, "seats": 1}) == {}
    assert validate_signup({**F, "plan": "team", "seats": 2}) == {}
    assert validate_signup({**F, "plan": "team", "seats": 500, "newsletter": False}) == {}


def test_team_requires_seats():
    assert validate_signup({**F, "plan": "team"}) == {"seats": "required_if"}


@pytest.mark.parametrize("seats,rule", [(501, "range"), (0, "range"), (True, "type"), ("5", "type"), (5.0, "type")])
def test_team_seat_rules(seats, rule):
    assert validate_signup({**F, "plan": "team", "seats": seats}) == {"seats": rule}


@pytest.mark.parametrize("seats", [2, 0, 10])
def test_free_plan_forbids_other_seat_counts(seats):
    assert validate_signup({**F, "seats": seats}) == {"seats": "forbidden_if"}


def test_seats_with_invalid_plan_only_reports_the_plan():
    assert validate_signup({**F, "plan": "gold", "seats": 3}) == {"plan": "value"}


@pytest.mark.parametrize("value", [0, 1, "yes", None, 1.0])
def test_newsletter_must_be_a_real_bool(value):
    assert validate_signup({**F, "newsletter": value}) == {"newsletter": "type"}


@pytest.mark.parametrize("ref,rule", [("abc", "self_referral"), ("root", "reserved"), ("Bob", "value"),
                                      ("xy", "length"), (7, "type")])
def test_referrer_rules(ref, rule):
    assert validate_signup({**F, "referrer": ref}) == {"referrer": rule}


@pytest.mark.parametrize("age,rule", [(True, "type"), (13.0, "type"), (121, "range"), (None, "type")])
def test_age_rules(age, rule):
    assert validate_signup({**F, "age": age}) == {"age": rule}


@pytest.mark.parametrize("name,rule", [("ab", "length"), ("a" * 21, "length"), ("1abc", "value"),
                                       ("ab-c", "value"), ("support", "reserved"), (["abc"], "type")])
def test_username_rules(name, rule):
    assert validate_signup({**F, "username": name}) == {"username": rule}


@pytest.mark.parametrize("email", ["ab.co", "a@@b.co", "@b.co", "a@bco", "a@.co", "a@b.", "a b@c.de"])
def test_email_rules(email):
    assert validate_signup({**F, "email": email}) == {"email": "value"}


def test_everything_missing_and_non_dict():
    assert validate_signup({}) == {"username": "missing", "email": "missing", "age": "missing", "plan": "missing"}
    assert validate_signup(["abc"]) == {"$": "type"}
