"""The loop catalogue: requirement in words, a conforming artifact, and one or more gates.

Layout, one directory per loop under ``corpus/catalogue/``::

    <loop-id>/loop.toml          [loop] id, title, domains, requirement, gates = [...]
                                 [artifact] kind, target, dir, requirement hints, not_applicable
                                 [tier1] excluded = "reason"   (optional)
    <loop-id>/artifact/          the conforming artifact (target file + any companions)
    <loop-id>/gates/*.toml       gate declarations and the scripts/schemas/suites they use
    <loop-id>/tier2/<name>/      hand-authored mutants: meta.toml + the mutated target file

Generators receive only :meth:`Loop.artifact_spec`; gates are loaded separately.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from corpus.declarations import (
    LOOP_ARTIFACT_KEYS,
    LOOP_KEYS,
    DeclarationError,
    check_hint_values,
    check_table,
    read_toml,
)
from corpus.gates import Gate, load_gate
from corpus.kinds import KindError, check_content
from corpus.model import ArtifactSpec

CATALOGUE_DIR = Path(__file__).resolve().parent / "catalogue"
DOMAINS = ("legal", "finance", "clinical", "security", "infrastructure", "software")
_ARTIFACT_META = ("kind", "target", "dir", "not_applicable")


@dataclass
class Loop:
    id: str
    dir: Path
    title: str
    domains: list[str]
    requirement: str
    kind: str
    target: str
    artifact_dir: Path
    hints: dict
    not_applicable: tuple[str, ...]
    gate_paths: list[Path]
    tier1_excluded: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def target_path(self) -> Path:
        return self.artifact_dir / self.target

    def artifact_spec(self) -> ArtifactSpec:
        return ArtifactSpec(loop=self.id, kind=self.kind, target=self.target,
                            content=self.target_path.read_bytes(), hints=dict(self.hints),
                            not_applicable=self.not_applicable)

    def gates(self) -> list[Gate]:
        return [load_gate(p) for p in self.gate_paths]


class CatalogueError(ValueError):
    pass


def load_loop(d: Path) -> Loop:
    d = Path(d).resolve()
    path = d / "loop.toml"
    try:
        data = read_toml(path)
        extra = sorted(set(data) - {"loop", "artifact", "tier1"})
        if extra:
            raise DeclarationError(f"{path}: unknown table or key {extra[0]!r}")
        lp = check_table(path, "loop", data.get("loop", {}), LOOP_KEYS, ("id", "requirement", "domains", "gates"))
        art = check_table(path, "artifact", data.get("artifact", {}), LOOP_ARTIFACT_KEYS, ("kind", "target"))
        check_hint_values(path, "artifact", art)
        tier1 = check_table(path, "tier1", data.get("tier1", {}), {"excluded": "a string"})
    except DeclarationError as exc:
        raise CatalogueError(str(exc)) from None
    if lp["id"] != d.name:
        raise CatalogueError(f"{d}: loop id {lp['id']!r} differs from its directory name")
    loop = Loop(id=lp["id"], dir=d, title=lp.get("title", lp["id"]), domains=list(lp["domains"]),
                requirement=lp["requirement"].strip(), kind=art["kind"], target=art["target"],
                artifact_dir=d / art.get("dir", "artifact"),
                hints={k: v for k, v in art.items() if k not in _ARTIFACT_META},
                not_applicable=tuple(art.get("not_applicable", [])),
                gate_paths=[d / g for g in lp["gates"]],
                tier1_excluded=tier1.get("excluded"), extra=lp)
    if not loop.target_path.is_file():
        raise CatalogueError(f"{d}: conforming artifact {loop.target_path} missing")
    for p in loop.gate_paths:
        if not p.is_file():
            raise CatalogueError(f"{d}: gate {p} missing")
    try:
        check_content(loop.target_path, loop.target_path.read_bytes(), loop.kind)
    except KindError as exc:
        raise CatalogueError(str(exc)) from None
    return loop


def load_catalogue(root: Path | None = None, only: str | None = None) -> list[Loop]:
    root = Path(root or CATALOGUE_DIR)
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and (p / "loop.toml").is_file())
    loops = [load_loop(p) for p in dirs if only is None or p.name == only]
    if only is not None and not loops:
        raise CatalogueError(f"no loop {only!r} in {root}")
    return loops
