"""Daily activity reports from ISO 8601 event timestamps."""
from eventlog.buckets import busiest_day, daily_counts, load_timestamps

__all__ = ["busiest_day", "daily_counts", "load_timestamps"]
