"""YAML and TOML document operators (v1), on real parsers: ruamel.yaml in round-trip mode (comments,
key order and style survive every mutant that does not touch them) and tomlkit (style-preserving
TOML).

Hints, as for JSON: ``required_keys`` (dotted paths; ``[]`` steps into every list element),
``typed_keys`` (paths whose type the requirement fixes), ``flags`` (paths of booleans the
requirement fixes; ``required_keys``/``typed_keys`` holding a boolean count too),
``unordered_lists`` (lists whose order carries no meaning).
"""
from __future__ import annotations

import io

import tomlkit
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator
from corpus.operators.jsondoc import parents, swap_type_value

KINDS = ("yaml", "toml")


def load_structured(spec: ArtifactSpec):
    """The document as a round-trip tree (dict/list subclasses), or None if it does not parse
    as one mapping or sequence."""
    try:
        doc = YAML(typ="rt").load(spec.text) if spec.kind == "yaml" else tomlkit.parse(spec.text)
    except (YAMLError, tomlkit.exceptions.TOMLKitError, ValueError):
        return None
    return doc if isinstance(doc, (dict, list)) else None


def dump_structured(doc, spec: ArtifactSpec, *, yaml: YAML | None = None) -> bytes:
    if spec.kind == "yaml":
        buf = io.StringIO()
        (yaml or YAML(typ="rt")).dump(doc, buf)
        return buf.getvalue().encode()
    return tomlkit.dumps(doc).encode()


def plain(v):
    """A plain-Python copy (dict, list, scalars) of a round-trip tree."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v.unwrap() if hasattr(v, "unwrap") else v


def empty_value(v, kind: str):
    """The empty value of ``v``'s type; anything else null (TOML has none: '')."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return type(v)(0) if type(v) in (int, float) else 0
    if isinstance(v, str):
        return ""
    return "" if kind == "toml" else None


def hollow_in_place(node, kind: str, keep=lambda key: False) -> None:
    """Every key kept, every scalar emptied, every list cleared (keys ``keep`` names untouched)."""
    if isinstance(node, dict):
        for k in list(node):
            v = node[k]
            if keep(k):
                continue
            if isinstance(v, dict):
                hollow_in_place(v, kind, keep)
            elif isinstance(v, list):
                v.clear()
            else:
                node[k] = empty_value(v, kind)
    elif isinstance(node, list):
        node.clear()


def _paths(spec: ArtifactSpec, *keys: str) -> list[str]:
    return list(dict.fromkeys(p for k in keys for p in spec.hints.get(k, [])))


@operator("hollow", "v1", KINDS, DESTROYING, probe="hollowing", examples=[
    Example("yaml", "# service\nname: api  # id\nreplicas: 3\nports:\n  - 80\n",
            "# service\nname: ''   # id\nreplicas: 0\nports: []\n"),
    Example("toml", "[server]\nhost = \"x\"\nport = 8080\n", "[server]\nhost = \"\"\nport = 0\n")])
def hollow(spec: ArtifactSpec):
    """Keep every key, replace every value with the empty value of its type."""
    doc = load_structured(spec)
    if doc is None:
        return []
    hollow_in_place(doc, spec.kind)
    return [(dump_structured(doc, spec), "keys kept, values emptied")]


@operator("drop_key", "v1", KINDS, DESTROYING, examples=[
    Example("yaml", "a: 1\nb:\n  c: 2  # keep\n  d: 3\n", "a: 1\nb:\n  d: 3\n", hints={"required_keys": ["b.c"]}),
    Example("toml", "a = 1\n[b]\nc = 2\n", "a = 1\n[b]\n", hints={"required_keys": ["b.c"]}),
    Example("toml", "a = 1\n", NO_MUTANT)])
def drop_key(spec: ArtifactSpec):
    """Delete one required key (its first occurrence); max 3 mutants."""
    out = []
    for path in _paths(spec, "required_keys")[:3]:
        doc = load_structured(spec)
        hits = parents(doc, path) if doc is not None else []
        if hits:
            d, k = hits[0]
            del d[k]
            out.append((dump_structured(doc, spec), f"dropped {path}"))
    return out


@operator("swap_type", "v1", KINDS, DESTROYING, examples=[
    Example("yaml", "replicas: 3\n", "replicas: '3'\n", hints={"typed_keys": ["replicas"]}),
    Example("toml", "port = 8080\n", "port = \"8080\"\n", hints={"required_keys": ["port"]})])
