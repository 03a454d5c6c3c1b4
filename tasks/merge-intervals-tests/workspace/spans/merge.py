"""Merge overlapping or touching closed intervals."""
from typing import Iterable

from spans.checks import as_interval


def merge_intervals(intervals: Iterable) -> list[tuple[int, int]]:
    """Sorted, merged copy of intervals; touching intervals ((1, 2), (2, 3)) merge too."""
    ordered = sorted(as_interval(p) for p in intervals)
    merged: list[tuple[int, int]] = []
    for start, end in ordered:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def total_covered(intervals: Iterable) -> int:
    """Total length covered by the union of intervals."""
    return sum(end - start for start, end in merge_intervals(intervals))


def load_intervals(path: str) -> list[tuple[int, int]]:
    """Intervals from a text file with one "start end" pair per line (see data/bookings.txt)."""
    with open(path) as f:
        return [as_interval(tuple(int(x) for x in line.split())) for line in f if line.strip()]
