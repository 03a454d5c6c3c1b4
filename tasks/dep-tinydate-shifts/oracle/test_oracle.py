"""Hidden oracle for dep-tinydate-shifts: business days after the migration to tinydate 2."""
import sys
from pathlib import Path

import pytest

sys.modules["vendor.tinydate_v1"] = None  # simulate the removal of tinydate 1.x

import shiftplan  # noqa: E402
from shiftplan import business_days_between, is_business_day, load_holidays, next_business_day  # noqa: E402

ROOT = Path(shiftplan.__file__).resolve().parent.parent
HOL = load_holidays(ROOT / "data" / "holidays.txt")


@pytest.mark.parametrize("day,expected", [
    ("2024-03-04", True),   # Monday
    ("2024-03-08", True),   # Friday
    ("2024-03-09", False),  # Saturday
    ("2024-03-10", False),  # Sunday
])
def test_weekdays(day, expected):
    assert is_business_day(day) is expected


def test_holiday_is_not_a_business_day():
    assert not is_business_day("2024-12-25", HOL)
    assert is_business_day("2024-12-25")


def test_next_business_day_skips_weekend_and_holidays():
    assert next_business_day("2024-03-08") == "2024-03-11"          # Friday -> Monday
    assert next_business_day("2024-03-09") == "2024-03-11"          # Saturday -> Monday
    assert next_business_day("2024-12-24", HOL) == "2024-12-27"
    assert next_business_day("2023-12-29", HOL) == "2024-01-02"     # Fri, weekend, New Year


def test_business_days_between():
    assert business_days_between("2024-03-04", "2024-03-18") == 10
    assert business_days_between("2024-12-23", "2024-12-30", HOL) == 3
    assert business_days_between("2024-03-09", "2024-03-11") == 0
    assert business_days_between("2024-03-11", "2024-03-04") == 0


@pytest.mark.parametrize("bad", ["2024-02-30", "yesterday", ""])
def test_invalid_dates_raise_value_error(bad):
    with pytest.raises(ValueError):
        is_business_day(bad)


def test_pin_is_exactly_the_vendored_v2():
    lines = [ln.strip() for ln in (ROOT / "requirements.txt").read_text().splitlines() if ln.strip()]
    assert "tinydate==2.0.2" in lines
    assert not any(ln.startswith("tinydate==1") for ln in lines)
