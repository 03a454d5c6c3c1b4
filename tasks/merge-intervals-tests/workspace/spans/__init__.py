"""Merging closed intervals."""
from spans.merge import load_intervals, merge_intervals, total_covered

__all__ = ["load_intervals", "merge_intervals", "total_covered"]
