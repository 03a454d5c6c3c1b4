"""The command reference, ``docs/reference/cli.md``, generated from the click command tree.

Issue 36: the reference must not drift from the code. Every command and option the ``harness``
group answers to (the lazily loaded ones included, plug-in commands too) is read here from click's
own objects: name, help, usage, arguments, options with their types, defaults and help. Hidden
commands and options are left out, as ``--help`` leaves them out. A test
(``tests/test_docs.py``) fails when the committed file differs from what this module
renders, so a changed option is a changed page in the same commit.

    python -m harness.cli.docs_gen            # rewrite docs/reference/cli.md
    python -m harness.cli.docs_gen --check    # exit 1 (with a diff) when the committed file is stale
"""
from __future__ import annotations

import difflib
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from harness.core import runio

REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / "docs" / "reference" / "cli.md"
REGENERATE = "python -m harness.cli.docs_gen"


def commands(group: click.Group | None = None) -> Iterator[tuple[tuple[str, ...], click.Command, click.Context]]:
    """Every visible command under ``group`` (default: ``harness``), depth first in the order
    ``harness --help`` lists them, as (words after ``harness``, command, its context). A lazy
    command that cannot be loaded raises: a reference must not document a broken install."""
    from harness.cli.cli import main
    root = group or main
    root_ctx = click.Context(root, info_name="harness")
    yield from _walk(root, (), root_ctx)


def _walk(cmd: click.Command, words: tuple[str, ...], ctx: click.Context):
    yield words, cmd, ctx
    if not isinstance(cmd, click.Group):
        return
    for name in cmd.list_commands(ctx):
        sub = cmd.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        if (sub.short_help or "").startswith("(cannot be loaded"):
            raise RuntimeError(f"harness {' '.join((*words, name))} {sub.short_help}")
        yield from _walk(sub, (*words, name), click.Context(sub, info_name=name, parent=ctx))


def find(words: list[str]) -> tuple[click.Command, list[str]]:
    """The deepest command ``words`` (after ``harness``) names, and the words left over."""
    from harness.cli.cli import main
    cmd: click.Command = main
    ctx = click.Context(main, info_name="harness")
    i = 0
    while isinstance(cmd, click.Group) and i < len(words):
        sub = cmd.get_command(ctx, words[i])
        if sub is None:
            break
        cmd, ctx, i = sub, click.Context(sub, info_name=words[i], parent=ctx), i + 1
    return cmd, words[i:]


def option_names(cmd: click.Command) -> set[str]:
    """Every spelling of every option of ``cmd`` (``--x``, ``-x``, ``--no-x``), ``--help`` included."""
    names = {"--help"}
    for p in cmd.params:
        if isinstance(p, click.Option):
            names.update(p.opts)
            names.update(p.secondary_opts)
    return names


def _help(cmd: click.Command) -> str:
    text = (cmd.help or "").split("\f", 1)[0]
    lines = [ln for ln in text.splitlines() if ln.strip() != "\b"]
    return "\n".join(lines).strip()


def _type(p: click.Parameter) -> str:
    t = p.type
    if isinstance(t, click.Choice):
        return " \\| ".join(f"`{c}`" for c in t.choices)
    if isinstance(p, click.Option) and p.is_flag and not p.secondary_opts:
        return "flag"
    return t.name


def _default(p: click.Option) -> str | None:
    d = p.default
    if type(d).__name__ == "Sentinel":  # click's UNSET: no default
        return None
    if callable(d):
        return "computed at run time"
    if d is None or (p.is_flag and d is False and not p.secondary_opts) or d == () or d == []:
        return None
    if p.is_flag and p.secondary_opts:
        return f"`{p.opts[0] if d else p.secondary_opts[0]}`"
    return f"`{d}`"


def _option_line(p: click.Option) -> str:
    spellings = ", ".join(f"`{o}`" for o in [*p.opts, *p.secondary_opts])
    meta = "" if p.is_flag or not p.metavar else f" {p.metavar}"
    bits = [_type(p)]
    if p.multiple:
        bits.append("repeatable")
    if p.required:
        bits.append("required")
    default = _default(p)
    if default:
        bits.append(f"default {default}")
    help_text = " ".join((p.help or "").split())
    return f"- {spellings}{meta} ({'; '.join(bits)}){': ' + help_text if help_text else ''}"


def render() -> str:
    """The whole page, deterministic: no terminal width, path or machine-dependent value in it."""
    out = ["# Command reference", "",
           f"Generated from the `harness` click commands by `{REGENERATE}`; do not edit by hand. "
           "A test fails when this page differs from the commands. Exit codes per command: "
           "[exit-codes.md](exit-codes.md).", ""]
    entries = list(commands())
    out.append("Commands:")
    out.append("")
    for words, cmd, _ctx in entries:
        if words:
            name = " ".join(("harness", *words))
            out.append(f"{'  ' * (len(words) - 1)}- [{name}](#{'-'.join(('harness', *words))})")
    out.append("")
    for words, cmd, ctx in entries:
        name = " ".join(("harness", *words))
        out += [f"## {name}", ""]
        text = _help(cmd)
        if text:
            out += [text, ""]
        pieces = " ".join(cmd.collect_usage_pieces(ctx))
        out += ["```", f"{name} {pieces}".rstrip(), "```", ""]
        args = [p for p in cmd.params if isinstance(p, click.Argument)]
        opts = [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]
        if args:
            out.append("Arguments: " + ", ".join(
                f"`{a.human_readable_name}` ({a.type.name}{', optional' if not a.required else ''}"
                f"{', repeatable' if a.nargs == -1 else ''})" for a in args))
            out.append("")
        if opts:
            out += ["Options:", ""]
            out += [_option_line(p) for p in opts]
            out.append("")
        if isinstance(cmd, click.Group):
            subs = [w for w, _c, _x in entries if len(w) == len(words) + 1 and w[:len(words)] == words]
            out += ["Subcommands: " + ", ".join(f"[{' '.join(w)}](#{'-'.join(('harness', *w))})" for w in subs), ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page, or with ``--check`` say whether the committed one is current (exit 1 if not)."""
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in args:
        old = runio.read_text(TARGET, "command reference") if TARGET.exists() else ""
        if old == text:
            return 0
        sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                   str(TARGET.relative_to(REPO)), "generated"))
        print(f"{TARGET.relative_to(REPO)} is stale: run `{REGENERATE}`", file=sys.stderr)
        return 1
    runio.write_atomic(TARGET, text, REGENERATE)  # through the one atomic writer, as every command writes
    print(f"wrote {TARGET.relative_to(REPO)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
