"""harness.ledger: the hash-chained record ledger, the run directory's state (``run.json`` repaired
from the chain), the run-wide spend ledger with its ceiling wrapper, and the closed-form worst case.
Imports only ``harness.core``."""
