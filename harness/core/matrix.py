"""The cell matrix: arms x tasks x scenarios x repeats (x any extra factors), after applicability.

A cell key is ``arm|task|scenario|repeat`` followed by ``|name=value`` for each extra factor in
sorted order, so a protocol can add a factor (a model, say) without changing the driver or the
analysis: the analysis matches cells on every part of the key except the arm.
"""
from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass

from harness.core.protocol import Protocol


@dataclass(frozen=True, order=True)
class Cell:
    arm: str
    task: str
    scenario: str
    repeat: int
    factors: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        return "|".join([self.arm, self.task, self.scenario, str(self.repeat),
                         *[f"{k}={v}" for k, v in self.factors]])

    @property
    def unit(self) -> str:
        """The matched-cell key: everything but the arm."""
        return self.key.split("|", 1)[1]

    @classmethod
    def from_key(cls, key: str) -> "Cell":
        arm, task, scen, rep, *rest = key.split("|")
        return cls(arm, task, scen, int(rep), tuple((k, v) for k, _, v in (r.partition("=") for r in rest)))

    def factor(self, name: str, default: str | None = None) -> str | None:
        return dict(self.factors).get(name, default)


def enumerate_cells(proto: Protocol) -> list[Cell]:
    """Every applicable cell, in canonical (unshuffled) order."""
    fnames = sorted(proto.factors)
    levels = [proto.factors[f] for f in fnames]
    cells = []
    for combo in itertools.product(*levels):
        factors = tuple(zip(fnames, combo))
        for task in proto.tasks:
            for scen in proto.scenarios:
                for rep in range(1, proto.repeats + 1):
                    for arm in proto.arms:
                        if scen in proto.applicability[arm.name]:
                            cells.append(Cell(arm.name, task, scen, rep, factors))
    return cells


def run_order(proto: Protocol, cells: list[Cell] | None = None) -> list[Cell]:
    """Seeded random order over (task, scenario, repeat, factors) groups; the arms of one group
    run back to back (in a seeded order), as the paper's validity filters require."""
    cells = enumerate_cells(proto) if cells is None else cells
    groups: dict[str, list[Cell]] = {}
    for c in cells:
        groups.setdefault(c.unit, []).append(c)
    rng = random.Random(proto.seed)
    units = sorted(groups)
    rng.shuffle(units)
    out = []
    for u in units:
        g = sorted(groups[u])
        rng.shuffle(g)
        out.extend(g)
    return out


def plan_counts(cells: list[Cell]) -> tuple[Counter, Counter]:
    """Cells per arm, and per (arm, scenario)."""
    return Counter(c.arm for c in cells), Counter((c.arm, c.scenario) for c in cells)
