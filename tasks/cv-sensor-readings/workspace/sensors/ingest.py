"""Ingest a JSON-lines capture, splitting accepted readings from rejected lines."""
import json
from pathlib import Path

from sensors.contract import parse_reading
from sensors.reading import ReadingError


def ingest_jsonl(path):
    """(accepted readings, [(line number, ReadingError)]) for a JSON-lines file."""
    accepted, rejected = [], []
    for number, line in enumerate(Path(path).read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            accepted.append(parse_reading(json.loads(line)))
        except json.JSONDecodeError:
            rejected.append((number, ReadingError("$", "type", "not JSON")))
        except ReadingError as exc:
            rejected.append((number, exc))
    return accepted, rejected
