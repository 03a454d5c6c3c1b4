"""The ablation harness: protocol -> cell matrix -> arm controllers -> engine -> workspace
-> adjudicator -> hash-chained records. See docs/explanation/architecture.md and ../shared/DESIGN.md.

Layers, bottom to top; a module imports only from its own layer or a lower one (tests/architecture/test_layers.py):
``core``, ``ledger``, ``engines``, ``sandbox``, ``judge``, ``control``, ``run``, ``loop``, ``cli``.
``harness.api`` is the plug-in surface."""
