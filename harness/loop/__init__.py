"""harness.loop: bounded loops that build the mutant corpus (a worker, a gate, the ledger), their
graphs, runs and scripted workers, and the reproduction of the paper's loop runs. Imports the
harness layers below it and the ``corpus`` package (which imports only ``harness.core``)."""
