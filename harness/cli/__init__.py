"""harness.cli: the ``harness`` command (``harness.cli.cli.main``), the record schema command, task
validation and plug-in listing. The top layer: it may import every layer below it and the
``analysis``, ``corpus``, ``viewer`` and ``interop`` packages."""
