"""Unit conversions for lengths and temperatures."""
from unitconv.length import convert_length, supported_units
from unitconv.temperature import to_celsius, to_fahrenheit

__all__ = ["convert_length", "supported_units", "to_celsius", "to_fahrenheit"]
