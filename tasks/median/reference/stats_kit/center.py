"""Measures of central tendency."""
from collections.abc import Iterable


def mean(values: Iterable[float]) -> float:
    """Arithmetic mean of a non-empty iterable."""
    data = list(values)
    if not data:
        raise ValueError("mean of empty data")
    return sum(data) / len(data)


def median(values: Iterable[float]) -> float:
    """Median of a non-empty iterable."""
    data = sorted(values)
    n = len(data)
    if n == 0:
        raise ValueError("median of empty data")
    mid = n // 2
    if n % 2:
        return data[mid]
    return (data[mid - 1] + data[mid]) / 2
