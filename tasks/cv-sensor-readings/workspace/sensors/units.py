"""Per-kind units and physical bounds (inclusive)."""

KINDS = {
    "temperature": ("C", -50.0, 150.0),
    "humidity": ("%", 0.0, 100.0),
    "pressure": ("hPa", 800.0, 1100.0),
}

TS_MIN = 946684800    # 2000-01-01T00:00:00Z
TS_MAX = 4102444800   # 2100-01-01T00:00:00Z (exclusive)
