"""Artifact kinds at the input edge: infer a kind from a file name, and refuse what the corpus
cannot mutate (binary files, unknown kinds, content that does not parse as its kind) with one
clear line instead of a traceback."""
from __future__ import annotations

import json
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from corpus.model import KINDS
from corpus.pyparse import parse
from harness.core.errors import InputError
from harness.core.statefile import MAX_DEPTH, depth_of
from harness.core.tomlfile import parse_toml

KIND_BY_SUFFIX = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".py": "python",
                  ".txt": "text", ".text": "text", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
                  ".tf": "text", ".cfg": "text", ".ini": "text", ".conf": "text", ".rst": "text"}
TEXT_NAMES = {"dockerfile", "containerfile", "makefile", "version", "license", "readme", "changelog",
              "authors", "codeowners", "procfile"}


class KindError(ValueError):
    """The artifact cannot be mutated as given (message names the file and what was expected)."""


def infer_kind(path: Path) -> str:
    name = path.name.lower()
    if name.startswith("requirements") and name.endswith((".txt", ".in")) or name.endswith(".pins"):
        return "pins"
    if name in ("commit_editmsg", "commit.txt") or name.endswith(".commit"):
        return "commit"
    if path.suffix.lower() in KIND_BY_SUFFIX:
        return KIND_BY_SUFFIX[path.suffix.lower()]
    if name in TEXT_NAMES or name.split(".")[0] in TEXT_NAMES:
        return "text"
    raise KindError(f"{path}: cannot tell the artifact kind from the file name "
                    f"(suffix {path.suffix or '(none)'!r}); pass --kind, one of {', '.join(KINDS)}")


def check_content(path: Path, data: bytes, kind: str) -> None:
    """Raise KindError unless ``data`` is UTF-8 text that parses as ``kind``."""
    if kind not in KINDS:
        raise KindError(f"{path}: unknown artifact kind {kind!r}; expected one of {', '.join(KINDS)}")
    if b"\0" in data[:8192]:
        raise KindError(f"{path}: binary file (NUL bytes); the corpus mutates text artifacts only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KindError(f"{path}: not UTF-8 text (byte {exc.start}); the corpus mutates text artifacts only") from None
    try:
        if kind == "json":
            if text.count("[") + text.count("{") > MAX_DEPTH and depth_of(text, MAX_DEPTH) > MAX_DEPTH:
                raise KindError(f"{path}: --kind json, but nested deeper than {MAX_DEPTH} levels; "
                                "the corpus mutates artifacts a reader can parse")
            json.loads(text)
        elif kind == "python":
            parse(text, filename=str(path))
        elif kind == "toml":
            parse_toml(text, str(path))
        elif kind == "yaml":
            list(YAML(typ="safe", pure=True).load_all(text))
    except json.JSONDecodeError as exc:
        raise KindError(f"{path}:{exc.lineno}:{exc.colno}: --kind json, but not JSON: {exc.msg}") from None
    except SyntaxError as exc:
        raise KindError(f"{path}:{exc.lineno}: --kind python, but not Python: {exc.msg}") from None
    except InputError as exc:  # the one TOML loader: not TOML, or nested past its bound
        raise KindError(f"{path}: --kind toml, but not TOML: {exc.message}"
                        + (f" (line {exc.line})" if exc.line else "")) from None
    except YAMLError as exc:
        raise KindError(f"{path}: --kind yaml, but not YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:  # YAML's flow and block nesting has no bound of its own in ruamel's pure loader
        raise KindError(f"{path}: --kind {kind}, but nested too deep to parse; "
                        "the corpus mutates artifacts a reader can parse") from None
