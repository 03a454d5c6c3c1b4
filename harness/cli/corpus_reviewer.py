"""``harness corpus reviewer``: score reviewers as (catchRate, falseBlock) over labelled items or the
task corpus. Added to the corpus command group here (``corpus_with_reviewer``, which
``harness.cli.cli`` loads as ``harness corpus``), not by ``corpus.cli``: an engine-backed reviewer
builds harness engines, which the corpus package may not import."""
from __future__ import annotations

import json
from pathlib import Path

import click

from harness.core import runio
from harness.core.errors import ExitCode
from harness.loop import reviewer_discrimination as rd


@click.command("reviewer")
@click.option("--items", "items_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSON list of {prompt, diff, is_defective} (the label is never shown to a reviewer)")
@click.option("--tasks", "tasks_dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="score over the task corpus: plausible-wrong candidates vs reference/correct controls")
@click.option("--engine", default=None, help="also score a reviewer engine (simulated, anthropic, openai)")
@click.option("--model", default=None, help="model id for a live reviewer engine")
@click.option("--reviewer", "which", default="all",
              type=click.Choice(["all", "test-only", "block-all", "oracle"]))
@click.option("--out", "out_file", type=click.Path(dir_okay=False, path_type=Path))
def reviewer_cmd(items_path, tasks_dir, engine, model, which, out_file):
    """Score reviewers as (catchRate, falseBlock): the three references and optionally an engine."""
    if bool(items_path) == bool(tasks_dir):
        raise click.UsageError("give exactly one of --items FILE or --tasks DIR")
    if items_path:
        try:
            items = rd.items_from_json(runio.read_json(items_path, "items file"))
        except (ValueError, runio.UnsafeFile) as exc:
            raise click.UsageError(f"{items_path}: not a JSON list of items: {exc}")
        except TypeError as exc:  # a field of the wrong type, named
            raise click.UsageError(f"{items_path}: {exc}")
        except (KeyError, AttributeError) as exc:
            raise click.UsageError(f"{items_path}: each item needs prompt, diff and is_defective ({exc!r})")
    else:
        items = rd.items_from_tasks(rd.read_task_dirs(tasks_dir))
    results = rd.score_references(items, only=None if which == "all" else which)
    if engine:
        if not tasks_dir:
            raise click.UsageError("--engine needs --tasks (the engine is built per task)")
        results.append(rd.score(rd.engine_reviewer(engine, tasks_dir, model), items, name=engine))
    for r in results:
        click.echo(r.fmt())
    if out_file:
        runio.write_atomic(out_file, json.dumps([r.as_dict() for r in results], indent=2) + "\n",
                           f"harness corpus reviewer --out {out_file}", ExitCode.BAD_INPUT)


def corpus_with_reviewer() -> click.Group:
    """The ``corpus`` command group with ``reviewer`` added (once)."""
    from corpus.cli import corpus
    if "reviewer" not in corpus.commands:
        corpus.add_command(reviewer_cmd)
    return corpus
