"""The matched pairs of two runs (``harness compare``), as columns: shared by the comparison
(``analysis.compare``, which builds them) and the adjudicated divergence (``analysis.adjudicated``,
which reads them), so neither imports the other."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Pairs:
    """The matched pairs, sorted by join key: ``keys`` and each side's PAIR_FIELDS as columns over the pairs
    (``a[field][i]`` is A's value in pair i)."""

    keys: list[str]
    a: dict[str, list]
    b: dict[str, list]

    def __len__(self) -> int:
        return len(self.keys)
