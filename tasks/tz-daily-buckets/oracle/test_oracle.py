"""Hidden ground-truth oracle for tz-daily-buckets (never visible to the agent)."""
import pytest

from eventlog import busiest_day, daily_counts, load_timestamps


def test_negative_offset_report():
    stamps = ["2024-03-10T03:00:00Z", "2024-03-10T05:30:00+00:00", "2024-03-10T01:00:00+02:00"]
    assert daily_counts(stamps, utc_offset_hours=-5) == {"2024-03-09": 2, "2024-03-10": 1}


def test_fractional_positive_offset_report():
    stamps = ["2024-03-09T20:00:00Z", "2024-03-09T18:00:00Z", "2024-12-31T19:00:00-00:00"]
    assert daily_counts(stamps, utc_offset_hours=5.5) == {"2024-03-09": 1, "2024-03-10": 1, "2025-01-01": 1}


def test_naive_timestamps_are_utc():
    assert daily_counts(["2024-03-10T02:00:00"], utc_offset_hours=-5) == {"2024-03-09": 1}
    assert daily_counts(["2024-03-10T22:00:00"], utc_offset_hours=3) == {"2024-03-11": 1}


def test_same_offset_as_report_keeps_written_date():
    stamps = ["2024-03-09T23:59:59-05:00", "2024-03-10T00:00:00-05:00"]
    assert daily_counts(stamps, utc_offset_hours=-5) == {"2024-03-09": 1, "2024-03-10": 1}


def test_dates_ascending_and_empty():
    out = daily_counts(["2024-03-12T12:00:00Z", "2024-01-02T12:00:00Z", "2024-02-05T12:00:00Z"], 0)
    assert list(out) == ["2024-01-02", "2024-02-05", "2024-03-12"]
    assert daily_counts([], 3) == {}


def test_busiest_day_in_report_timezone():
    stamps = ["2024-03-10T03:00:00Z", "2024-03-10T04:00:00Z", "2024-03-10T12:00:00Z"]
    assert busiest_day(stamps, utc_offset_hours=-5) == "2024-03-09"
    assert busiest_day(stamps, utc_offset_hours=0) == "2024-03-10"
    with pytest.raises(ValueError):
        busiest_day([], 0)


def test_sample_export():
    stamps = load_timestamps("data/events.csv")
    assert daily_counts(stamps, utc_offset_hours=-5) == {"2024-03-09": 3, "2024-03-10": 2}
    assert daily_counts(stamps, utc_offset_hours=0) == {"2024-03-10": 4, "2024-03-11": 1}