def swap_type(spec: ArtifactSpec):
    """Change a typed (or required) key's value to another type; max 3 mutants."""
    out = []
    for path in (spec.hints.get("typed_keys") or spec.hints.get("required_keys", []))[:3]:
        doc = load_structured(spec)
        hits = parents(doc, path) if doc is not None else []
        if hits:
            d, k = hits[0]
            d[k] = swap_type_value(plain(d[k]))
            out.append((dump_structured(doc, spec), f"{path} type swapped"))
    return out


@operator("negate_flag", "v1", KINDS, DESTROYING, examples=[
    Example("yaml", "tls:\n  verify: true  # must stay on\n", "tls:\n  verify: false # must stay on\n",
            hints={"flags": ["tls.verify"]}),
    Example("toml", "[tls]\nverify = true\n", "[tls]\nverify = false\n", hints={"required_keys": ["tls.verify"]}),
    Example("toml", "[tls]\nverify = true\n", NO_MUTANT)])
def negate_flag(spec: ArtifactSpec):
    """Negate a boolean the requirement fixes (``flags``, or a required/typed key holding a
    boolean); max 3 mutants. Without such a hint no boolean is known to matter: not applicable."""
    out: list[tuple] = []
    for path in _paths(spec, "flags", "required_keys", "typed_keys"):
        doc = load_structured(spec)
        hits = parents(doc, path) if doc is not None else []
        if hits and isinstance(plain(hits[0][0][hits[0][1]]), bool) and len(out) < 3:
            d, k = hits[0]
            d[k] = not plain(d[k])
            out.append((dump_structured(doc, spec), f"{path} negated"))
    return out


def _reversed_keys(v, unordered: set[str], path: str = ""):
    if isinstance(v, dict):
        return {k: _reversed_keys(v[k], unordered, f"{path}.{k}" if path else k) for k in reversed(list(v))}
    if isinstance(v, list):
        items = [_reversed_keys(x, unordered, f"{path}[]") for x in v]
        return items[::-1] if path in unordered else items
    return v


@operator("reformat_whitespace", "v1", KINDS, PRESERVING, examples=[
    Example("yaml", "a:\n  b: 1\n  c: [1, 2]\n", "a:\n    b: 1\n    c: [1, 2]\n", PRESERVING),
    Example("toml", "a=1\n[t]\nb=\"x\"\n", "a = 1\n\n[t]\nb = \"x\"\n", PRESERVING)])
def reformat(spec: ArtifactSpec):
    """Re-serialise the same document: YAML with 4-space indentation, TOML in canonical layout."""
    doc = load_structured(spec)
    if doc is None:
        return []
    if spec.kind == "yaml":
        y = YAML(typ="rt")
        y.indent(mapping=4, sequence=6, offset=4)
        return [(dump_structured(doc, spec, yaml=y), "4-space indentation")]
    if not isinstance(doc, dict):
        return []
    return [(tomlkit.dumps(plain(doc)).encode(), "canonical TOML layout")]


@operator("reorder_items", "v1", KINDS, PRESERVING, examples=[
    Example("yaml", "a: 1\nb: [x, y]\n", "b:\n- x\n- y\na: 1\n", PRESERVING),
    Example("yaml", "a: 1\nb: [x, y]\n", "b:\n- y\n- x\na: 1\n", PRESERVING, hints={"unordered_lists": ["b"]}),
    Example("toml", "a = 1\nb = 2\n", "b = 2\na = 1\n", PRESERVING)])
def reorder(spec: ArtifactSpec):
    """Reverse the key order of every mapping and the items of declared unordered lists."""
    doc = load_structured(spec)
    if doc is None or not isinstance(doc, dict):
        return []
    new = _reversed_keys(plain(doc), set(spec.hints.get("unordered_lists", [])))
    if spec.kind == "yaml":
        buf = io.StringIO()
        YAML(typ="rt").dump(new, buf)
        return [(buf.getvalue().encode(), "keys and unordered lists reversed")]
    return [(tomlkit.dumps(new).encode(), "keys and unordered lists reversed")]


@operator("add_comment", "v1", KINDS, PRESERVING, examples=[
    Example("yaml", "a: 1\n", "# reviewed: formatting only\na: 1\n", PRESERVING),
    Example("toml", "a = 1\n", "# reviewed: formatting only\na = 1\n", PRESERVING)])
def add_comment(spec: ArtifactSpec):
    """Prepend a comment line."""
    return [(("# reviewed: formatting only\n" + spec.text).encode(), "comment prepended")]
