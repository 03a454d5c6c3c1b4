"""validate_signup: the sign-up form contract."""
from signup.rules import email_rule, username_rule

REQUIRED = ("username", "email", "age", "plan")
OPTIONAL = ("seats", "referrer", "newsletter")
PLANS = ("free", "team")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _age_rule(value):
    if not _is_int(value):
        return "type"
    return None if 13 <= value <= 120 else "range"


def _plan_rule(value):
    if not isinstance(value, str):
        return "type"
    return None if value in PLANS else "value"


def validate_signup(form):
    """{field: rule} for every broken rule of the contract ({} when the form is accepted)."""
    if not isinstance(form, dict):
        return {"$": "type"}
    errors = {}
    checks = (("username", username_rule), ("email", email_rule), ("age", _age_rule), ("plan", _plan_rule))
    for name, check in checks:
        if name not in form:
            errors[name] = "missing"
        else:
            rule = check(form[name])
            if rule:
                errors[name] = rule

    plan = form.get("plan") if "plan" not in errors else None
    if "seats" in form:
        seats = form["seats"]
        if not _is_int(seats):
            errors["seats"] = "type"
        elif plan == "free" and seats != 1:
            errors["seats"] = "forbidden_if"
        elif plan == "team" and not 2 <= seats <= 500:
            errors["seats"] = "range"

    if "referrer" in form:
        rule = username_rule(form["referrer"])
        if rule:
            errors["referrer"] = rule
        elif form.get("username") == form["referrer"]:
            errors["referrer"] = "self_referral"

    if "newsletter" in form and not isinstance(form["newsletter"], bool):
        errors["newsletter"] = "type"

    for name in form:
        if name not in REQUIRED and name not in OPTIONAL:
            errors[name] = "unexpected"
    return errors
