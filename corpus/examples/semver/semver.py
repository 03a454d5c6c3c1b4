"""Semantic versions (https://semver.org, 2.0.0): parse, compare, bump and match.

Written for the corpus's rerun and equivalence-screen measurements (docs/mutation.md): the
shape of a small real semver module - a parsing regex, a frozen value class, precedence with
prerelease identifiers, bumps, and range matching through a table of comparison functions.
"""
from __future__ import annotations

import re
from functools import total_ordering

_REGEX = re.compile(
    r"""
    ^
    (?P<major>0|[1-9]\d*)\.
    (?P<minor>0|[1-9]\d*)\.
    (?P<patch>0|[1-9]\d*)
    (?:-(?P<prerelease>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?
    (?:\+(?P<build>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?
    $
    """,
    re.VERBOSE,
)

_LAST_NUMBER = re.compile(r"(?:[^\d]*(\d+)[^\d]*)+")
DEFAULT_PRERELEASE = "rc"
DEFAULT_BUILD = "build"


def _cmp(a, b):
    """-1, 0 or 1 as ``a`` is below, equal to or above ``b``."""
    return (a > b) - (a < b)


def _nat_cmp(a, b):
    """Compare two prerelease strings identifier by identifier (numeric ones as numbers, and
    below alphanumeric ones; a shorter list that is a prefix of the other is lower)."""

    def convert(text):
        return int(text) if re.match(r"^[0-9]+$", text) else text

    def split_key(key):
        return [convert(c) for c in key.split(".")]

    def cmp_prerelease_tag(a, b):
        if isinstance(a, int) and isinstance(b, int):
            return _cmp(a, b)
        elif isinstance(a, int):
            return -1
        elif isinstance(b, int):
            return 1
        else:
            return _cmp(a, b)

    a, b = a or "", b or ""
    a_parts, b_parts = split_key(a), split_key(b)
    for sub_a, sub_b in zip(a_parts, b_parts):
        cmp_result = cmp_prerelease_tag(sub_a, sub_b)
        if cmp_result != 0:
            return cmp_result
    return _cmp(len(a), len(b))


def _increment_string(string):
    """Add one to the last number in ``string`` (``rc.1`` -> ``rc.2``, ``build9`` -> ``build10``)."""
    match = _LAST_NUMBER.search(string)
    if match:
        next_ = str(int(match.group(1)) + 1)
        start, end = match.span(1)
        string = string[: max(end - len(next_), start)] + next_ + string[end:]
    return string


