"""Commit-message operators (v1), for conventional-commit style messages."""
from __future__ import annotations

import re

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator

SUBJECT = re.compile(r"^(?P<type>[A-Za-z]+)(?P<scope>\([^)]*\))?(?P<bang>!)?: (?P<desc>.+)$")


def split_message(spec):
    """(subject line, the other lines)."""
    lines = spec.text.splitlines()
    return (lines[0] if lines else ""), lines[1:]


def join_message(subject, rest, spec):
    return ("\n".join([subject] + rest) + ("\n" if spec.text.endswith("\n") else "")).encode()


@operator("swap_type", "v1", ("commit",), DESTROYING, examples=[
    Example("commit", "fix(api): handle nulls\n", "update(api): handle nulls\n"),
    Example("commit", "no type here\n", NO_MUTANT),
])
def swap_type(spec: ArtifactSpec):
    """Replace the commit type with a word outside the conventional set."""
    subj, rest = split_message(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(join_message("update" + subj[m.end("type"):], rest, spec), "type -> update")]


@operator("hollow", "v1", ("commit",), DESTROYING, probe="hollowing", examples=[
    Example("commit", "feat: add x\n\nbody\n", "feat: \n"),
])
def hollow(spec: ArtifactSpec):
    """Keep 'type(scope): ', drop the description and the body."""
    subj, _ = split_message(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(join_message(subj[:m.start("desc")], [], spec), "description dropped")]


@operator("drop_separator", "v1", ("commit",), DESTROYING, examples=[
    Example("commit", "feat!: add x\n", "feat! add x\n"),
])
def drop_separator(spec: ArtifactSpec):
    """Remove the ': ' between type and description."""
    subj, rest = split_message(spec)
    m = SUBJECT.match(subj)
    if not m:
        return []
    return [(join_message(subj[:m.end("bang") if m["bang"] else (m.end("scope") if m["scope"] else m.end("type"))]
                   + " " + m["desc"], rest, spec), "separator dropped")]


@operator("add_body", "v1", ("commit",), PRESERVING, examples=[
    Example("commit", "feat: add x\n", "feat: add x\n\nExplains the change in more detail.\n", PRESERVING),
])
def add_body(spec: ArtifactSpec):
    """Append a body paragraph separated by a blank line."""
    subj, rest = split_message(spec)
    body = rest + ([""] if not rest or rest[-1].strip() else []) + ["Explains the change in more detail."]
    if not rest:
        body = ["", "Explains the change in more detail."]
    return [(join_message(subj, body, spec), "body paragraph added")]


@operator("add_footer", "v1", ("commit",), PRESERVING, examples=[
    Example("commit", "feat: add x\n", "feat: add x\n\nRefs: #123\n", PRESERVING),
])
def add_footer(spec: ArtifactSpec):
    """Append a git trailer (Refs: #123)."""
    subj, rest = split_message(spec)
    tail = rest + ([""] if not rest or rest[-1].strip() else []) + ["Refs: #123"]
    if not rest:
        tail = ["", "Refs: #123"]
    return [(join_message(subj, tail, spec), "trailer added")]
