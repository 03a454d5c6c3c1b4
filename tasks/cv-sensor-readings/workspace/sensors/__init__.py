"""Sensor readings and their contract."""
from sensors.contract import parse_reading
from sensors.ingest import ingest_jsonl
from sensors.reading import Reading, ReadingError

__all__ = ["Reading", "ReadingError", "ingest_jsonl", "parse_reading"]
