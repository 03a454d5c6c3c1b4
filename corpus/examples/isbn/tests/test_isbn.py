"""The sample suite. It misses one case on purpose: no ISBN-13 whose check digit is 0, so
``(10 - total % 10) % 10`` -> ``(10 - total % 10) % 11`` survives (a real gap, the kind mutmut
and cosmic-ray find and whole-file operators cannot)."""
import pytest

import isbn


def test_clean_drops_hyphens_and_spaces():
    assert isbn.clean("0-306-40615-2") == "0306406152"
    assert isbn.clean("978 0 306 40615 7") == "9780306406157"


def test_clean_upper_cases_x():
    assert isbn.clean("0-8044-2957-x") == "080442957X"


def test_isbn10_valid():
    assert isbn.is_isbn10("0-306-40615-2")


def test_isbn10_with_x_check_digit():
    assert isbn.is_isbn10("0-8044-2957-X")


def test_isbn10_bad_check_digit():
    assert not isbn.is_isbn10("0-306-40615-3")


def test_isbn10_too_short():
    assert not isbn.is_isbn10("0-306-4061")


def test_isbn10_letter_inside():
    assert not isbn.is_isbn10("0-3A6-40615-2")


def test_isbn10_x_only_last():
    assert not isbn.is_isbn10("X-306-40615-2")


def test_isbn10_bad_last_character():
    assert not isbn.is_isbn10("0-306-40615-Y")


def test_isbn13_valid():
    assert isbn.is_isbn13("978-0-306-40615-7")


def test_isbn13_979_prefix():
    assert isbn.is_isbn13("979-10-90636-07-1")


def test_isbn13_bad_prefix():
    assert not isbn.is_isbn13("977-0-306-40615-7")


def test_isbn13_bad_check_digit():
    assert not isbn.is_isbn13("978-0-306-40615-8")


def test_isbn13_not_digits():
    assert not isbn.is_isbn13("978-0-306-4061X-7")


def test_to_isbn13():
    assert isbn.to_isbn13("0-306-40615-2") == "9780306406157"


def test_to_isbn13_rejects_invalid():
    with pytest.raises(ValueError):
        isbn.to_isbn13("0-306-40615-3")


@pytest.mark.parametrize("text,kind", [("0-306-40615-2", "ISBN-10"), ("978-0-306-40615-7", "ISBN-13")])
def test_validate_kinds(text, kind):
    assert isbn.validate(text) == kind


def test_validate_garbage():
    assert isbn.validate("hello") is None
