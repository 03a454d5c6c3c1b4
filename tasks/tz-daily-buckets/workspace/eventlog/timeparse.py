"""Timestamp parsing and report timezones."""
from datetime import datetime, timedelta, timezone


def parse_timestamp(text: str) -> datetime:
    """Parse an ISO 8601 timestamp into an aware datetime; no offset means UTC."""
    ts = datetime.fromisoformat(text.strip())
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    return ts


def report_tz(utc_offset_hours: float) -> timezone:
    """The fixed-offset timezone of a report (-12 <= offset <= 14, in hours)."""
    if not -12 <= utc_offset_hours <= 14:
        raise ValueError(f"UTC offset out of range: {utc_offset_hours}")
    return timezone(timedelta(hours=utc_offset_hours))
