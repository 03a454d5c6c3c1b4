"""harness.run: running a protocol. The driver (verify, dispatch, settle, finalize), one cell
(``cellrun``), the local and Ray executors, the Ray cluster checks, the pilot projection and the
progress line. Imports only the layers below it; ``viewer`` and ``interop`` may import it."""
