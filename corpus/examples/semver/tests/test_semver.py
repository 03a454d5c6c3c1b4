"""The semver module's own suite (a few gaps left on purpose, as a real suite has them)."""
import pytest

import semver
from semver import Version


@pytest.mark.parametrize("text,parts", [
    ("1.2.3", (1, 2, 3, None, None)),
    ("0.0.0", (0, 0, 0, None, None)),
    ("10.20.30", (10, 20, 30, None, None)),
    ("1.2.3-alpha", (1, 2, 3, "alpha", None)),
    ("1.2.3-alpha.1", (1, 2, 3, "alpha.1", None)),
    ("1.2.3+build.5", (1, 2, 3, None, "build.5")),
    ("1.2.3-rc.1+build.5", (1, 2, 3, "rc.1", "build.5")),
    ("  4.5.6  ", (4, 5, 6, None, None)),
])
def test_parse(text, parts):
    assert Version.parse(text).to_tuple() == parts


def test_parse_bytes():
    assert Version.parse(b"1.0.0") == Version(1, 0, 0)


@pytest.mark.parametrize("text", ["1.2", "1.2.3.4", "01.2.3", "1.2.3-", "a.b.c", "", "1.2.3+", "v1.2.3"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        Version.parse(text)


def test_parse_rejects_non_strings():
    with pytest.raises(TypeError):
        Version.parse(123)


@pytest.mark.parametrize("text,valid", [("1.2.3", True), ("1.2", False), ("x", False), (None, False)])
def test_is_valid(text, valid):
    assert Version.is_valid(text) is valid


def test_constructor_rejects_negative():
    with pytest.raises(ValueError):
        Version(-1, 0, 0)


def test_constructor_rejects_non_int():
    with pytest.raises(TypeError):
        Version("1", 0, 0)
    with pytest.raises(TypeError):
        Version(True, 0, 0)


def test_properties():
    v = Version(1, 2, 3, "rc.1", "b7")
    assert (v.major, v.minor, v.patch, v.prerelease, v.build) == (1, 2, 3, "rc.1", "b7")


def test_prerelease_is_kept_as_text():
    assert Version(1, 0, 0, 5).prerelease == "5"


@pytest.mark.parametrize("text", ["1.2.3", "1.2.3-rc.1", "1.2.3+b.1", "1.2.3-rc.1+b.1", "0.0.0"])
def test_str_round_trip(text):
    assert str(Version.parse(text)) == text


def test_repr():
    assert repr(Version(1, 2, 3)) == "Version('1.2.3')"


def test_to_dict():
    assert Version(1, 2, 3, "a").to_dict() == {"major": 1, "minor": 2, "patch": 3, "prerelease": "a", "build": None}


def test_iter():
    assert list(Version(1, 2, 3)) == [1, 2, 3, None, None]


def test_hash_ignores_build():
    assert hash(Version(1, 2, 3, None, "a")) == hash(Version(1, 2, 3, None, "b"))
    assert len({Version(1, 2, 3), Version(1, 2, 4)}) == 2


@pytest.mark.parametrize("left,right,expected", [
    ("1.0.0", "2.0.0", -1),
    ("2.0.0", "1.0.0", 1),
    ("1.0.0", "1.0.0", 0),
    ("1.1.0", "1.0.9", 1),
    ("1.0.1", "1.0.2", -1),
    ("1.0.0-alpha", "1.0.0", -1),
    ("1.0.0", "1.0.0-alpha", 1),
    ("1.0.0-alpha", "1.0.0-alpha.1", -1),
    ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
    ("1.0.0-alpha.beta", "1.0.0-beta", -1),
    ("1.0.0-beta", "1.0.0-beta.2", -1),
    ("1.0.0-beta.2", "1.0.0-beta.11", -1),
    ("1.0.0-beta.11", "1.0.0-rc.1", -1),
    ("1.0.0-rc.1", "1.0.0-rc.1", 0),
    ("1.0.0-rc.1+b1", "1.0.0-rc.1+b2", 0),
    ("1.0.0-2", "1.0.0-10", -1),
])
def test_compare(left, right, expected):
    assert semver.compare(left, right) == expected


def test_compare_with_other_types():
    v = Version(1, 2, 3)
    assert v.compare(Version(1, 2, 3)) == 0
    assert v.compare({"major": 1, "minor": 2, "patch": 4}) == -1
    assert v.compare((1, 2, 2)) == 1
    assert v.compare([1, 2, 3]) == 0


def test_compare_rejects_other_types():
    with pytest.raises(TypeError):
        Version(1, 2, 3).compare(1.5)


def test_ordering_operators():
    a, b = Version(1, 2, 3), Version(1, 3, 0)
    assert a < b and b > a and a <= a and b >= a and a != b
    assert a == "1.2.3"
    assert sorted([b, a]) == [a, b]


def test_eq_with_unsupported_type():
    assert (Version(1, 2, 3) == 1.5) is False
    with pytest.raises(TypeError):
        Version(1, 2, 3) < 1.5


def test_bump_major():
    assert str(Version.parse("1.2.3-rc.1+b").bump_major()) == "2.0.0"


def test_bump_minor():
    assert str(Version.parse("1.2.3").bump_minor()) == "1.3.0"


def test_bump_patch():
    assert str(Version.parse("1.2.3").bump_patch()) == "1.2.4"


@pytest.mark.parametrize("text,expected", [
    ("1.2.3", "1.2.3-rc.1"),
    ("1.2.3-rc.1", "1.2.3-rc.2"),
    ("1.2.3-alpha.9", "1.2.3-alpha.10"),
    ("1.2.3-rc", "1.2.3-rc"),
])
def test_bump_prerelease(text, expected):
    assert str(Version.parse(text).bump_prerelease()) == expected


def test_bump_prerelease_token():
    assert str(Version(1, 0, 0).bump_prerelease("dev")) == "1.0.0-dev.1"
    assert str(Version(1, 0, 0).bump_prerelease(None)) == "1.0.0-rc.1"


@pytest.mark.parametrize("text,expected", [
    ("1.2.3", "1.2.3+build.1"),
    ("1.2.3+build.1", "1.2.3+build.2"),
    ("1.2.3-rc.1+b9", "1.2.3-rc.1+b10"),
])
def test_bump_build(text, expected):
    assert str(Version.parse(text).bump_build()) == expected


@pytest.mark.parametrize("text,part,expected", [
    ("1.2.3", "major", "2.0.0"),
    ("1.2.3", "minor", "1.3.0"),
    ("1.2.3", "patch", "1.2.4"),
    ("1.2.3", "prerelease", "1.2.3-rc.1"),
    ("1.2.3-rc.1", "patch", "1.2.3"),
    ("1.2.0-rc.1", "minor", "1.2.0"),
    ("1.2.3-rc.1", "minor", "1.3.0"),
    ("2.0.0-rc.1", "major", "2.0.0"),
    ("2.1.0-rc.1", "major", "3.0.0"),
])
def test_next_version(text, part, expected):
    assert str(Version.parse(text).next_version(part)) == expected


def test_next_version_rejects_unknown_part():
    with pytest.raises(ValueError):
        Version(1, 0, 0).next_version("build")


def test_finalize_version():
    assert str(Version.parse("1.2.3-rc.1+b").finalize_version()) == "1.2.3"


def test_replace():
    assert str(Version(1, 2, 3).replace(minor=5, build="x")) == "1.5.3+x"


def test_replace_rejects_unknown_parts():
    with pytest.raises(TypeError):
        Version(1, 2, 3).replace(epoch=1)


@pytest.mark.parametrize("version,expression,expected", [
    ("2.0.0", ">=1.0.0", True),
    ("1.0.0", ">=1.0.0", True),
    ("0.9.0", ">=1.0.0", False),
    ("2.0.0", ">1.0.0", True),
    ("1.0.0", ">1.0.0", False),
    ("1.0.0", "<2.0.0", True),
    ("2.0.0", "<2.0.0", False),
    ("2.0.0", "<=2.0.0", True),
    ("2.0.1", "<=2.0.0", False),
    ("2.0.0", "==2.0.0", True),
    ("2.0.0", "!=2.0.0", False),
    ("2.0.1", "!=2.0.0", True),
    ("2.0.0", "2.0.0", True),
    ("2.0.0", "> 1.0.0", True),
])
def test_match(version, expression, expected):
    assert Version.parse(version).match(expression) is expected


@pytest.mark.parametrize("expression", ["~1.0.0", "", "=>1.0.0"])
def test_match_rejects(expression):
    with pytest.raises(ValueError):
        Version(1, 0, 0).match(expression)


def test_max_min():
    assert semver.max_ver("1.0.0", "2.0.0") == "2.0.0"
    assert semver.max_ver("3.0.0", "2.0.0") == "3.0.0"
    assert semver.min_ver("1.0.0", "2.0.0") == "1.0.0"
    assert semver.min_ver("3.0.0", "2.0.0") == "2.0.0"


def test_sort_versions():
    texts = ["1.0.0", "1.0.0-rc.1", "0.9.0", "1.0.0-alpha"]
    assert semver.sort_versions(texts) == ["0.9.0", "1.0.0-alpha", "1.0.0-rc.1", "1.0.0"]
    assert semver.sort_versions(texts, reverse=True)[0] == "1.0.0"


def test_satisfies():
    assert semver.satisfies("1.5.0", ">=1.0.0, <2.0.0")
    assert not semver.satisfies("2.5.0", ">=1.0.0, <2.0.0")


def test_satisfies_rejects_empty():
    with pytest.raises(ValueError):
        semver.satisfies("1.0.0", " , ")
