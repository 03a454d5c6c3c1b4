"""harness.core: the bottom layer. The record, the plug-in registry, the protocol and its cell
matrix, tasks and the narrow task view, typed observations and engine-call types, pricing, errors,
run-directory state files and the safe file primitives, the Wilson interval. Imports nothing above it
(``tests/architecture/test_layers.py``); ``analysis`` and ``corpus`` import only this layer of the harness."""
