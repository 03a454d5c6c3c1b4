"""Human-readable durations: parse "1h30m" into seconds and format seconds back."""
from durations.format import format_duration
from durations.parse import parse_duration

__all__ = ["format_duration", "parse_duration"]
