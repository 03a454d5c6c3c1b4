"""Tier 2: hand-authored semantic mutants stored as files with metadata.

``<loop>/tier2/<name>/meta.toml``::

    [mutant]
    label = "destroying"            # or "preserving"
    pattern = "obligation negated under a kept heading"   # the paper's Table 6 class
    defect = "what is wrong, in words"
    why_not_mechanical = "why no tier-1 operator can construct it"
    deleted = false                 # true: the mutant is the artifact's absence
    probe = ""                      # optional vacuity probe: absence | hollowing | self-derived-scope
    parent_digest = "<sha256 of the conforming target the author started from>"
    authoring_digest = "<see authoring_digest()>"

The mutated target file sits beside meta.toml under the loop's target file name. The authoring
digest covers exactly what the author was shown (the requirement, the conforming artifact) and
what they wrote (the mutant); no gate file enters it, and a test recomputes it.
"""
from __future__ import annotations

import hashlib
import re
import tomllib

from corpus.model import LABELS, Mutant, sha256

AUTHORING_INPUTS = ("requirement", "conforming artifact", "mutant bytes")


def authoring_digest(requirement: str, parent: bytes, mutant: bytes | None) -> str:
    h = hashlib.sha256(b"tier2-authoring-v1\0")
    h.update(requirement.strip().encode() + b"\0")
    h.update(parent + b"\0")
    h.update(b"<deleted>" if mutant is None else mutant)
    return h.hexdigest()


def load_tier2(loop) -> list[Mutant]:
    """Every tier-2 mutant of ``loop`` (a corpus.catalogue.Loop), sorted by name."""
    root = loop.dir / "tier2"
    if not root.is_dir():
        return []
    out = []
    for d in sorted(p for p in root.iterdir() if (p / "meta.toml").is_file()):
        meta = tomllib.loads((d / "meta.toml").read_text())["mutant"]
        if meta.get("label") not in LABELS:
            raise ValueError(f"{d}: label must be one of {LABELS}")
        for key in ("defect", "why_not_mechanical", "pattern", "authoring_digest", "parent_digest"):
            if not meta.get(key):
                raise ValueError(f"{d}: meta.toml needs {key!r}")
        content = None if meta.get("deleted") else (d / loop.target).read_bytes()
        out.append(Mutant(id=f"{loop.id}/tier2/{d.name}", loop=loop.id, family="tier2", tier=2,
                          operator=meta["pattern"], label=meta["label"],
                          parent_digest=meta["parent_digest"], target=loop.target,
                          content=content, probe=meta.get("probe") or None,
                          note=meta["defect"], meta={"dir": str(d), **meta}))
    return out


def stamp(loop, name: str) -> str:
    """(Re)compute and write parent_digest and authoring_digest for tier2/<name>/meta.toml."""
    d = loop.dir / "tier2" / name
    meta_path = d / "meta.toml"
    text = meta_path.read_text()
    meta = tomllib.loads(text)["mutant"]
    parent = loop.target_path.read_bytes()
    content = None if meta.get("deleted") else (d / loop.target).read_bytes()
    dig = authoring_digest(loop.requirement, parent, content)
    for key, val in (("parent_digest", sha256(parent)), ("authoring_digest", dig)):
        line = f'{key} = "{val}"'
        if re.search(rf"^{key}\s*=.*$", text, re.M):
            text = re.sub(rf"^{key}\s*=.*$", line, text, flags=re.M)
        else:
            text = text.rstrip("\n") + "\n" + line + "\n"
    meta_path.write_text(text)
    return dig
