"""harness.sandbox: confinement (bubblewrap or namespaces, rlimits, the scrubbed environment), the
warm pytest zygote (``warm`` and ``confine`` stay side by side: the zygote loads ``confine`` by path
and runs ``warm`` as a script), the cell's workspace and process handling. Imports only the layers
below it (``harness.core``, ``harness.ledger``, ``harness.engines``)."""
