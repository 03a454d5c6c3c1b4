"""Markdown / plain-text operators (v1).

Hints read from the requirement: ``required_sections`` (heading texts), ``obligations``
(phrases the document must assert, each containing a modal verb), ``comment_prefix`` (text).
"""
from __future__ import annotations

import re

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator
from corpus.operators.lines import join as _join
from corpus.operators.lines import lines as _lines

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+])\s+")
MODALS = ("shall", "must", "will", "agrees to", "is required to")


def sections(lines: list[str]) -> list[tuple[int, int, str]]:
    """(start, end, heading text) for each heading; end is exclusive."""
    idx = [(i, len(m.group(1)), m.group(2)) for i, l in enumerate(lines) if (m := HEADING.match(l))]
    out = []
    for n, (i, level, title) in enumerate(idx):
        end = len(lines)
        for j, deeper, _ in idx[n + 1:]:
            if deeper <= level:
                end = j
                break
        out.append((i, end, title))
    return out


def negate_phrase(phrase: str) -> str | None:
    """'shall keep X' -> 'shall not keep X' (first modal only); None if no modal verb."""
    for modal in MODALS:
        m = re.search(rf"\b{re.escape(modal)}\b", phrase, re.I)
        if m:
            return phrase[:m.end()] + " not" + phrase[m.end():]
    return None


@operator("hollow", "v1", ("markdown",), DESTROYING, probe="hollowing", examples=[
    Example("markdown", "# T\n\nbody\n## S\ntext\n", "# T\n\n## S\n"),
    Example("markdown", "no heading\n", NO_MUTANT),
])
def hollow_markdown(spec: ArtifactSpec):
    """Keep every heading, drop every line of content beneath them."""
    lines = _lines(spec)
    kept = [l for l in lines if HEADING.match(l) or not l.strip()]
    if not any(HEADING.match(l) for l in lines):
        return []
    return [(_join(kept, spec), "headings kept, content dropped")]


@operator("hollow", "v1", ("text",), DESTROYING, probe="hollowing", examples=[
    Example("text", "FROM python:3.11 AS base\n# keep\nUSER app\n", "FROM\n# keep\nUSER\n"),
])
def hollow_text(spec: ArtifactSpec):
    """Keep the first word of every line (the line's 'keyword'), drop the rest."""
    lines = [l.split()[0] if l.strip() and not l.lstrip().startswith("#") else l
             for l in _lines(spec)]
    return [(_join(lines, spec), "first word of each line kept")]


@operator("drop_section", "v1", ("markdown",), DESTROYING, examples=[
    Example("markdown", "# D\n## Term\nTwo years.\n## Law\nX.\n", "# D\n## Law\nX.\n", hints={"required_sections": ["Term"]}),
    Example("markdown", "# D\n## Term\nx\n", NO_MUTANT),
])
def drop_section(spec: ArtifactSpec):
    """Remove one required section (heading and body); one mutant per required section, max 3."""
    req = [r.lower() for r in spec.hints.get("required_sections", [])]
    lines = _lines(spec)
    out: list[tuple] = []
    for start, end, title in sections(lines):
        if title.strip().lower() in req and len(out) < 3:
            out.append((_join(lines[:start] + lines[end:], spec), f"dropped section {title!r}"))
    return out


@operator("negate_obligation", "v1", ("markdown", "text"), DESTROYING, examples=[
    Example("markdown", "The party shall keep records.\n", "The party shall not keep records.\n", hints={"obligations": ["shall keep records"]}),
])
def negate_obligation(spec: ArtifactSpec):
    """Insert 'not' after the modal verb of a required obligation (heading kept); max 3."""
    out = []
    for phrase in spec.hints.get("obligations", [])[:3]:
        i = spec.text.lower().find(phrase.lower())
        if i < 0:
            continue
        found = spec.text[i:i + len(phrase)]
        neg = negate_phrase(found)
        if neg:
            out.append(((spec.text[:i] + neg + spec.text[i + len(phrase):]).encode(),
                        f"negated {found!r}"))
    return out


@operator("reformat_whitespace", "v1", ("markdown", "text"), PRESERVING, examples=[
    Example("markdown", "# T\n\ntext\n", "# T \n\n\ntext  \n", PRESERVING),
    Example("text", "a b\n", "a b \n", PRESERVING),
])
def reformat_whitespace(spec: ArtifactSpec):
    """Double every blank line and add trailing spaces to content lines."""
    out = []
    for l in _lines(spec):
        if not l.strip():
            out += ["", ""]
        elif spec.kind == "markdown" and not HEADING.match(l):
            out.append(l + "  " if not l.endswith("  ") else l)
        else:
            out.append(l + " ")
    return [(_join(out, spec), "blank lines doubled, trailing spaces added")]


@operator("reorder_items", "v1", ("markdown",), PRESERVING, examples=[
    Example("markdown", "- a\n- b\n", "- b\n- a\n", PRESERVING),
    Example("markdown", "- a\n", NO_MUTANT),
])
def reorder_items(spec: ArtifactSpec):
    """Reverse the items of every unordered bullet list (lists of independent items)."""
    lines = _lines(spec)
    out, i, changed = [], 0, False
    while i < len(lines):
        if _BULLET.match(lines[i]) and not lines[i].startswith((" ", "\t")):
            j = i
            while j < len(lines) and (_BULLET.match(lines[j]) and not lines[j].startswith((" ", "\t"))):
                j += 1
            block = lines[i:j]
            if len(block) > 1:
                changed = changed or block != block[::-1]
                block = block[::-1]
            out += block
            i = j
        else:
            out.append(lines[i])
            i += 1
    return [(_join(out, spec), "bullet items reversed")] if changed else []


@operator("add_comment", "v1", ("markdown", "text"), PRESERVING, examples=[
    Example("markdown", "# T\n", "# T\n<!-- reviewed: formatting only -->\n", PRESERVING),
    Example("text", "a\n", "a\n# reviewed: formatting only\n", PRESERVING, hints={"comment_prefix": "#"}),
    Example("text", "a\n", NO_MUTANT),
])
def add_comment(spec: ArtifactSpec):
    """Append a comment line (HTML comment for markdown, the declared prefix for text)."""
    if spec.kind == "markdown":
        c = "<!-- reviewed: formatting only -->"
    else:
        prefix = spec.hints.get("comment_prefix")
        if not prefix:
            return []
        c = f"{prefix} reviewed: formatting only"
    text = spec.text if spec.text.endswith("\n") else spec.text + "\n"
    return [((text + c + "\n").encode(), "comment appended")]
