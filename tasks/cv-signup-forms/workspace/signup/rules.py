"""Field-level helpers shared by the form validator."""
import re
from functools import lru_cache
from pathlib import Path

USERNAME = re.compile(r"[a-z][a-z0-9_]*")
RESERVED_FILE = Path(__file__).resolve().parent.parent / "data" / "reserved_usernames.txt"


@lru_cache(maxsize=None)
def reserved_usernames():
    """The reserved names from data/reserved_usernames.txt."""
    return frozenset(line.strip() for line in RESERVED_FILE.read_text().splitlines() if line.strip())


def username_rule(value):
    """The rule a user name breaks ("type", "length", "value", "reserved"), or None."""
    if not isinstance(value, str):
        return "type"
    if not 3 <= len(value) <= 20:
        return "length"
    if not USERNAME.fullmatch(value):
        return "value"
    if value in reserved_usernames():
        return "reserved"
    return None


def email_rule(value):
    """The rule an e-mail address breaks ("type", "value"), or None."""
    if not isinstance(value, str):
        return "type"
    local, sep, domain = value.partition("@")
    if not sep or not local or "@" in domain or " " in value:
        return "value"
    if "." not in domain or domain.startswith(".") or domain.endswith("."):
        return "value"
    return None
