"""Operators that apply to every artifact kind: delete, empty, truncate."""
from __future__ import annotations

from corpus.model import DESTROYING, KINDS, ArtifactSpec
from corpus.operators import NO_MUTANT, Example, operator


@operator("delete", "v1", KINDS, DESTROYING, probe="absence", examples=[
    Example("json", "{}\n", None),
    Example("python", "x = 1\n", None),
])
def delete(spec: ArtifactSpec):
    """Remove the artifact file."""
    return [(None, "artifact deleted")]


@operator("empty", "v1", KINDS, DESTROYING, probe="absence", examples=[
    Example("markdown", "# T\n", ""),
])
def empty(spec: ArtifactSpec):
    """Keep the file, remove every byte."""
    return [(b"", "artifact emptied")]


@operator("truncate", "v1", KINDS, DESTROYING, examples=[
    Example("text", "0123456789", "0123"),
    Example("text", "a", NO_MUTANT),
])
def truncate(spec: ArtifactSpec):
    """Keep the first 40% of the artifact (cut at a character boundary)."""
    text = spec.text
    cut = max(1, int(len(text) * 0.4))
    if cut >= len(text):
        return []
    return [(text[:cut].encode(), f"truncated to {cut} of {len(text)} characters")]
