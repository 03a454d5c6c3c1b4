"""Plain data shared by the generators and the measurement: artifact specs and mutants.

This module must stay free of gate knowledge: the operator families import it, and the
blindness test (tests/corpus/test_blindness.py) forbids them from importing anything that
knows how a gate is declared or run.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

DESTROYING = "destroying"
PRESERVING = "preserving"
# A mutant a cheap check proved behaviourally identical to the artifact (identical bytecode, or
# a trivially equivalent form). Counted apart: it enters neither the false-accept nor the
# false-reject denominator, and is never judged.
EQUIVALENT = "equivalent"
LABELS = (DESTROYING, PRESERVING)
KINDS = ("markdown", "text", "json", "python", "pins", "commit", "yaml", "toml")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class ArtifactSpec:
    """What a generator may see of a loop: the artifact and the requirement's own hints.

    ``hints`` come from the ``[artifact]`` table of ``loop.toml`` (written from the
    requirement, e.g. its required sections or keys); never from a gate.
    """

    loop: str
    kind: str
    target: str
    content: bytes
    hints: dict = field(default_factory=dict)
    not_applicable: tuple[str, ...] = ()

    @property
    def digest(self) -> str:
        return sha256(self.content)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8")


@dataclass(frozen=True)
class Mutant:
    """One changed artifact. ``content is None`` means the target file was deleted."""

    id: str
    loop: str
    family: str          # "v1", "v2" (tier 1 operator families) or "tier2"
    tier: int
    operator: str
    label: str           # DESTROYING, PRESERVING or EQUIVALENT
    parent_digest: str   # sha256 of the conforming artifact the mutant was made from
    target: str
    content: bytes | None
    probe: str | None = None   # vacuity probe: "absence" | "hollowing" | "self-attestation"
    note: str = ""
    meta: dict = field(default_factory=dict)

    @property
    def digest(self) -> str | None:
        return None if self.content is None else sha256(self.content)

    def as_dict(self) -> dict:
        return {"id": self.id, "loop": self.loop, "family": self.family, "tier": self.tier,
                "operator": self.operator, "label": self.label,
                "parent_digest": self.parent_digest, "target": self.target,
                "mutant_digest": self.digest, "deleted": self.content is None,
                "probe": self.probe, "note": self.note}
