"""validate_signup: the sign-up form contract."""
from signup.rules import email_rule, username_rule


def validate_signup(form):
    """{field: rule} for every broken rule of the contract ({} when the form is accepted)."""
    if not isinstance(form, dict):
        return {"$": "type"}
    errors = {}
    for name, check in (("username", username_rule), ("email", email_rule)):
        if name not in form:
            errors[name] = "missing"
        else:
            rule = check(form[name])
            if rule:
                errors[name] = rule
    # TODO: age, plan, seats, referrer, newsletter and unexpected fields
    return errors
