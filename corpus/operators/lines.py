"""Line helpers shared by the text-based operator modules (public, so no module reaches into
another's private names)."""
from __future__ import annotations

from corpus.model import ArtifactSpec


def lines(spec: ArtifactSpec) -> list[str]:
    return spec.text.splitlines()


def join(lines: list[str], spec: ArtifactSpec) -> bytes:
    """Join lines back, keeping the artifact's trailing newline (or its absence)."""
    trail = "\n" if spec.text.endswith("\n") else ""
    return ("\n".join(lines) + trail).encode()
