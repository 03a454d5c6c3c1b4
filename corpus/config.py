"""``[tool.proof-harness.corpus]`` in a project's pyproject.toml: the defaults of ``harness corpus
measure`` (and of ``results``, ``show``, ``apply``, ``retest``), so a developer types
``harness corpus measure`` in the project's root, as with mutmut's ``[tool.mutmut]``.

Typed: every key is known with its type; an unknown key or a wrong type is a DeclarationError
naming the file, the table and the key (a typo is an error, never a silent default). Paths are
relative to the pyproject.toml's directory. A command-line option always wins over the file.

    [tool.proof-harness.corpus]
    gate = "tests/gate.toml"         # the gate TOML (a pytest gate over the project's suite)
    artifact = "src/pkg/mod.py"      # the module to mutate
    hints = "corpus-hints.toml"      # optional [artifact] hints
    context_dir = "."                # optional: copied with the artifact for every judgment
    families = ["fine"]
    out = ".corpus"                  # where results, the journal and the judgment cache live
    workers = 2
    skip_lines = ["log\\.debug"]    # regexes: matching lines are never mutated
    fail_on_vacuous = false
    max_false_accept = 0.05
    bound = "upper"
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from corpus.declarations import DeclarationError, read_toml

TABLE = "tool.proof-harness.corpus"


@dataclass(frozen=True)
class CorpusConfig:
    """The table's values (None / empty = not set: the command line's default applies)."""

    source: Path | None = None                # the pyproject.toml it came from
    gate: Path | None = None
    artifact: Path | None = None
    hints: Path | None = None
    context_dir: Path | None = None
    families: tuple[str, ...] = ()
    out: Path | None = None
    workers: int | None = None
    skip_lines: tuple[str, ...] = ()
    fail_on_vacuous: bool | None = None
    max_false_accept: float | None = None
    bound: str | None = None


_PATHS = ("gate", "artifact", "hints", "context_dir", "out")
_TYPES = {"families": "a list of strings", "skip_lines": "a list of strings", "workers": "an integer from 1 to 64",
          "fail_on_vacuous": "a boolean", "max_false_accept": "a number from 0 to 1",
          "bound": "\"point\" or \"upper\"", **{k: "a string (a path)" for k in _PATHS}}


def _check(path: Path, key: str, value) -> Any:
    """The value of one key, typed, or a DeclarationError naming file, table and key."""
    def bad() -> DeclarationError:
        return DeclarationError(f"{path}: [{TABLE}] key {key!r}: expected {_TYPES[key]}, got {value!r}")
    if key in _PATHS:
        if not isinstance(value, str) or not value or "\0" in value:
            raise bad()
        return (path.parent / value).resolve()
    if key in ("families", "skip_lines"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad()
        if key == "families":
            from corpus.operators import FAMILIES
            unknown = [v for v in value if v not in FAMILIES]
            if unknown:
                raise DeclarationError(f"{path}: [{TABLE}] key 'families': unknown family {unknown[0]!r} "
                                       f"(one of {', '.join(FAMILIES)})")
        else:
            from corpus.declarations import check_hint_values
            check_hint_values(path, TABLE, {"skip_lines": value})
        return tuple(value)
    if key == "workers":
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 64:
            raise bad()
        return value
    if key == "fail_on_vacuous":
        if not isinstance(value, bool):
            raise bad()
        return value
    if key == "max_false_accept":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise bad()
        return float(value)
    if value not in ("point", "upper"):
        raise bad()
    return value


def load_config(path: Path) -> CorpusConfig:
    """The ``[tool.proof-harness.corpus]`` table of ``path`` (an empty config when it has none)."""
    path = Path(path).resolve()
    table: Any = read_toml(path)
    for depth, name in enumerate(("tool", "proof-harness", "corpus")):
        if not isinstance(table, dict) and depth:
            raise DeclarationError(f"{path}: [{'.'.join(('tool', 'proof-harness')[:depth])}] must be a table")
        table = table.get(name)
        if table is None:
            break
    if table is None:
        return CorpusConfig(source=path)
    if not isinstance(table, dict):
        raise DeclarationError(f"{path}: [{TABLE}] must be a table")
    known = {f.name for f in fields(CorpusConfig)} - {"source"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise DeclarationError(f"{path}: [{TABLE}] unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return CorpusConfig(source=path, **{k: _check(path, k, v) for k, v in table.items()})


def find_config(start: Path | None = None) -> CorpusConfig:
    """The config of the nearest pyproject.toml at or above ``start`` (the working directory), as
    pip and pytest find a project's root; an empty config when there is none."""
    here = Path(start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        if (d / "pyproject.toml").is_file():
            return load_config(d / "pyproject.toml")
    return CorpusConfig()
