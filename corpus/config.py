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
    extra_operators = ["identity"]  # opt-in operators (identity: == -> is; ordering: != -> < / >; negate_if; drop_builtin_argument)
    fail_on_vacuous = false
    max_false_accept = 0.05
    bound = "upper"
"""
from __future__ import annotations

import json
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
    extra_operators: tuple[str, ...] = ()     # opt-in operators to generate too (identity, ordering, negate_if, drop_builtin_argument)
    fail_on_vacuous: bool | None = None
    max_false_accept: float | None = None
    bound: str | None = None
    # read from mutmut's [tool.mutmut] when the file has no [tool.proof-harness.corpus] table
    from_mutmut: bool = False
    tests_dir: Path | None = None             # a pytest gate over this directory is made for it
    do_not_mutate: tuple[str, ...] = ()       # mutmut's globs of files never mutated


_NOT_TABLE_KEYS = {"source", "from_mutmut", "tests_dir", "do_not_mutate"}


_PATHS = ("gate", "artifact", "hints", "context_dir", "out")
_TYPES = {"families": "a list of strings", "skip_lines": "a list of strings", "extra_operators": "a list of strings", "workers": "an integer from 1 to 64",
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
    if key in ("families", "skip_lines", "extra_operators"):
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
            check_hint_values(path, TABLE, {key: value})
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
        return from_mutmut(path, read_toml(path))
    if not isinstance(table, dict):
        raise DeclarationError(f"{path}: [{TABLE}] must be a table")
    known = {f.name for f in fields(CorpusConfig)} - _NOT_TABLE_KEYS
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


def _mutmut_list(path: Path, key: str, value) -> list[str]:
    """A mutmut key that takes a string or a list of strings (mutmut 2 wrote paths comma-separated)."""
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise DeclarationError(f"{path}: [tool.mutmut] key {key!r}: expected a string or a list of strings, got {value!r}")


def from_mutmut(path: Path, doc: dict) -> CorpusConfig:
    """The defaults mutmut's ``[tool.mutmut]`` table gives (issue 35: a developer switching from
    mutmut keeps its table): ``paths_to_mutate`` (or ``source_paths``) names the module, which must
    be one .py file (the corpus measures one module at a time), judged inside the project (the
    pyproject's directory, copied per judgment); ``tests_dir`` the pytest suite; ``do_not_mutate``
    globs of files never mutated; family ``fine``, results under ``.corpus``. Other mutmut keys
    are ignored. An empty config when there is no such table."""
    tool = doc.get("tool") if isinstance(doc, dict) else None
    table = tool.get("mutmut") if isinstance(tool, dict) else None
    if table is None:
        return CorpusConfig(source=path)
    if not isinstance(table, dict):
        raise DeclarationError(f"{path}: [tool.mutmut] must be a table")
    root = path.parent
    key = "paths_to_mutate" if "paths_to_mutate" in table else "source_paths" if "source_paths" in table else None
    artifact = None
    if key is not None:
        paths = _mutmut_list(path, key, table[key])
        if len(paths) != 1 or not paths[0].endswith(".py"):
            raise DeclarationError(f"{path}: [tool.mutmut] key {key!r}: the corpus measures one module (one .py "
                                   f"file) at a time, got {paths!r}; pass --artifact")
        artifact = (root / paths[0]).resolve()
    tests = _mutmut_list(path, "tests_dir", table["tests_dir"]) if "tests_dir" in table else ["tests"]
    if len(tests) != 1:
        raise DeclarationError(f"{path}: [tool.mutmut] key 'tests_dir': one directory expected, got {tests!r}")
    tests_dir = (root / tests[0]).resolve()
    if not tests_dir.exists():
        raise DeclarationError(f"{path}: [tool.mutmut] key 'tests_dir': {tests[0]!r} does not exist")
    skip = tuple(_mutmut_list(path, "do_not_mutate", table["do_not_mutate"])) if "do_not_mutate" in table else ()
    return CorpusConfig(source=path, artifact=artifact, context_dir=root, families=("fine",), out=root / ".corpus",
                        from_mutmut=True, tests_dir=tests_dir, do_not_mutate=skip)


def mutmut_gate(cfg: CorpusConfig, dest: Path) -> Path:
    """A pytest gate TOML (in ``dest``) over ``cfg.tests_dir``, for a config read from [tool.mutmut]."""
    assert cfg.tests_dir is not None
    gate = dest / "mutmut-gate.toml"
    gate.write_text("[gate]\nname = \"tests_dir\"\nkind = \"pytest\"\n"
                    f"description = \"the suite named by [tool.mutmut] tests_dir in {cfg.source}\"\n"
                    f"tests = {json.dumps(str(cfg.tests_dir))}\ntimeout_s = 120\n")
    return gate


def excluded_by_mutmut(cfg: CorpusConfig, artifact: Path) -> str | None:
    """The ``do_not_mutate`` glob the artifact matches (relative to the project), else None."""
    import fnmatch
    if cfg.source is None:
        return None
    try:
        rel = str(Path(artifact).resolve().relative_to(cfg.source.parent))
    except ValueError:
        return None
    return next((g for g in cfg.do_not_mutate if fnmatch.fnmatch(rel, g)), None)
