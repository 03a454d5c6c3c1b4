"""Visible acceptance test for dep-tinydate-shifts."""
import sys
from pathlib import Path

sys.modules["vendor.tinydate_v1"] = None  # tinydate 1.x is being removed: importing it must not be needed

import shiftplan  # noqa: E402
from shiftplan import is_business_day, load_holidays, next_business_day  # noqa: E402

ROOT = Path(shiftplan.__file__).resolve().parent.parent
HOLIDAYS = load_holidays(ROOT / "data" / "holidays.txt")


def test_midweek_and_sunday():
    assert is_business_day("2024-03-06")        # Wednesday
    assert not is_business_day("2024-03-10")    # Sunday


def test_next_business_day_midweek_and_holiday():
    assert next_business_day("2024-03-06") == "2024-03-07"
    assert next_business_day("2024-04-30", HOLIDAYS) == "2024-05-02"   # May 1st is a holiday


def test_pin_names_tinydate_2():
    assert "tinydate==2." in (ROOT / "requirements.txt").read_text()
