"""Sign-up form validation."""
from signup.form import validate_signup

__all__ = ["validate_signup"]
