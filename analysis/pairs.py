"""The matched pairs of two runs (``harness compare``), as columns: shared by the comparison
(``analysis.compare``, which builds them) and the adjudicated divergence (``analysis.adjudicated``,
which reads them), so neither imports the other."""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from harness.core import record


class Col(StrEnum):
    """The columns a records file is read into: those compare holds a side's records in
    (``analysis.compare.Side.cols``, ``Pairs.a``/``b``) and the analysis's tidy table's record columns
    (``analysis.records.TIDY_COLUMNS``, a DataFrame read as ``tidy[Col.ARM]``), each named by a field of the
    record (``harness.core.record.FIELDS``, checked below) or a producer's own field compare screens on
    (``PRODUCER_FIELDS``): one schema the columns are read by, never a string per read. A member is a ``str``
    equal to its field's name, so it indexes a dict or a DataFrame as the name does."""

    ARM = "arm"
    TASK = "task"
    SCENARIO = "scenario"
    REPEAT = "repeat"
    FACTORS = "factors"
    OUTCOME = "outcome"
    SHIPPED = "shipped"
    HIDDEN_PASS = "hidden_pass"
    TOKENS_IN = "tokens_in"
    TOKENS_OUT = "tokens_out"
    CACHE_READ_TOKENS = "cache_read_tokens"
    CACHE_WRITE_TOKENS = "cache_write_tokens"
    REASONING_TOKENS = "reasoning_tokens"
    WALL_S = "wall_s"
    COST_USD = "cost_usd"
    MODEL_ID = "model_id"
    ENGINE = "engine"
    TREE_DIGEST_FINAL = "tree_digest_final"
    REVIEW_ROUNDS = "review_rounds"
    PROTOCOL_DIGEST = "protocol_digest"
    CONTROLLER = "controller"
    TASK_DIGEST = "task_digest"


PRODUCER_FIELDS = (Col.TASK_DIGEST,)  # outside the record's schema: the task's digest a producer may write
_UNKNOWN = [c.value for c in Col if c.value not in record.FIELDS and c not in PRODUCER_FIELDS]
if _UNKNOWN:  # a column is a record's field: a typo, or a field the record lost, fails on import
    raise ImportError(f"analysis.pairs.Col names no record field: {_UNKNOWN}")


@dataclass
class Pairs:
    """The matched pairs, sorted by join key: ``keys`` and each side's PAIR_FIELDS as columns over the pairs
    (``a[field][i]`` is A's value in pair i)."""

    keys: list[str]
    a: dict[str, list]
    b: dict[str, list]

    def __len__(self) -> int:
        return len(self.keys)
