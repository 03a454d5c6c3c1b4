"""Hand-made paired records for the `harness compare` specifications: seven cells over four tasks."""
from __future__ import annotations

from analysis.paired_paper import _row

CELLS = [("t1", "null", 1), ("t1", "B2", 1), ("t2", "null", 1), ("t2", "B2", 1), ("t3", "null", 1),
         ("t3", "B2", 1), ("t4", "null", 1)]


def rows(arm: str, controller: str, outcomes: list[str], **tokens) -> list[dict]:
    """One record per outcome, on CELLS in order; tokens default to 100 in, 10 out, 50 cached."""
    tok = {"tokens_in": 100, "tokens_out": 10, "cache_read_tokens": 50, **tokens}
    return [_row(arm, controller, c, o, dict(tok), 1 if controller == "A4" else 0, "p")
            for c, o in zip(CELLS, outcomes)]
