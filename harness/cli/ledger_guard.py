"""Every command that reads a run's records ledger verifies its chain first (issue 34), as
``harness view`` and ``harness export`` do: ``harness monitor``, ``harness analyze``, ``harness
compare``, ``harness reproduce paper``, ``harness export bundle`` and ``harness rejudge``. A ledger with a problem (an edited, deleted, inserted or
reordered line, an edited head: ``harness.ledger.ledger.inspect``) gets one warning line on stderr
and the command goes on reading it as it is; with ``--strict`` the command refuses (exit 2) before
reading a number from it.

A records file that is not a hash-chained ledger (records made elsewhere, as ``harness analyze``
accepts: no ``records.head`` beside it and no ``hash`` on its first line) has no chain to verify and
is read as before. The crash states a run in progress shows (a torn last line, a head one record
behind) are not problems here: ``--resume`` repairs them.

The check lives in the command line layer because ``analysis`` may import ``harness.core`` only
(tests/architecture/test_layers.py); ``wrap`` adds it around the lazily loaded commands (``harness.cli.cli``)."""
from __future__ import annotations

from pathlib import Path

import click

from harness.core import runio
from harness.core.errors import InputError

# command name -> the parameters naming a run directory or records file it reads
LEDGER_PARAMS: dict[str, tuple[str, ...]] = {
    "analyze": ("records",),
    "monitor": ("run_dir",),
    "compare": ("run_a", "run_b"),
    "paper": ("records", "paired_a", "paired_b"),
    "bundle": ("run",),  # `export bundle`: evidence others verify is not published silently from an edited ledger
    "rejudge": ("run",),  # "identical" is a claim about the run's records
}


def ledger_of(source: str | Path) -> Path | None:
    """The hash-chained ledger ``source`` names (a run directory's records.jsonl, or a records file
    with a head or hashed lines), else None."""
    p = Path(source)
    path = p / "records.jsonl" if p.is_dir() else p
    if not (path.exists() or path.is_symlink()):
        return None
    if path.with_suffix(".head").exists():
        return path
    first = runio.read_prefix(path, 1 << 16, "records file").split(b"\n", 1)[0]
    return path if b'"hash"' in first and b'"seq"' in first else None


def check(source: str | Path, strict: bool) -> str | None:
    """The warning line for ``source``'s ledger (None when it verifies or is not a ledger);
    InputError with ``strict``."""
    from harness.ledger.ledger import inspect
    path = ledger_of(source)
    if path is None:
        return None
    problems = inspect(path).problems
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    first = problems[0].encode("unicode_escape", "replace").decode("ascii")
    if strict:
        raise InputError(str(path), "ledger", f"does not verify: {first}{more}; --strict refuses to read numbers "
                         "from it (harness ledger verify lists every problem)")
    return (f"warning: {path} does not verify: {first}{more}; the numbers shown are read from it as it is "
            "(harness ledger verify lists every problem; --strict refuses)")


def wrap(cmd: click.Command, name: str | None = None) -> click.Command:
    """``cmd`` with the ledger check before its body (and ``--strict`` unless it has one)."""
    params = LEDGER_PARAMS.get(name or cmd.name or "")
    if isinstance(cmd, click.Group):
        for sub_name, sub in cmd.commands.items():
            wrap(sub, sub_name)
        return cmd
    if not params or getattr(cmd, "_ledger_checked", False) or cmd.callback is None:
        return cmd
    own_strict = any(p.name == "strict" for p in cmd.params)
    if not own_strict:
        cmd.params.append(click.Option(["--strict"], is_flag=True, help="refuse a records ledger that does not "
                                       "verify (default: warn and read it as it is)"))
    body = cmd.callback

    def checked(**kwargs):
        strict = kwargs.get("strict", False) if own_strict else kwargs.pop("strict", False)
        for p in params:
            if kwargs.get(p):
                warning = check(kwargs[p], strict)
                if warning:
                    click.echo(warning, err=True)
        return body(**kwargs)

    cmd.callback = checked
    cmd._ledger_checked = True  # type: ignore[attr-defined]
    return cmd
