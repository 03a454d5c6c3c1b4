"""The JSON note store."""
import json
from pathlib import Path


class StoreError(Exception):
    """The store file cannot be read or written."""


class Store:
    """Notes persisted as {"next_id": int, "notes": [{"id", "text", "tags"}]}."""

    def __init__(self, path):
        self.path = Path(path)
        if self.path.exists():
            try:
                data = json.loads(self.path.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise StoreError(f"cannot read store {self.path}: {exc}") from None
        else:
            data = {"next_id": 1, "notes": []}
        self.next_id = data["next_id"]
        self.notes = data["notes"]

    def add(self, text, tags=()):
        note = {"id": self.next_id, "text": text, "tags": list(tags)}
        self.notes.append(note)
        self.next_id += 1
        return note

    def save(self):
        try:
            self.path.write_text(json.dumps({"next_id": self.next_id, "notes": self.notes}, indent=2) + "\n")
        except OSError as exc:
            raise StoreError(f"cannot write store {self.path}: {exc.strerror}") from None
