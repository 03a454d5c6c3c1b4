"""Validation of the corpus's TOML declarations: gate files, hints files and loop files.

Every table and key is known in advance, with its type: an unknown key or table, a wrong type or
a missing required key is a ``DeclarationError`` whose one-line message names the file, the
table, the key and what was expected. Nothing is silently ignored, so a misspelt key cannot turn
into a default (a typo in ``timeout_s`` is an error, not 30 seconds).
"""
from __future__ import annotations

import re
from pathlib import Path

from corpus.model import KINDS
from harness.core import runio
from harness.core.errors import InputError
from harness.core.tomlfile import parse_toml

STR, NUMBER, LIST_STR, LIST_INT = "a string", "a positive number", "a list of strings", "a list of integers"

GATE_STATUS = ("current", "repaired", "planted")
_COMMON = {"kind": STR, "name": STR, "description": STR, "status": STR, "planted": STR,
           "repaired_by": STR, "timeout_s": NUMBER, "data": LIST_STR}


def gate_kinds() -> tuple[str, ...]:
    """Every registered gate kind (corpus/gates.py's built-ins and installed plug-ins)."""
    from harness.core.registry import GATES
    return tuple(GATES.names())


def gate_keys(kind: str) -> dict[str, str]:
    """The declaration keys a gate of ``kind`` accepts besides the common ones, as registered."""
    from harness.core.registry import GATES
    return dict(GATES.get(kind).flag("keys", {}))


# keys naming files or directories beside the gate file, which must exist
GATE_PATHS = {"tests": "a test file or directory", "schema": "a JSON schema file",
              "module": "a Python module file", "children": "gate files", "data": "data files"}

HINT_KEYS = {"requirement": STR, "kind": STR, "not_applicable": LIST_STR, "required_sections": LIST_STR,
             "obligations": LIST_STR, "comment_prefix": STR, "required_keys": LIST_STR,
             "typed_keys": LIST_STR, "unordered_lists": LIST_STR, "flags": LIST_STR,
             "required_symbols": LIST_STR, "required_packages": LIST_STR, "role": STR,
             "skip_lines": LIST_STR, "extra_operators": LIST_STR}
HINT_ROLES = ("tests", "code")   # code: the requirement is the module's behaviour (family fine)
LOOP_KEYS = {"id": STR, "title": STR, "domains": LIST_STR, "requirement": STR, "gates": LIST_STR}
LOOP_ARTIFACT_KEYS = {**{k: v for k, v in HINT_KEYS.items() if k != "requirement"},
                      "target": STR, "dir": STR}


class DeclarationError(ValueError):
    pass


def read_toml(path: Path) -> dict:
    """A gate, loop, hints or pyproject TOML the user names (links followed), read by the safe reader:
    a FIFO there (a --gate, --config or --hints) hung the measurement before it started."""
    try:
        return parse_toml(runio.read_bytes(path, "TOML file", limit=16 << 20, follow=True).decode("utf-8"), str(path))
    except runio.UnsafeFile as exc:
        raise DeclarationError(f"{path}: {exc.message}") from None
    except OSError as exc:
        raise DeclarationError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise DeclarationError(f"{path}: not UTF-8 text (byte {exc.start}); expected a TOML file") from None
    except InputError as exc:  # not TOML, or nested past the bound (the one TOML loader's line)
        raise DeclarationError(f"{path}: not valid TOML: {exc.message}"
                               + (f" (line {exc.line})" if exc.line else "")) from None


def _type_ok(value, expected: str) -> bool:
    if expected == STR:
        return isinstance(value, str)
    if expected == NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
    if expected == LIST_STR:
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if expected == LIST_INT:
        return isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    raise AssertionError(expected)  # pragma: no cover


