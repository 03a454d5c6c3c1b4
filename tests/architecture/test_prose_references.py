"""Cross-references in prose name symbols that exist (issue 22: "name symbols, not file paths that
go stale on a move"). Every ``harness.a.b.C`` written in the code's text (docstrings, comments,
messages) or in README.md / CONTRIBUTING.md / docs/ must import and resolve, and every ``harness/x/y.py``
path and every ``docs/...md`` page must exist. ``STALE`` lists references not fixed yet (in files another change owns); it may
only shrink."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ("harness", "analysis", "corpus", "viewer", "interop")
SKIP = ("corpus/catalogue", "corpus/examples")
DOTTED = re.compile(r"(?<![\w/.-])harness(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w/.-])(?:harness|analysis|corpus|viewer|interop)/[\w/]+\.py\b")
DOC = re.compile(r"(?<![\w/.-])docs/[\w/.-]*\w\.md\b")  # a page of the manual, named from the code or another page
NOT_SYMBOLS = {"toml", "json", "lock", "jsonl", "md", "py", "head", "txt"}  # harness.toml and the like: files

# file -> stale references left as found (harness.run.cellrun: the typed-configuration change owns it)
STALE = {
    "harness/run/cellrun.py": {"harness.tasks", "harness.adjudicator.adjudicate",
                               "harness.pricing.cell_cost"},
}


def _texts():
    for pkg in SOURCES:
        for path in sorted((REPO / pkg).rglob("*.py")):
            rel = path.relative_to(REPO).as_posix()
            if not rel.startswith(SKIP):
                yield rel, path.read_text(encoding="utf-8")
    docs = ["README.md", "CONTRIBUTING.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").rglob("*.md"))]
    for doc in docs:
        yield doc, (REPO / doc).read_text(encoding="utf-8")


def resolves(ref: str) -> bool:
    """Whether ``ref`` is an importable module, or an attribute path from the longest importable prefix."""
    parts = ref.split(".")
    if parts[-1] in NOT_SYMBOLS:
        return True
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(obj, name):
                return False
            obj = getattr(obj, name)
        return True
    return False


def stale_references() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for rel, text in _texts():
        bad = {r for r in set(DOTTED.findall(text)) if not resolves(r)}
        bad |= {p for p in set(PATH.findall(text)) if not (REPO / p).exists()}
        bad |= {p for p in set(DOC.findall(text)) if not (REPO / p).exists()}
        if bad:
            out[rel] = bad
    return out


def test_every_reference_in_prose_names_something_that_exists():
    found = stale_references()
    new = {f: refs - STALE.get(f, set()) for f, refs in found.items() if refs - STALE.get(f, set())}
    assert not new, f"references to modules, symbols or files that do not exist (name the symbol): {new}"
    fixed = {f: refs - found.get(f, set()) for f, refs in STALE.items() if refs - found.get(f, set())}
    assert not fixed, f"fixed: remove them from STALE: {fixed}"


def test_the_check_catches_a_moved_module_and_a_missing_path():
    assert resolves("harness.core.record.OUTCOMES") and resolves("harness.run") and resolves("harness.toml")
    assert not resolves("harness.record.OUTCOMES") and not resolves("harness.core.record.NO_SUCH_NAME")
    assert DOTTED.findall("see harness.core.exits.EXIT_CODES, not tests/harness.x") == ["harness.core.exits.EXIT_CODES"]
    assert PATH.findall("harness/driver.py and tests/harness/run/test_driver.py") == ["harness/driver.py"]
    assert DOC.findall("(docs/reference/exit-codes.md's table; see docs/judge.md.)") == ["docs/reference/exit-codes.md",
                                                                                          "docs/judge.md"]
