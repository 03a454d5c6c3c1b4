"""Commit-message operators (v1), for conventional-commit style messages."""
from __future__ import annotations

import re

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import operator

SUBJECT = re.compile(r"^(?P<type>[A-Za-z]+)(?P<scope>\([^)]*\))?(?P<bang>!)?: (?P<desc>.+)$")


def _split(spec):
    lines = spec.text.splitlines()
    return (lines[0] if lines else ""), lines[1:]


def _join(subject, rest, spec):
    return ("\n".join([subject] + rest) + ("\n" if spec.text.endswith("\n") else "")).encode()


@operator("swap_type", "v1", ("commit",), DESTROYING)
def swap_type(spec: ArtifactSpec):
    """Replace the commit type with a word outside the conventional set."""
    subj, rest = _split(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(_join("update" + subj[m.end("type"):], rest, spec), "type -> update")]


@operator("hollow", "v1", ("commit",), DESTROYING, probe="hollowing")
def hollow(spec: ArtifactSpec):
    """Keep 'type(scope): ', drop the description and the body."""
    subj, _ = _split(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(_join(subj[:m.start("desc")], [], spec), "description dropped")]


@operator("drop_separator", "v1", ("commit",), DESTROYING)
def drop_separator(spec: ArtifactSpec):
    """Remove the ': ' between type and description."""
    subj, rest = _split(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(_join(subj[:m.end("bang") if m["bang"] else (m.end("scope") if m["scope"] else m.end("type"))]
                   + " " + m["desc"], rest, spec), "separator dropped")]


@operator("add_body", "v1", ("commit",), PRESERVING)
def add_body(spec: ArtifactSpec):
    """Append a body paragraph separated by a blank line."""
    subj, rest = _split(spec)
    body = rest + ([""] if not rest or rest[-1].strip() else []) + ["Explains the change in more detail."]
    if not rest:
        body = ["", "Explains the change in more detail."]
    return [(_join(subj, body, spec), "body paragraph added")]


@operator("add_footer", "v1", ("commit",), PRESERVING)
def add_footer(spec: ArtifactSpec):
    """Append a git trailer (Refs: #123)."""
    subj, rest = _split(spec)
    tail = rest + ([""] if not rest or rest[-1].strip() else []) + ["Refs: #123"]
    if not rest:
        tail = ["", "Refs: #123"]
    return [(_join(subj, tail, spec), "trailer added")]
