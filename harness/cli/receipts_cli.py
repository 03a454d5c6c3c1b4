"""``harness receipts verify`` and ``harness rejudge`` (issue 33; docs/receipts.md). Registered at
start-up, their modules imported only when invoked (the lazy pattern of ``harness.cli.cli``: a
``harness run`` pays nothing for them).

Exit codes (harness.core.errors.ExitCode): 0 every receipt ok / every replayed cell identical;
1 a receipt failed (one line per failure, with its reason code) / a cell differs; 2 bad input (no
such run or bundle, an unreadable key, an unknown cell key).
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from harness.cli import ledger_guard
from harness.core.errors import ExitCode, InputError


def _bad(exc: Exception) -> None:
    click.echo(f"error: {exc}", err=True)
    sys.exit(int(ExitCode.BAD_INPUT))


@click.group("receipts")
def receipts_grp() -> None:
    """Signed evidence receipts (Proof-or-Stop Eq. 2, Table 5): verify them offline."""


@receipts_grp.command("verify")
@click.argument("run", type=click.Path(exists=True))
@click.option("--public-key", "public_key", required=True, type=click.Path(exists=True, dir_okay=False),
              help="the run's public key (PEM) as you trust it, e.g. the one published beside the run")
@click.option("--no-trees", "no_trees", is_flag=True,
              help="the run was made with --no-keep-trees: check bindings against the records only (not the trees)")
@click.option("--accept-older", "accept_older", is_flag=True,
              help="accept a run made before records were sealed (hx-receipt-1) with its weaker checks, reported")
def receipts_verify(run, public_key, no_trees, accept_older):
    """Check every receipt of RUN (a run directory or an exported bundle) against the records, the stored
    trees and PUBLIC_KEY, offline. One line per failure with its reason code; exit 0 only when all are ok.
    Local-key scope: tamper evidence and freshness, not execution truth against a compromised runner."""
    from harness.core import runio
    from harness.run.bundle import open_source
    from harness.run.receipts_verify import verify_run
    try:  # the safe reader: a FIFO named as the key is refused, never waited on (fault review r34)
        pem = runio.read_bytes(public_key, "public key", limit=1 << 16, follow=True)
        try:  # a key that is not a key is bad input naming it, not a failed check of every receipt
            from harness.ledger.receipts import public_raw_of_pem
            public_raw_of_pem(pem)
        except (ValueError, TypeError) as exc:
            raise InputError(public_key, "--public-key", f"not an ed25519 public key (PEM): {exc}") from None
        with open_source(Path(run)) as root:
            report = verify_run(root, pem, trees=not no_trees, accept_older=accept_older)
    except (InputError, OSError) as exc:
        _bad(exc)
    for f in report.findings:
        click.echo(f.line())
    status = "ok" if report.ok else "REJECTED"
    older = (f"; {report.judge_only} record(s) from before plain-run receipts: their verdicts are checked "
             "against the judge's receipts only" if report.judge_only else "")
    older += (f"; {report.legacy} record(s) of an older run (hx-receipt-1): the records are not sealed (a rewrite "
              "with the hash chain redone is not detected) and their tree digests are the older (path, text) "
              "encoding (docs/receipts.md)" if report.legacy else "")
    click.echo(f"{status}: {report.receipts} receipt(s) over {report.records} record(s), "
               f"{len(report.findings)} failure(s) (local-key scope{'; trees not checked' if no_trees else ''}{older})")
    sys.exit(int(ExitCode.OK if report.ok else ExitCode.CHECK_FAILED))


@click.command("rejudge")
@click.argument("run", type=click.Path(exists=True))
@click.argument("cell_keys", nargs=-1)
@click.option("--sample", type=click.IntRange(min=1), default=None, help="re-judge N cells drawn with --seed")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--public-key", "public_key", default=None, type=click.Path(exists=True, dir_okay=False),
              help="the run's public key (PEM) as you trust it: the receipts and records' seals are checked "
                   "against it (default: the key the run publishes, which whoever published the run chose)")
def rejudge_cmd(run, cell_keys, sample, seed, public_key):
    """Re-run the judge and plain pytest on the stored final tree of each cell of RUN (a run directory
    or a bundle) and compare with its signed final receipts: identical, or the difference named."""
    from harness.core import runio
    from harness.ledger.receipts import public_raw_of_pem
    from harness.run.bundle import open_source, sources
    from harness.run.rejudge import replay_run
    from harness.sandbox.sandbox import Limits
    try:
        trusted = None
        if public_key is not None:
            try:
                trusted = public_raw_of_pem(runio.read_bytes(public_key, "public key", limit=1 << 16, follow=True))
            except (ValueError, TypeError) as exc:
                raise InputError(public_key, "--public-key", f"not an ed25519 public key (PEM): {exc}") from None
        with open_source(Path(run)) as root:
            tasks_dir, lim = sources(root)
            replay = replay_run(root, tasks_dir, Limits(timeout_s=lim["timeout_s"], memory_mb=lim["memory_mb"]),
                                tuple(cell_keys), sample, seed, trusted)
    except (InputError, OSError) as exc:  # runio.UnsafeFile is an InputError
        _bad(exc)
    rows = replay.cells
    for line in replay.records:  # the records as a whole (verify's reader): a line appended over a cell, ...
        click.echo(f"{'DIFFERENT':<10} {line}")
    for r in rows:
        click.echo(f"{'identical' if r.identical else 'DIFFERENT':<10} {r.cell_key}"
                   + ("" if r.identical else "  " + " | ".join(r.differences))
                   + "".join(f"  ({n})" for n in r.notes))
    same = sum(r.identical for r in rows)
    whose = ("the key given (--public-key)" if public_key is not None else
             "the run's published key (receipts/public_key.pem): pass --public-key to check them against one you trust")
    click.echo(f"{same}/{len(rows)} cell(s) identical (same verdict and output digest, visible and hidden, "
               f"judged and plain; receipts checked against {whose})"
               + (f"; the records: {len(replay.records)} finding(s)" if replay.records else ""))
    sys.exit(int(ExitCode.OK if rows and same == len(rows) and not replay.records else ExitCode.CHECK_FAILED))


def register(group: click.Group) -> None:
    group.add_command(receipts_grp)
    group.add_command(ledger_guard.wrap(rejudge_cmd))  # the run's ledger verified first (warn; --strict refuses)
