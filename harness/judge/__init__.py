"""harness.judge: judging a test run. The probe and its sandboxed runtime (``probe_runtime``,
``subject_main`` and ``subject_rpc`` are copied into each run by path, so they stay side by side with
``probes``), the verdict (``judge``), the confined pytest run (``testrun``) and its cache, the
detectors and the secret decoder, the workspace watch, the tool log and the tree diff. Imports only
the layers below it."""
