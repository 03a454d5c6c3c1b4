"""``harness.cli.cli.LAZY_COMMANDS``: the commands of the analysis stage, the corpus, the viewer and
Inspect interop load when used, so ``harness run`` (and every ``--resume``) starts without pandas,
scipy or statsmodels, while ``harness --help`` and each command behave as when they were imported
at start-up."""
from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner

import analysis.cli
import corpus.cli
import interop.cli
import viewer.cli
from harness.cli.cli import LAZY_COMMANDS, main
from support.scripted import REPO

HEAVY = ("pandas", "scipy", "statsmodels", "numpy", "pyarrow", "matplotlib", "analysis", "corpus", "viewer", "interop")


def test_resolving_run_imports_nothing_of_the_analysis_stack():
    code = ("import sys, click\nimport harness.cli.cli as c\n"
            "c.main.get_command(click.Context(c.main), 'run')\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert set(out.stdout.split()) & set(HEAVY) == set()


def test_the_lazy_table_names_every_command_the_packages_register():
    """Each package's ``register`` is its own list of top-level commands; the table must not miss one."""
    group = click.Group()
    for package in (analysis.cli, corpus.cli, viewer.cli, interop.cli):
        package.register(group)
    assert set(group.commands) == set(LAZY_COMMANDS)


def test_every_lazy_command_loads_under_its_name_with_the_harness_additions():
    ctx = click.Context(main)
    for name in LAZY_COMMANDS:
        assert main.get_command(ctx, name).name == name
    assert "bounded-loops" in main.get_command(ctx, "reproduce").commands
    assert "reviewer" in main.get_command(ctx, "corpus").commands


def test_help_lists_every_command_and_a_lazy_one_runs():
    listed = CliRunner().invoke(main, ["--help"]).output
    assert all(f"\n  {name} " in listed for name in [*LAZY_COMMANDS, "run", "plan"])
    assert "paper" in CliRunner().invoke(main, ["reproduce", "--help"]).output
