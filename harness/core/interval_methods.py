"""The interval method names ``harness analyze`` offers: the protocol validates a hypothesis's
``interval`` against them, and ``analysis.intervals`` computes each (the one list, kept below the
analysis so the protocol needs nothing above the core)."""
from __future__ import annotations

BOOTSTRAP_METHODS = ("studentized-symmetric", "studentized", "percentile", "cluster-t")
# "stratified" / "tango" / "newcombe": the conditional estimand's paired score intervals (analysis.paired),
# computed from the discordant cells rather than cluster totals (``analysis.tables.contrast`` dispatches
# them): stratified by task, pooled (Tango), and Newcombe's hybrid.
CONDITIONAL_METHODS = ("stratified", "tango", "newcombe")
METHODS = CONDITIONAL_METHODS + BOOTSTRAP_METHODS