@total_ordering
class Version:
    """A version: major.minor.patch[-prerelease][+build]; immutable."""

    __slots__ = ("_major", "_minor", "_patch", "_prerelease", "_build")

    def __init__(self, major=0, minor=0, patch=0, prerelease=None, build=None):
        parts = {"major": major, "minor": minor, "patch": patch}
        for name, value in parts.items():
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} must be an int, not {type(value).__name__}")
            if value < 0:
                raise ValueError(f"{name} must not be negative: {value}")
        self._major = major
        self._minor = minor
        self._patch = patch
        self._prerelease = None if prerelease is None else str(prerelease)
        self._build = None if build is None else str(build)

    @property
    def major(self):
        return self._major

    @property
    def minor(self):
        return self._minor

    @property
    def patch(self):
        return self._patch

    @property
    def prerelease(self):
        return self._prerelease

    @property
    def build(self):
        return self._build

    @classmethod
    def parse(cls, text):
        """The version ``text`` spells; ValueError when it is not a semantic version."""
        if isinstance(text, bytes):
            text = text.decode("ascii")
        if not isinstance(text, str):
            raise TypeError(f"not a string: {text!r}")
        match = _REGEX.match(text.strip())
        if match is None:
            raise ValueError(f"{text} is not a valid semantic version")
        parts = match.groupdict()
        return cls(int(parts["major"]), int(parts["minor"]), int(parts["patch"]),
                   parts["prerelease"], parts["build"])

    @staticmethod
    def is_valid(text):
        try:
            Version.parse(text)
        except (ValueError, TypeError):
            return False
        return True

    def to_tuple(self):
        return (self._major, self._minor, self._patch, self._prerelease, self._build)

    def to_dict(self):
        return dict(major=self._major, minor=self._minor, patch=self._patch,
                    prerelease=self._prerelease, build=self._build)

    def __iter__(self):
        yield from self.to_tuple()

    def __str__(self):
        text = f"{self._major}.{self._minor}.{self._patch}"
        if self._prerelease:
            text += f"-{self._prerelease}"
        if self._build:
            text += f"+{self._build}"
        return text

    def __repr__(self):
        return f"{type(self).__name__}({str(self)!r})"

    def __hash__(self):
        return hash(self.to_tuple()[:4])

    def compare(self, other):
        """-1, 0 or 1: precedence (the build is ignored; a prerelease is below its release)."""
        other = _coerce(other)
        v1, v2 = self.to_tuple()[:3], other.to_tuple()[:3]
        x = _cmp(v1, v2)
        if x:
            return x
        rc1, rc2 = self._prerelease, other.prerelease
        if not rc1 and not rc2:
            return 0
        if not rc1:
            return 1
        if not rc2:
            return -1
        return _nat_cmp(rc1, rc2)

    def __eq__(self, other):
        if not isinstance(other, (Version, str, dict, tuple, list)):
            return NotImplemented
        return self.compare(other) == 0

    def __lt__(self, other):
        if not isinstance(other, (Version, str, dict, tuple, list)):
            return NotImplemented
        return self.compare(other) < 0

    def bump_major(self):
        return type(self)(self._major + 1, 0, 0)

    def bump_minor(self):
        return type(self)(self._major, self._minor + 1, 0)

    def bump_patch(self):
        return type(self)(self._major, self._minor, self._patch + 1)

    def bump_prerelease(self, token=DEFAULT_PRERELEASE):
        prerelease = _increment_string(self._prerelease or (token or DEFAULT_PRERELEASE) + ".0")
        return type(self)(self._major, self._minor, self._patch, prerelease)

    def bump_build(self, token=DEFAULT_BUILD):
        build = _increment_string(self._build or (token or DEFAULT_BUILD) + ".0")
        return type(self)(self._major, self._minor, self._patch, self._prerelease, build)

    def next_version(self, part, prerelease_token=DEFAULT_PRERELEASE):
        """The next version that increments ``part`` (a prerelease counts as below its release:
        1.2.3-rc.1 -> patch -> 1.2.3)."""
        if part not in ("major", "minor", "patch", "prerelease"):
            raise ValueError(f"cannot bump {part!r}")
        if part == "prerelease":
            return self.bump_prerelease(prerelease_token)
        version = self
        if version.prerelease:
            version = version.replace(prerelease=None, build=None)
            if part == "patch" or (part == "minor" and version.patch == 0) or \
                    (part == "major" and version.minor == version.patch == 0):
                return version
        return getattr(version, "bump_" + part)()

    def finalize_version(self):
        return type(self)(self._major, self._minor, self._patch)

    def replace(self, **parts):
        values = self.to_dict()
        unknown = set(parts) - set(values)
        if unknown:
            raise TypeError(f"unknown parts: {', '.join(sorted(unknown))}")
        values.update(parts)
        return type(self)(**values)

    def match(self, expression):
        """Does this version satisfy ``expression`` (``>=1.2.0``, ``!=2.0.0``, ``1.2.3``)?"""
        prefix = expression[:2]
        if prefix in (">=", "<=", "==", "!="):
            op, rest = prefix, expression[2:]
        elif prefix and prefix[0] in (">", "<"):
            op, rest = prefix[0], expression[1:]
        elif prefix and prefix[0].isdigit():
            op, rest = "==", expression
        else:
            raise ValueError(f"{expression!r}: an operator (<, <=, >, >=, ==, !=) and a version expected")
        return _MATCH[op](self.compare(rest.strip()))


_MATCH = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
    "==": lambda c: c == 0,
    "!=": lambda c: c != 0,
}


def _coerce(value):
    """A Version from a Version, a string, a dict of parts or a tuple/list of parts."""
    if isinstance(value, Version):
        return value
    if isinstance(value, str):
        return Version.parse(value)
    if isinstance(value, dict):
        return Version(**value)
    if isinstance(value, (tuple, list)):
        return Version(*value)
    raise TypeError(f"cannot compare a Version with {type(value).__name__}")


def compare(left, right):
    return Version.parse(left).compare(right)


def max_ver(left, right):
    return left if compare(left, right) >= 0 else right


def min_ver(left, right):
    return left if compare(left, right) <= 0 else right


def sort_versions(texts, reverse=False):
    """``texts`` sorted by precedence (stable: equal precedences keep their order)."""
    return sorted(texts, key=Version.parse, reverse=reverse)


def satisfies(text, constraint):
    """Does ``text`` satisfy every comma-separated clause of ``constraint``?"""
    version = Version.parse(text)
    clauses = [c.strip() for c in constraint.split(",") if c.strip()]
    if not clauses:
        raise ValueError("empty constraint")
    return all(version.match(c) for c in clauses)
