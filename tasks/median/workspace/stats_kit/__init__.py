"""Descriptive statistics helpers."""
from stats_kit.center import mean, median

__all__ = ["mean", "median"]
