"""``harness plugins``: every registered part by kind, with where it came from.

A part's origin is "built-in" or the installed distribution (name and version) whose entry point
added it (harness.core.registry).
"""
from __future__ import annotations

import json
import sys

import click

from harness.core.registry import KINDS, RegistryError


def listing() -> dict[str, list[dict]]:
    """{kind: [{name, origin, params, flags, doc}]} for every registered part, in registration order."""
    out: dict[str, list[dict]] = {}
    for kind, registry in KINDS.items():
        out[kind] = [{"name": p.name, "origin": p.origin,
                      "params": {k: _show(v) for k, v in p.defaults().items()} if p.params else {},
                      "flags": {k: _show(v) for k, v in p.flags.items()}, "doc": p.doc} for p in registry]
    return out


def _show(value: object) -> object:
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


def register(main: click.Group) -> None:
    @main.command("plugins")
    @click.option("--kind", type=click.Choice(sorted(KINDS)), default=None, help="list only this kind")
    @click.option("--json", "as_json", is_flag=True, help="machine-readable output")
    def plugins(kind: str | None, as_json: bool) -> None:
        """List every registered engine, arm, scenario hook, detector, gate kind, operator and executor, with its origin."""
        try:
            rows = listing()
        except RegistryError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        if kind:
            rows = {kind: rows[kind]}
        if as_json:
            click.echo(json.dumps(rows, indent=1))
            return
        for k, parts in rows.items():
            click.echo(f"{k} ({len(parts)}):")
            for p in parts:
                flags = " ".join(f"{f}={v}" for f, v in p["flags"].items() if f not in ("keys", "required"))
                click.echo(f"  {p['name']:<34} {p['origin']:<24} {flags}".rstrip())
