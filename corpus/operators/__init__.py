"""Tier-1 operator families, blind to the gates.

A generator sees an :class:`~corpus.model.ArtifactSpec` (the conforming artifact and the
requirement's hints) and nothing else: no module in this package imports gate code, reads a
gate file, or opens any file at all (tests/corpus/test_blindness.py walks the AST to prove it).
Each operator carries a fixed label that holds for any artifact of its kind satisfying the
requirement's hints; where a label would depend on the gate, the operator is not applicable.

Family ``v1`` is the corpus the catalogue's gates were repaired against. Family ``v2`` holds
operators the gates never saw (measured against frozen gates, the paper's Table 9).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from corpus.model import DESTROYING, PRESERVING, ArtifactSpec, Mutant

# An operator function returns a list of (content-or-None, note); an empty list = not applicable.
OpFn = Callable[[ArtifactSpec], list[tuple[bytes | None, str]]]


@dataclass(frozen=True)
class Operator:
    name: str
    family: str
    kinds: tuple[str, ...]
    label: str
    fn: OpFn
    probe: str | None = None     # "absence" | "hollowing": a vacuity probe
    engine: str = "text"         # "libcst" for Python source operators built on libcst
    doc: str = ""


REGISTRY: list[Operator] = []
FAMILIES = ("v1", "v2")


def operator(name: str, family: str, kinds: Iterable[str], label: str, *, probe: str | None = None,
             engine: str = "text") -> Callable[[OpFn], OpFn]:
    assert label in (DESTROYING, PRESERVING), label
    assert family in FAMILIES, family

    def deco(fn: OpFn) -> OpFn:
        REGISTRY.append(Operator(name, family, tuple(kinds), label, fn, probe, engine,
                                 (fn.__doc__ or "").strip()))
        return fn
    return deco


def operators(family: str | None = None, kind: str | None = None) -> list[Operator]:
    _load()
    return [op for op in REGISTRY if (family is None or op.family == family)
            and (kind is None or kind in op.kinds)]


def generate(spec: ArtifactSpec, family: str = "v1") -> list[Mutant]:
    """Every mutant of ``family`` for this artifact, in a deterministic order."""
    out: list[Mutant] = []
    seen: set[bytes | None] = {spec.content}
    for op in operators(family, spec.kind):
        if op.name in spec.not_applicable:
            continue
        for i, (content, note) in enumerate(op.fn(spec)):
            if content in seen:      # an operator that changed nothing, or a duplicate
                continue
            seen.add(content)
            out.append(Mutant(id=f"{spec.loop}/{family}/{op.name}/{i}", loop=spec.loop,
                              family=family, tier=1, operator=op.name, label=op.label,
                              parent_digest=spec.digest, target=spec.target, content=content,
                              probe=op.probe, note=note, meta={"engine": op.engine}))
    return out


def _load() -> None:
    # Importing the modules registers their operators (idempotent).
    from corpus.operators import common, markdown, jsondoc, python_src, pins, commits, v2  # noqa: F401
