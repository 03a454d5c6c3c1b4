"""``harness export inspect`` and ``harness import inspect``: Inspect AI eval logs (the inspect extra)."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.core.errors import InputError


def register(group: click.Group) -> None:
    group.add_command(export_grp)
    group.add_command(import_grp)


def _fail(exc: Exception):
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


@click.group("export")
def export_grp():
    """Write a run in another tool's format."""


@export_grp.command("bundle")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option("--bundle", "out", required=True, type=click.Path(dir_okay=False), help="the .tar.gz to write")
@click.option("--strict", is_flag=True, help="refuse (exit 2, nothing written) when RUN's records ledger does not verify")
def export_bundle_cmd(run, out, strict):
    """RUN as one self-contained bundle: records, receipts, final trees, protocol and lock, tasks, public key
    (never the private key). `harness receipts verify` and `harness rejudge` work from it alone.
    A ledger that does not verify (tampered, or records.jsonl gone while its head remains) is warned
    about, or with --strict refused."""
    from harness.run.bundle import export_bundle
    from harness.run.records import RECORDS_FILE, ledger_problems
    from viewer.rundir import ledger_warning, one_line
    try:
        problems = ledger_problems(Path(run))
        if problems and strict:
            raise InputError(str(Path(run) / RECORDS_FILE), "ledger", f"does not verify: {one_line(problems[0])}; "
                             "refusing to bundle it under --strict (harness ledger verify lists every problem)")
        export_bundle(Path(run), Path(out))
    except InputError as exc:
        _fail(exc)
    warning = ledger_warning(Path(run), problems)
    if warning:
        click.echo(warning, err=True)
    click.echo(f"wrote {out}")


@export_grp.command("inspect")
@click.argument("run", type=click.Path(exists=True, file_okay=False))
@click.option("--out", "logdir", required=True, type=click.Path(file_okay=False), help="folder for the eval logs")
def export_inspect(run, logdir):
    """One Inspect eval log per arm of RUN (each cell a sample; `inspect view --log-dir LOGDIR` opens them)."""
    from harness.run.records import ledger_problems
    from interop.inspect_logs import export_run
    from viewer.rundir import ledger_warning
    try:
        paths = export_run(Path(run), Path(logdir))
    except InputError as exc:
        _fail(exc)
    warning = ledger_warning(Path(run), ledger_problems(Path(run)))
    if warning:
        click.echo(warning, err=True)
    for p in paths:
        click.echo(f"wrote {p}")
    click.echo(f"{len(paths)} eval log(s); open them with: inspect view --log-dir {logdir}")


@click.group("import")
def import_grp():
    """Read another tool's results as records of the interchange format."""


@import_grp.command("inspect")
@click.argument("logdir", type=click.Path(exists=True, file_okay=False))
@click.option("--arm-from", required=True,
              help="where a sample's arm comes from: model, task, task_args.NAME, metadata.NAME or sample.metadata.NAME")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="records file to write (JSONL, new)")
@click.option("--score", default=None, help="the scorer whose verdict is hidden_pass (default: the first)")
@click.option("--visible-score", default=None, help="a scorer to use as visible_pass (default: none ran)")
def import_inspect(logdir, arm_from, out, score, visible_score):
    """Records from every Inspect eval log under LOGDIR (then: harness analyze OUT)."""
    from interop.inspect_logs import import_logs
    try:
        res = import_logs(Path(logdir), Path(out), arm_from=arm_from, score=score, visible_score=visible_score)
    except InputError as exc:
        _fail(exc)
    arms = ", ".join(f"{a}: {n}" for a, n in sorted(res.arms.items()))
    click.echo(f"wrote {res.records} records from {res.logs} log(s) to {out} ({arms})")
