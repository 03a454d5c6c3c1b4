"""Tier-1 operator families, blind to the gates.

A generator sees an :class:`~corpus.model.ArtifactSpec` (the conforming artifact and the
requirement's hints) and nothing else: no module in this package imports gate code, reads a
gate file, or opens any file at all (tests/corpus/test_blindness.py walks the AST to prove it).
Each operator carries a fixed label that holds for any artifact of its kind satisfying the
requirement's hints; where a label would depend on the gate, the operator is not applicable.

Family ``v1`` is the corpus the catalogue's gates were repaired against. Family ``v2`` holds
operators the gates never saw (measured against frozen gates, the paper's Table 9). Family
``fine`` is the fine-grained Python family (one small change per mutant, as mutmut and
cosmic-ray make them), built to find the test gaps whole-file operators cannot.

Every operator declares ``examples``: (input, expected mutant, label) triples, cosmic-ray style;
tests/corpus/test_operator_examples.py checks every registered operator against its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from corpus.equivalence import identical_bytecode
from corpus.model import DESTROYING, EQUIVALENT, PRESERVING, ArtifactSpec, Mutant
from harness.core.registry import OPERATORS

# An operator function returns a list of (content-or-None, note) pairs, or (content, note, label)
# triples where a cheap check proved the mutant equivalent; an empty list = not applicable.
OpFn = Callable[[ArtifactSpec], list[tuple]]

NO_MUTANT = object()   # an example whose input the operator must leave alone


@dataclass(frozen=True)
class Example:
    """``before`` (artifact text) -> ``after`` (one of the operator's mutants; None = deleted;
    NO_MUTANT = the operator does not apply), carrying ``label``."""

    kind: str
    before: str
    after: object
    label: str = DESTROYING
    hints: dict = field(default_factory=dict)

    def spec(self) -> ArtifactSpec:
        return ArtifactSpec(loop="example", kind=self.kind, target="example", content=self.before.encode(),
                            hints=dict(self.hints))


@dataclass(frozen=True)
class Operator:
    name: str
    family: str
    kinds: tuple[str, ...]
    label: str
    fn: OpFn
    probe: str | None = None     # "absence" | "hollowing" | "self-attestation": a vacuity probe
    engine: str = "text"         # "libcst" for Python source operators built on libcst
    doc: str = ""
    declared_examples: tuple[Example, ...] = ()
    opt_in: bool = False         # generated only when the hints' extra_operators names it

    def examples(self) -> tuple[Example, ...]:
        return self.declared_examples

    def apply(self, spec: ArtifactSpec) -> list[tuple[bytes | None, str, str]]:
        """(content, note, label) per mutant. A Python mutant of a destroying operator whose
        bytecode is identical to the artifact's is relabelled EQUIVALENT (corpus/equivalence.py),
        unless the operator says (a fourth item, True) it compared the bytecode itself."""
        out = []
        for item in self.fn(spec):
            content, note = item[0], item[1]
            label = item[2] if len(item) > 2 else self.label
            assert label in (self.label, EQUIVALENT), (self.name, label)
            checked = len(item) > 3 and item[3]     # the operator compared the bytecode itself
            if label == DESTROYING and spec.kind == "python" and content is not None and not checked and \
                    identical_bytecode(spec.text, content.decode("utf-8")):
                label, note = EQUIVALENT, f"{note} [equivalent: identical bytecode]"
            out.append((content, note, label))
        return out


FAMILIES = ("v1", "v2", "fine")


def operator(name: str, family: str, kinds: Iterable[str], label: str, *, probe: str | None = None,
             engine: str = "text", examples: Iterable[Example] = (), opt_in: bool = False) -> Callable[[OpFn], OpFn]:
    assert label in (DESTROYING, PRESERVING), label
    assert family and isinstance(family, str), family  # FAMILIES are the built-in ones; a plug-in may add its own

    def deco(fn: OpFn) -> OpFn:
        op = Operator(name, family, tuple(kinds), label, fn, probe, engine, (fn.__doc__ or "").strip(), tuple(examples),
                      opt_in)
        # one name may serve several artifact kinds (each its own function): the part's name says which
        OPERATORS.add(f"{family}/{name}[{'+'.join(op.kinds)}]", op, module=fn.__module__, family=family,
                      label=label)
        return fn
    return deco


def operators(family: str | None = None, kind: str | None = None) -> list[Operator]:
    """The registered operators (built-in and installed plug-ins), in registration order."""
    return [op for op in (part.obj for part in OPERATORS) if (family is None or op.family == family)
            and (kind is None or kind in op.kinds)]


def generate(spec: ArtifactSpec, family: str = "v1") -> list[Mutant]:
    """Every mutant of ``family`` for this artifact, in a deterministic order (an opt-in operator
    only when the hints' ``extra_operators`` names it)."""
    out: list[Mutant] = []
    seen: set[bytes | None] = {spec.content}
    for op in operators(family, spec.kind):
        if op.name in spec.not_applicable or op.opt_in and op.name not in spec.hints.get("extra_operators", ()):
            continue
        for i, (content, note, label) in enumerate(op.apply(spec)):
            if content in seen:      # an operator that changed nothing, or a duplicate
                continue
            seen.add(content)
            out.append(Mutant(id=f"{spec.loop}/{family}/{op.name}/{i}", loop=spec.loop,
                              family=family, tier=1, operator=op.name, label=label,
                              parent_digest=spec.digest, target=spec.target, content=content,
                              probe=op.probe, note=note, meta={"engine": op.engine}))
    return out
