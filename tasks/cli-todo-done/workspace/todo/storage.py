"""Reading and writing the todo.txt format: `[ ] text` or `[x] text`, one per line."""
from dataclasses import dataclass
from pathlib import Path


class StorageError(Exception):
    """The todo file is unreadable or malformed."""


@dataclass
class Item:
    text: str
    done: bool = False

    def render(self):
        return f"[{'x' if self.done else ' '}] {self.text}"


def load_items(path):
    """Items of the todo file (an absent file is an empty list)."""
    path = Path(path)
    if not path.exists():
        return []
    items = []
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        if len(line) < 4 or line[0] != "[" or line[2:4] != "] " or line[1] not in " x":
            raise StorageError(f"{path}:{number}: malformed line {line!r}")
        items.append(Item(line[4:], line[1] == "x"))
    return items


def save_items(path, items):
    """Write items back, one per line."""
    Path(path).write_text("".join(item.render() + "\n" for item in items))
