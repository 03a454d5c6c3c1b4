"""Unit tests for slugkit.slugify (2.0 rules, see CHANGELOG.md)."""
import pytest

from slugkit import slugify


def test_lower_case_and_spaces():
    assert slugify("Hello World") == "hello-world"


def test_strips_leading_and_trailing_separators():
    assert slugify("  --Hello--  ") == "hello"


def test_accents_are_transliterated():
    assert slugify("Café au lait") == "cafe-au-lait"


def test_special_letters_are_spelled_out():
    assert slugify("Straße") == "strasse"
    assert slugify("Ærø") == "aero"
    assert slugify("Łódź") == "lodz"


def test_other_non_ascii_dropped():
    assert slugify("tea 🍵 time") == "tea-time"


def test_punctuation_runs_become_one_separator():
    assert slugify("a -- b") == "a-b"
    assert slugify("a,b") == "a-b"


def test_custom_separator():
    assert slugify("Hello big World", sep="_") == "hello_big_world"
    assert slugify("a -- b", sep="..") == "a..b"


def test_max_len_cuts_at_word_boundary():
    assert slugify("hello big world", max_len=9) == "hello-big"
    assert slugify("hello world", max_len=8) == "hello-wo"


def test_max_len_exact_fit_is_unchanged():
    assert slugify("hello world", max_len=11) == "hello-world"
    assert slugify("hello world", max_len=50) == "hello-world"


def test_max_len_cuts_a_long_first_word():
    assert slugify("supercalifragilistic word", max_len=5) == "super"


def test_empty():
    assert slugify("") == ""
    assert slugify("!!!") == ""


def test_invalid_arguments():
    with pytest.raises(ValueError):
        slugify("x", max_len=0)
    with pytest.raises(ValueError):
        slugify("x", sep="")
