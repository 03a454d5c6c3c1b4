"""Count events per calendar day in a report timezone."""
import csv
from collections import Counter
from datetime import date, datetime, tzinfo
from typing import Iterable

from eventlog.timeparse import parse_timestamp, report_tz


def local_date(ts: datetime, tz: tzinfo) -> date:
    """The calendar date of the aware datetime `ts` as seen in timezone `tz`."""
    return ts.replace(tzinfo=tz).date()


def daily_counts(timestamps: Iterable[str], utc_offset_hours: float = 0) -> dict[str, int]:
    """{"YYYY-MM-DD": number of events} in the report timezone, dates ascending."""
    tz = report_tz(utc_offset_hours)
    counts = Counter(local_date(parse_timestamp(t), tz).isoformat() for t in timestamps)
    return dict(sorted(counts.items()))


def busiest_day(timestamps: Iterable[str], utc_offset_hours: float = 0) -> str:
    """The date with the most events (earliest on a tie); ValueError if there are none."""
    counts = daily_counts(timestamps, utc_offset_hours)
    if not counts:
        raise ValueError("no events")
    return max(counts, key=lambda day: (counts[day], [-ord(c) for c in day]))


def load_timestamps(path: str) -> list[str]:
    """The `timestamp` column of a CSV export such as data/events.csv."""
    with open(path, newline="") as f:
        return [row["timestamp"] for row in csv.DictReader(f)]
