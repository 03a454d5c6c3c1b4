"""``harness reproduce``: the analysis stage's paper tables (``analysis.cli.reproduce_grp``) with the
Bounded Loops paper's tables added. Its own module, loaded through ``harness.cli.cli.LAZY_COMMANDS``:
named as ``harness.cli.cli:...`` it imported the command line a second time under
``python -m harness.cli.cli``."""
from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("bounded-loops")
@click.option("--out", default="results/reproduce-bounded-loops", show_default=True, type=click.Path(file_okay=False))
def reproduce_bounded_loops_cmd(out):
    """Tables 1 and 2 of the Bounded Loops paper (predicted vs observed utilisation) from scripted workers."""
    from harness.core import runio
    from harness.core.errors import ExitCode
    from harness.loop.reproduce_loops import render, run, write
    rerun = f"harness reproduce bounded-loops --out {out}"
    runio.make_dir(out, rerun, ExitCode.BAD_INPUT)
    # one writer: two reproductions into one --out interleaved one ledger (hundreds of chain problems,
    # both exiting 0); a second is refused naming the first's PID (exit 2), a kill releases the lock
    with runio.DirLock(out, "reproduce.lock", f"rerun `{rerun}`"):
        rows, problems = run(Path(out))
        text = render(rows)
        write(Path(out), rows, problems, text)
    click.echo(text)
    if problems:
        click.echo("DRIFT: " + "; ".join(problems), err=True)
    click.echo(f"ledger: {Path(out) / 'ledger.jsonl'}")
    sys.exit(0 if all(r.agrees for r in rows) and not problems else 1)


@click.command("receipts")
@click.option("--tasks-dir", default="tasks", show_default=True, type=click.Path(exists=True, file_okay=False),
              help="where the authentic run's task (parse-range) is")
def reproduce_receipts_cmd(tasks_dir):
    """Table 5 of the Proof-or-Stop paper: an authentic receipt bundle from a real A4 cell, its 18 tamper
    classes in seven families, the reason each reaches, false-accept and false-reject."""
    from harness.run.tamper import reproduce
    rows, text = reproduce(Path(tasks_dir))
    click.echo(text)
    sys.exit(0 if not any(r.false_accept or r.false_reject for r in rows) else 1)


def reproduce_group() -> click.Group:
    """``harness reproduce``: the analysis stage's paper tables with ``bounded-loops`` added (once)."""
    from analysis.cli import reproduce_grp
    if "bounded-loops" not in reproduce_grp.commands:
        reproduce_grp.add_command(reproduce_bounded_loops_cmd)
    if "receipts" not in reproduce_grp.commands:
        reproduce_grp.add_command(reproduce_receipts_cmd)
    return reproduce_grp
