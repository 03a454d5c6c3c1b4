"""Visible acceptance test for tz-daily-buckets (the agent can see and run this)."""
from eventlog import daily_counts


def test_utc_report_converts_offsets():
    stamps = ["2024-03-09T23:30:00-05:00", "2024-03-10T01:00:00+00:00", "2024-03-10T09:00:00+09:00"]
    assert daily_counts(stamps) == {"2024-03-10": 3}


def test_utc_report_two_days():
    stamps = ["2024-03-10T18:45:00Z", "2024-03-11T00:15:00Z", "2024-03-11T02:00:00+01:00"]
    assert daily_counts(stamps, utc_offset_hours=0) == {"2024-03-10": 1, "2024-03-11": 2}
