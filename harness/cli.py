"""The ``harness`` command line (a click group). Side effects live here, not in the modules."""
from __future__ import annotations

import importlib

import click


@click.group()
@click.version_option(package_name="proof-harness")
def main() -> None:
    """Ablation and mutant-corpus harness for LLM coding-agent control policies."""


# Commands contributed by the analysis and corpus packages: each module has register(group).
PLUGIN_MODULES = ("analysis.cli", "corpus.cli")


def _register_plugins() -> None:
    for name in PLUGIN_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # package not built yet; any other error propagates
            if exc.name != name:
                raise
            continue
        mod.register(main)


_register_plugins()
