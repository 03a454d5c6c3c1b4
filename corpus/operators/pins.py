"""Requirements / pin-file operators (v1). A pin is ``name[extras]==version``.

Hints: ``required_packages`` (names the requirement says must be present).
"""
from __future__ import annotations

import re

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import Example, operator
from corpus.operators.lines import join as _join
from corpus.operators.lines import lines as _lines

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?P<extras>\[[^\]]*\])?\s*==\s*"
                 r"(?P<version>[^\s;#]+)(?P<rest>.*)$")


def pinned(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    """(line index, PIN match) for each pinned line."""
    return [(i, m) for i, l in enumerate(lines) if (m := PIN.match(l.strip()))]


def pinned_indices(lines: list[str]) -> list[int]:
    return [i for i, _ in pinned(lines)]


@operator("break_pin", "v1", ("pins",), DESTROYING, examples=[
    Example("pins", "a==1.0\nb==2.0\n", "a==1.0\nb\n"),
    Example("pins", "a==1.0\nb==2.0\n", "a\nb==2.0\n"),
])
def break_pin(spec: ArtifactSpec):
    """Remove the version specifier from one pin (the first and the last pinned line)."""
    lines = _lines(spec)
    pins = pinned(lines)
    out: list[tuple] = []
    ends = dict([pins[0], pins[-1]]) if pins else {}   # first and last pin (one if they coincide)
    for i, m in sorted(ends.items()):
        new = lines[:i] + [m["name"] + (m["extras"] or "") + m["rest"]] + lines[i + 1:]
        out.append((_join(new, spec), f"unpinned {m['name']}"))
    return out


@operator("hollow", "v1", ("pins",), DESTROYING, probe="hollowing", examples=[
    Example("pins", "a==1.0\n", "a\n"),
])
def hollow(spec: ArtifactSpec):
    """Keep every package name, drop every version."""
    lines = [(m["name"] if (m := PIN.match(l.strip())) else l) for l in _lines(spec)]
    return [(_join(lines, spec), "names kept, versions dropped")]


@operator("drop_pin", "v1", ("pins",), DESTROYING, examples=[
    Example("pins", "a==1.0\nb==2.0\n", "a==1.0\n", hints={"required_packages": ["b"]}),
])
def drop_pin(spec: ArtifactSpec):
    """Delete the line of one required package (max 2)."""
    req = {r.lower() for r in spec.hints.get("required_packages", [])}
    lines = _lines(spec)
    out: list[tuple] = []
    for i, m in pinned(lines):
        if m["name"].lower() in req and len(out) < 2:
            out.append((_join(lines[:i] + lines[i + 1:], spec), f"dropped line {i + 1}"))
    return out


@operator("reformat_whitespace", "v1", ("pins",), PRESERVING, examples=[
    Example("pins", "a==1.0\n", "a == 1.0\n", PRESERVING),
])
def reformat(spec: ArtifactSpec):
    """Spaces around '==' (legal under PEP 508)."""
    lines = []
    for l in _lines(spec):
        m = PIN.match(l.strip())
        lines.append(f"{m['name']}{m['extras'] or ''} == {m['version']}{m['rest']}" if m else l)
    return [(_join(lines, spec), "spaces around ==")]


@operator("reorder_items", "v1", ("pins",), PRESERVING, examples=[
    Example("pins", "a==1.0\nb==2.0\n", "b==2.0\na==1.0\n", PRESERVING),
])
def reorder(spec: ArtifactSpec):
    """Reverse the order of the lines (a requirements file is a set)."""
    lines = [l for l in _lines(spec)]
    return [(_join(lines[::-1], spec), "lines reversed")]


@operator("add_comment", "v1", ("pins",), PRESERVING, examples=[
    Example("pins", "a==1.0\n", "# pinned for reproducible builds\na==1.0\n", PRESERVING),
])
def add_comment(spec: ArtifactSpec):
    """Prepend a comment line."""
    return [(("# pinned for reproducible builds\n" + spec.text).encode(), "comment prepended")]
