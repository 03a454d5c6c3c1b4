"""An example proof-harness plug-in: one part of every kind (see CONTRIBUTING.md)."""
