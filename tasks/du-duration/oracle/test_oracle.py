"""Hidden ground-truth oracle for du-duration (never visible to the agent)."""
import pytest

from durations import format_duration, parse_duration


@pytest.mark.parametrize("text, seconds", [
    ("0s", 0),
    ("0d", 0),
    ("1H30M", 5400),
    ("2D", 172800),
    ("  45s  ", 45),
    ("1h 30m", 5400),
    ("1d  2h\t3m 4s", 93784),
    ("1.5h", 5400),
    ("0.5m", 30),
    ("1.13h", 4068),
    ("4.10m", 246),
    ("0.7d", 60480),
    ("2.25d", 194400),
    ("007m", 420),
    ("100000000d", 8640000000000),
    ("1h0m1s", 3601),
])
def test_accepts(text, seconds):
    result = parse_duration(text)
    assert result == seconds
    assert type(result) is int


@pytest.mark.parametrize("bad", [
    "", "   ", "90", "h", "1x", "1 h", "30m1h", "1s1m", "1h1h", "1h 1H", "-5m", "+5m",
    "1h-30m", "1.5s", "0.1s", ".5h", "1.h", "1h30", "1h, 30m", "1hour", "1h30mx", "1e3s", "1_000s",
])
def test_rejects(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


def test_round_trip_with_format():
    for seconds in (1, 59, 60, 3599, 3600, 86399, 86400, 90061, 10 ** 9):
        assert parse_duration(format_duration(seconds)) == seconds
