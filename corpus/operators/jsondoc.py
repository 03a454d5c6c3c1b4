"""JSON document operators (v1).

Hints: ``required_keys`` (dotted paths; ``[]`` steps into every list element, e.g.
``resources[].tags.owner``), ``unordered_lists`` (dotted paths of lists whose order carries
no meaning).
"""
from __future__ import annotations

import json

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import Example, operator


def load_doc(spec: ArtifactSpec):
    return json.loads(spec.text)


def dump_doc(doc, spec: ArtifactSpec, **kw) -> bytes:
    """Serialise ``doc`` as the artifact was (2-space indent, same trailing newline)."""
    kw.setdefault("indent", 2)
    trail = "\n" if spec.text.endswith("\n") else ""
    return (json.dumps(doc, ensure_ascii=False, **kw) + trail).encode()


def _steps(path: str) -> list[str]:
    return [s for s in path.replace("[]", ".[]").split(".") if s]


def parents(doc, path: str) -> list[tuple[dict, str]]:
    """Every (container dict, key) the dotted path addresses (``[]`` fans out over lists)."""
    steps = _steps(path)
    nodes = [doc]
    for s in steps[:-1]:
        nxt = []
        for n in nodes:
            if s == "[]" and isinstance(n, list):
                nxt += n
            elif isinstance(n, dict) and s in n:
                nxt.append(n[s])
        nodes = nxt
    last = steps[-1]
    return [(n, last) for n in nodes if isinstance(n, dict) and last in n]


def zero_like(v):
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return 0
    if isinstance(v, str):
        return ""
    if isinstance(v, list):
        return []
    if isinstance(v, dict):
        return {k: zero_like(x) for k, x in v.items()}
    return None


def swap_type_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return [v]
    if isinstance(v, list):
        return {str(i): x for i, x in enumerate(v)}
    if isinstance(v, dict):
        return [v]
    return 0


@operator("hollow", "v1", ("json",), DESTROYING, probe="hollowing", examples=[
    Example("json", '{"a": 1, "b": ["x"], "c": {"d": "e"}}', '{\n  "a": 0,\n  "b": [],\n  "c": {\n    "d": ""\n  }\n}'),
])
def hollow(spec: ArtifactSpec):
    """Keep every key, replace every value with the empty value of its type."""
    return [(dump_doc(zero_like(load_doc(spec)), spec), "keys kept, values emptied")]


@operator("drop_key", "v1", ("json",), DESTROYING, examples=[
    Example("json", '{"a": 1, "b": 2}\n', '{\n  "b": 2\n}\n', hints={"required_keys": ["a"]}),
])
def drop_key(spec: ArtifactSpec):
    """Delete one required key (everywhere the path reaches); max 3 mutants."""
    out = []
    for path in spec.hints.get("required_keys", [])[:3]:
        doc = load_doc(spec)
        hits = parents(doc, path)
        if not hits:
            continue
        for d, k in hits[:1]:     # one occurrence is enough to break "every X has k"
            del d[k]
        out.append((dump_doc(doc, spec), f"dropped {path}"))
    return out


@operator("swap_type", "v1", ("json",), DESTROYING, examples=[
    Example("json", '{"a": 1}\n', '{\n  "a": "1"\n}\n', hints={"required_keys": ["a"]}),
])
def swap_type(spec: ArtifactSpec):
    """Change a required key's value to another JSON type; max 3 mutants."""
    out = []
    for path in spec.hints.get("typed_keys", spec.hints.get("required_keys", []))[:3]:
        doc = load_doc(spec)
        hits = parents(doc, path)
        if not hits:
            continue
        d, k = hits[0]
        d[k] = swap_type_value(d[k])
        out.append((dump_doc(doc, spec), f"{path} type swapped"))
    return out


@operator("reformat_whitespace", "v1", ("json",), PRESERVING, examples=[
    Example("json", '{"a": [1, 2]}\n', '{"a":[1,2]}\n', PRESERVING),
])
def reformat(spec: ArtifactSpec):
    """Re-serialise compactly (same document, different whitespace)."""
    return [(dump_doc(load_doc(spec), spec, indent=None, separators=(",", ":")), "compact")]


def _reverse_keys(v):
    if isinstance(v, dict):
        return {k: _reverse_keys(v[k]) for k in reversed(list(v))}
    if isinstance(v, list):
        return [_reverse_keys(x) for x in v]
    return v


@operator("reorder_items", "v1", ("json",), PRESERVING, examples=[
    Example("json", '{"a": 1, "b": [1, 2]}', '{\n  "b": [\n    2,\n    1\n  ],\n  "a": 1\n}', PRESERVING, hints={"unordered_lists": ["b"]}),
])
def reorder(spec: ArtifactSpec):
    """Reverse the key order of every object and the items of declared unordered lists."""
    doc = _reverse_keys(load_doc(spec))
    for path in spec.hints.get("unordered_lists", []):
        for d, k in parents(doc, path):
            if isinstance(d[k], list):
                d[k] = d[k][::-1]
    return [(dump_doc(doc, spec), "keys and unordered lists reversed")]
