"""Unit tests for slugkit.slugify (written for 1.x)."""
import pytest

from slugkit import slugify


def test_lower_case_and_spaces():
    assert slugify("Hello World") == "hello-world"


def test_strips_leading_and_trailing_separators():
    assert slugify("  --Hello--  ") == "hello"


def test_accents():
    assert slugify("Café au lait") == "caf-au-lait"


def test_punctuation_runs():
    assert slugify("a -- b") == "a----b"


def test_custom_separator():
    assert slugify("Hello big World", sep="_") == "hello_big_world"


def test_max_len():
    assert slugify("hello big world", max_len=9) == "hello-big"
    assert slugify("hello world", max_len=8) == "hello-wo"


def test_empty():
    assert slugify("") == ""
    assert slugify("!!!") == ""


def test_bad_max_len():
    with pytest.raises(ValueError):
        slugify("x", max_len=0)