def _describe(value) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def check_table(path: Path, table: str, data, known: dict[str, str], required=()) -> dict:
    """``data`` must be a table whose keys are all ``known`` (with their types), ``required`` present."""
    where = f"{path}: [{table}]"
    if not isinstance(data, dict):
        raise DeclarationError(f"{where}: expected a table, got {_describe(data)}")
    for key, value in data.items():
        if key not in known:
            raise DeclarationError(f"{where}: unknown key {key!r}; known keys: {', '.join(sorted(known))}")
        if not _type_ok(value, known[key]):
            raise DeclarationError(f"{where}: key {key!r}: expected {known[key]}, got {_describe(value)}")
    for key in required:
        if key not in data:
            raise DeclarationError(f"{where}: missing required key {key!r} ({known[key]})")
    return data


def check_gate(path: Path, data: dict) -> dict:
    """The gate table of a gate file (``[gate]`` or top-level keys), validated."""
    if "gate" in data:
        extra = sorted(set(data) - {"gate"})
        if extra:
            raise DeclarationError(f"{path}: unknown table or key {extra[0]!r} beside [gate]")
        spec, table = data["gate"], "gate"
    else:
        spec, table = data, "gate (top level)"
    if not isinstance(spec, dict):
        raise DeclarationError(f"{path}: [gate]: expected a table, got {_describe(spec)}")
    kind = spec.get("kind")
    if not isinstance(kind, str) or kind not in gate_kinds():
        raise DeclarationError(f"{path}: [{table}] key 'kind': expected one of {', '.join(gate_kinds())}, "
                               f"got {_describe(kind) if 'kind' in spec else 'nothing'}")
    from harness.core.registry import GATES
    known = {**_COMMON, **gate_keys(kind)}
    check_table(path, table, spec, known, list(GATES.get(kind).flag("required", ())))
    status = spec.get("status", "current")
    if status not in GATE_STATUS:
        raise DeclarationError(f"{path}: [{table}] key 'status': expected one of {', '.join(GATE_STATUS)}, "
                               f"got {status!r}")
    if kind == "composite" and not spec["children"]:
        raise DeclarationError(f"{path}: [{table}] key 'children': a composite gate with no children "
                               f"would accept anything")
    if kind in ("command", "external") and not spec["argv"]:
        raise DeclarationError(f"{path}: [{table}] key 'argv': expected a non-empty list of strings")
    for key, what in GATE_PATHS.items():
        if key not in spec:
            continue
        for rel in (spec[key] if isinstance(spec[key], list) else [spec[key]]):
            if not (path.parent / rel).exists():
                raise DeclarationError(f"{path}: [{table}] key {key!r}: {rel!r} does not exist "
                                       f"(expected {what} relative to {path.parent})")
    return spec


def load_hints(path: Path) -> dict:
    """A hints file: one ``[artifact]`` table of requirement hints (see docs/how-to/add-a-gate.md)."""
    path = Path(path)
    data = read_toml(path)
    extra = sorted(set(data) - {"artifact"})
    if extra:
        raise DeclarationError(f"{path}: unknown table or key {extra[0]!r}; a hints file holds one [artifact] table")
    hints = dict(check_table(path, "artifact", data.get("artifact", {}), HINT_KEYS))
    check_hint_values(path, "artifact", hints)
    return hints


def check_hint_values(path: Path, table: str, hints: dict) -> None:
    if "kind" in hints and hints["kind"] not in KINDS:
        raise DeclarationError(f"{path}: [{table}] key 'kind': expected one of {', '.join(KINDS)}, "
                               f"got {hints['kind']!r}")
    if "role" in hints and hints["role"] not in HINT_ROLES:
        raise DeclarationError(f"{path}: [{table}] key 'role': expected one of {', '.join(HINT_ROLES)}, "
                               f"got {hints['role']!r}")
    for pattern in hints.get("skip_lines", []):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise DeclarationError(f"{path}: [{table}] key 'skip_lines': {pattern!r} is not a regular "
                                   f"expression ({exc})") from None
    for key in ("not_applicable", "extra_operators"):
        if hints.get(key):
            from corpus.operators import operators
            names = {o.name for o in operators()}
            unknown = [n for n in hints[key] if n not in names]
            if unknown:
                raise DeclarationError(f"{path}: [{table}] key {key!r}: unknown operator {unknown[0]!r} "
                                       f"(see `harness corpus operators`)")
