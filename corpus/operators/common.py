"""Operators that apply to every artifact kind: delete, empty, truncate."""
from __future__ import annotations

from corpus.model import DESTROYING, KINDS, ArtifactSpec
from corpus.operators import operator


@operator("delete", "v1", KINDS, DESTROYING, probe="absence")
def delete(spec: ArtifactSpec):
    """Remove the artifact file."""
    return [(None, "artifact deleted")]


@operator("empty", "v1", KINDS, DESTROYING, probe="absence")
def empty(spec: ArtifactSpec):
    """Keep the file, remove every byte."""
    return [(b"", "artifact emptied")]


@operator("truncate", "v1", KINDS, DESTROYING)
def truncate(spec: ArtifactSpec):
    """Keep the first 40% of the artifact (cut at a character boundary)."""
    text = spec.text
    cut = max(1, int(len(text) * 0.4))
    if cut >= len(text):
        return []
    return [(text[:cut].encode(), f"truncated to {cut} of {len(text)} characters")]
