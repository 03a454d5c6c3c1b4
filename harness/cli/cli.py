"""The ``harness`` command line (a click group). Side effects live here, not in the modules."""
from __future__ import annotations

import importlib
import json
import os
import signal
import sys
from pathlib import Path

import click

from harness.cli import ledger_guard
from harness.cli.plugins import register as register_plugins
from harness.cli.receipts_cli import register as register_receipts
from harness.cli.schema_cli import register as register_schema
from harness.cli.startup import (
    Interrupted,
    arm_command,
    end_startup,
    finish_command,
    guard_startup,
    interruption_in,
    set_hint,
    signal_point,
    stopped_line,
)
from harness.core import runio
from harness.core.errors import ExitCode, HarnessError, InputError
from harness.core.exits import EXIT_CODES, command_exits, exit_code_for
from harness.core.registry import RegistryError
from harness.core.runio import NoSpace, is_no_space, staged_dir

# Commands loaded when they are invoked or listed, not when the harness starts: the analysis stage
# imports pandas, scipy and statsmodels (about 2 s of CPU), which every ``harness run`` and
# ``--resume`` paid before running a cell (click's lazily loaded subcommands). Each value is
# "module:attribute", a click command or a function returning one.
ARGV_KEY = "harness_argv"  # ctx.meta: the command line as typed (runio.typed_command)

LAZY_COMMANDS: dict[str, str] = {
    "analyze": "analysis.cli:analyze_cmd",
    "reproduce": "harness.cli.reproduce_cli:reproduce_group",
    "power": "analysis.cli:power_cmd",
    "monitor": "harness.cli.cli:monitor_cmd",
    "corpus": "harness.cli.corpus_reviewer:corpus_with_reviewer",
    "view": "viewer.cli:view_cmd",
    "export": "interop.cli:export_grp",
    "import": "interop.cli:import_grp",
}


class CommandUnavailable(RegistryError):
    """A ``LAZY_COMMANDS`` command whose module cannot be imported (a broken or partial install:
    a dependency missing or failing to import). Exit 2, one line, as for a plug-in that cannot be
    loaded (``RegistryError``), never a traceback."""

    def __init__(self, name: str, ref: str, exc: Exception) -> None:
        self.name, self.ref = name, ref
        super().__init__(f"harness {name} cannot be loaded ({ref}): {type(exc).__name__}: {exc}; "
                         "reinstall the harness (make .venv/.installed)")


def load_command(ref: str) -> click.Command:
    """The command ``ref`` ("module:attribute" in ``LAZY_COMMANDS``) names. Its import is still
    start-up: a SIGINT or SIGTERM during it is ``on_startup_signal``'s one line and exit 4, as for
    the imports ``harness.cli.entry.main`` guards, not click's "Aborted!" and exit 1. A factory
    (``reproduce_group``, ``corpus_with_reviewer``) is called under the guard too: its body is
    where the heavy import (``analysis.cli``, ``corpus.cli``) happens."""
    module, _, attr = ref.partition(":")
    previous = guard_startup()
    try:
        found = getattr(importlib.import_module(module), attr)
        return ledger_guard.wrap(found if isinstance(found, click.Command) else found())  # chain verified first
    finally:
        end_startup(previous)


def _unavailable(name: str, error: CommandUnavailable) -> click.Command:
    """Stands in for a lazy command that cannot be loaded: listed by ``harness --help`` and shell
    completion with the reason (one broken command must not take the others' help down), and
    invoked with any arguments, ``--help`` included, it raises ``error`` (exit 2, one line)."""
    def fail(args):
        raise error
    return click.Command(name, callback=fail, params=[click.Argument(["args"], nargs=-1)],
                         short_help=f"(cannot be loaded: {error})", add_help_option=False,
                         context_settings={"ignore_unknown_options": True})


class _Harness(click.Group):
    """The command group: ``LAZY_COMMANDS`` load on first use; a harness exception with a row in
    ``EXIT_CODES`` (a plug-in that cannot be loaded, bad input a command did not catch itself) is
    reported in one line with its exit code by every command, never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in LAZY_COMMANDS and cmd_name not in self.commands:
            ref = LAZY_COMMANDS[cmd_name]
            try:
                self.add_command(load_command(ref), cmd_name)
            except Exception as exc:  # noqa: BLE001 -- any import failure: reported, not cached
                return _unavailable(cmd_name, CommandUnavailable(cmd_name, ref, exc))
        return super().get_command(ctx, cmd_name)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if ctx.parent is None:
            ctx.meta[ARGV_KEY] = list(args)  # the command line as typed: what a full disk names to rerun
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        with runio.typed_command_is(ctx.meta.get(ARGV_KEY) or sys.argv[1:]):
            return self._invoke(ctx)

    def _invoke(self, ctx: click.Context):
        """Dispatch with the command's signal handler armed (``harness.cli.startup``): a SIGINT or
        SIGTERM from here on is one STOPPED line and exit 4; a full disk is ``NoSpace``'s line.
        Once the command has returned or raised, ``finish_command`` fixes its exit code: a signal
        after that leaves it. A signal between the command's own handlers (``_dispatch``) and that
        finish is the outer ``except Interrupted`` here (``Interrupted`` is raised once; a second
        signal exits at once), never an ``Interrupted`` escaping to click ("Aborted!", exit 1)."""
        words = _command_words(self, ctx)
        code = 1
        try:
            arm_command(" ".join(["harness", *words]))
            try:
                rv = self._dispatch(ctx, words)
                code = 0
                signal_point("returned")
                return rv
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                raise
            except click.exceptions.Exit as exc:
                code = exc.exit_code
                raise
            except click.ClickException as exc:
                code = exc.exit_code
                raise
            finally:
                finish_command(code)  # the exit path: a signal now leaves the command's code as it is
                signal_point("finished")
        except Interrupted as exc:  # after the command's handlers, before its finish: the command's STOPPED line
            code = command_exits(words).signal
            click.echo(stopped_line(exc), err=True)
            finish_command(code)
            ctx.exit(code)

    def _dispatch(self, ctx: click.Context, words: list[str]):
        """The command, with a signal, a full disk and a harness error each one line."""
        try:
            return super().invoke(ctx)
        except Interrupted as exc:
            click.echo(stopped_line(exc), err=True)
            ctx.exit(command_exits(words).signal)
        except RuntimeError as exc:  # a signal inside a class body's ``__set_name__`` (an import the command made)
            wrapped = interruption_in(exc)
            if wrapped is None:
                raise
            click.echo(stopped_line(wrapped), err=True)
            ctx.exit(command_exits(words).signal)
        except NoSpace as exc:
            click.echo(f"STOPPED: {exc}" if exc.code == ExitCode.STOPPED else f"error: {exc}", err=True)
            ctx.exit(int(exc.code))
        except OSError as exc:  # a full disk under a command that wrote by hand: one line, its table's code
            if not is_no_space(exc):
                raise
            rerun = runio.typed_command() or " ".join(["harness", *sys.argv[1:]])
            # a writer not yet on runio: do not claim nothing was written (it may have left part of its output)
            line = NoSpace(exc.filename or "--out", exc, rerun, ExitCode.BAD_INPUT,
                           kept="what the command wrote before may be incomplete")
            click.echo(f"error: {line}", err=True)
            ctx.exit(command_exits(words).disk)
        except tuple(c for c in EXIT_CODES if issubclass(c, HarnessError)) as exc:
            click.echo(f"error: {exc}", err=True)
            ctx.exit(int(exit_code_for(exc) or ExitCode.BAD_INPUT))


def _command_words(group: click.Group, ctx: click.Context) -> list[str]:
    """The command's name as typed: ``["view"]``, ``["loop", "run"]`` (a group's subcommand too)."""
    args = [*(getattr(ctx, "_protected_args", None) or []), *ctx.args]
    if not args or args[0].startswith("-"):
        return []
    try:
        cmd = group.get_command(ctx, args[0])
    except Exception:  # noqa: BLE001 -- the name only: the dispatch reports a command that cannot load
        cmd = None
    nxt = args[1] if len(args) > 1 else ""
    return [args[0], nxt] if isinstance(cmd, click.Group) and nxt and not nxt.startswith("-") else [args[0]]


@click.group(cls=_Harness)
@click.version_option(package_name="proof-harness")
def main() -> None:
    """Ablation and mutant-corpus harness for LLM coding-agent control policies."""


register_plugins(main)  # harness plugins: every registered part and its origin
register_schema(main)  # harness schema records: the cell record's JSON Schema
register_receipts(main)  # harness receipts verify, harness rejudge (issue 33)


def _fail(exc: Exception, code: int | None = None):
    """One line on stderr, then the exception's exit code (``EXIT_CODES``; bad input by default)."""
    click.echo(f"error: {exc}", err=True)
    sys.exit(int(code if code is not None else exit_code_for(exc) or ExitCode.BAD_INPUT))


@click.command("monitor")
@click.argument("run_dir", metavar="RUN", type=click.Path(file_okay=False))
@click.option("--json-out", type=click.Path(dir_okay=False), help="also write the report as JSON")
@click.option("--strict", is_flag=True, help="refuse (exit 2) when RUN's records ledger does not verify")
@click.pass_context
def monitor_cmd(ctx: click.Context, run_dir, json_out, strict):
    """Anytime-valid confidence sequence per monitored hypothesis of RUN (in progress or finished).

    Every ledger reader verifies: a records ledger that does not verify (tampered, or records.jsonl
    gone while its head remains) is warned about on stderr, or with --strict refused."""
    from analysis.cli import monitor_cmd as report  # the report itself (analysis reads harness.core only)
    from harness.run.records import RECORDS_FILE, ledger_problems
    from viewer.rundir import ledger_warning, one_line
    problems = ledger_problems(Path(run_dir)) if Path(run_dir).is_dir() else []
    if problems and strict:
        _fail(InputError(str(Path(run_dir) / RECORDS_FILE), "ledger", f"does not verify: {one_line(problems[0])}; "
                         "refusing under --strict (harness ledger verify lists every problem)"))
    ctx.invoke(report, run_dir=run_dir, json_out=json_out)
    warning = ledger_warning(Path(run_dir), problems)
    if warning:
        click.echo(warning, err=True)


@main.group()
def protocol() -> None:
    """Freeze and check pre-registered protocols."""


@protocol.command("freeze")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--note", default=None, help="what changed since the last freeze and why (appended, dated, to the lock's notes)")
def protocol_freeze(path, note):
    """Write PATH's lock: sha256 over the canonical protocol and every file it names."""
    from harness.core.protocol import freeze, load_protocol
    try:
        lock = freeze(load_protocol(path), note=note)
    except InputError as exc:
        _fail(exc)
    click.echo(f"froze {path}: digest {lock['digest']} over {len(lock['files'])} files")


@protocol.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, dir_okay=False))
def protocol_check(paths):
    """Validate each PATH (default: every shipped protocol) and check it matches its lock.

    One line per protocol; exit 2 when any is invalid, unlocked or drifted (the line names the
    file and every drifted entry)."""
    from harness.core.protocol import check_protocol, shipped_protocols
    bad = 0
    for path in paths or [str(p) for p in shipped_protocols()]:
        problem = check_protocol(Path(path))
        bad += problem is not None
        click.echo(f"{path}: {problem or 'valid and matches its lock'}", err=problem is not None)  # a problem: stderr
    if bad:
        sys.exit(2)


def _check_engine_names(proto, engine: str | None, reviewer_engine: str | None) -> None:
    """Every engine name ``plan`` would price (the options and each arm's) is registered: an unknown
    one is bad input naming it and the known ones (InputError), not a bound priced as "unbounded"."""
    from harness import engines
    known = engines.known()
    named = [("--engine", engine), ("--reviewer-engine", reviewer_engine)]
    for a in proto.arms:
        own = a.settings
        named += [(f"arms.{a.name}.engine", own.engine), (f"arms.{a.name}.reviewer_engine", own.reviewer_engine)]
    for field, name in named:
        if name is not None and name not in known:
            where, fld = (field, "<option>") if field.startswith("--") else (str(proto.path), field)
            raise InputError(where, fld, f"unknown engine {name!r} (known: {', '.join(known)})")


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--worst-case", "worst_case", is_flag=True,
              help="also print the most the run can spend (calls, tokens, USD per arm; harness.ledger.worst_case)")
@click.option("--engine", default=None, help="with --worst-case: the worker engine the run will use")
@click.option("--reviewer-engine", default=None, help="with --worst-case: the reviewer engine")
@click.option("--model", default=None, help="with --worst-case: the model id a live engine will use (for its price)")
def plan(path, worst_case, engine, reviewer_engine, model):
    """Print the cells per arm and scenario, and the total after applicability."""
    from harness.core.matrix import enumerate_cells, plan_counts
    from harness.core.protocol import check_corpus, load_protocol
    try:
        proto = load_protocol(path)
        check_corpus(proto)
        _check_engine_names(proto, engine, reviewer_engine)
    except InputError as exc:
        _fail(exc)
    cells = enumerate_cells(proto)
    per_arm, per_arm_scen = plan_counts(cells)
    scen = list(proto.scenarios)
    click.echo("arm    " + " ".join(f"{s:>5}" for s in scen) + "   total")
    for a in proto.arms:
        click.echo(f"{a.name:<6} " + " ".join(f"{per_arm_scen.get((a.name, s), 0) or '-':>5}" for s in scen)
                   + f"   {per_arm[a.name]:>5}")
    factors = "".join(f" x {len(v)} {k}" for k, v in proto.factors.items())
    click.echo(f"total {len(cells)} cells ({len(proto.arms)} arms x {len(proto.tasks)} tasks x {len(scen)} scenarios "
               f"x k={proto.repeats}{factors}, after applicability)")
    if worst_case:
        from harness.ledger.worst_case import protocol_worst_case, render
        click.echo("\n" + render(protocol_worst_case(proto, model=model, engine=engine, reviewer_engine=reviewer_engine),
                                 dict(per_arm)))
        if ceiling := proto.budget.model_dump(exclude_none=True):
            click.echo("ceiling: " + ", ".join(f"{k} = {v}" for k, v in sorted(ceiling.items()))
                       + " ([budget]: the run halts there, harness.ledger.spend)")


@main.command()
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out", type=click.Path(file_okay=False), help="run directory (everything is written here)")
@click.option("--resume", "resume", type=click.Path(exists=True, file_okay=False), help="continue the run in DIR")
@click.option("--engine", default=None, help="worker engine (default: the protocol's, else simulated)")
@click.option("--reviewer-engine", default=None, help="reviewer engine (default: the worker engine)")
@click.option("--model", default=None, help="model id for live engines")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1), help="cells in flight (>= 1)")
@click.option("--exploratory", is_flag=True, help="allow an unfrozen or drifted protocol (records say so)")
@click.option("--limit-cells", type=click.IntRange(min=1), default=None, hidden=True)
@click.option("--pilot", type=click.IntRange(min=1), default=None, metavar="N",
              help="run N cells per arm (whole matched units), then project cost and time for the full design")
@click.option("--replay-from", type=click.Path(exists=True, file_okay=False), default=None,
              help="with --engine replay: replay each cell from DIR/transcripts (no network)")
@click.option("--transcript", "transcript_file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="with --engine replay: one hand-written transcript for every cell (a scripted agent)")
@click.option("--executor", default="local", show_default=True,
              help="where cells run: local (a process pool), ray (a Ray cluster; pip install -e '.[ray]'), or an "
                   "executor a plug-in registered (`harness plugins --kind executors`)")
@click.option("--address", default=None, help="with --executor ray: the cluster to join (e.g. HOST:6379 or auto; "
              "default: $RAY_ADDRESS, else start a local Ray instance with --workers CPUs)")
@click.option("--no-cache", "no_cache", is_flag=True, help="execute every test run (no verdict reuse)")
@click.option("--cache-dir", type=click.Path(file_okay=False), default=None,
              help="verdict cache shared across runs (default: DIR/verdict-cache, this run only)")
@click.option("--no-warm", "no_warm", is_flag=True,
              help="run every test in a fresh interpreter (no pre-imported zygote; same as HARNESS_WARM=0)")
@click.option("--raise-budget-usd", "raise_usd", type=click.FloatRange(min=0, min_open=True), default=None,
              help="with --resume: raise the run's [budget] max_usd to this (recorded in DIR/spend.json)")
@click.option("--raise-budget-tokens", "raise_tokens", type=click.IntRange(min=1), default=None,
              help="with --resume: raise the run's [budget] max_tokens to this (recorded in DIR/spend.json)")
@click.option("--monitor", "monitor", is_flag=True,
              help="show the primary hypothesis's anytime-valid confidence sequence on the progress line "
                   "(as `harness monitor DIR` computes it; refreshed at most every 10 s)")
@click.option("--keep-trees/--no-keep-trees", "keep_trees", default=True, show_default=True,
              help="keep each cell's final tree in DIR/trees, content-addressed (harness rejudge replays them)")
def run(path, out, resume, engine, reviewer_engine, model, workers, exploratory, limit_cells, pilot, replay_from,
        transcript_file, executor, address, no_cache, cache_dir, no_warm, raise_usd, raise_tokens, monitor, keep_trees):
    """Run protocol PATH into --out DIR, or continue a run with --resume DIR."""
    from harness.core.registry import EXECUTORS
    from harness.run.driver import StopRequest, execute, prepare
    if executor not in EXECUTORS:
        raise click.UsageError(f"--executor: unknown executor {executor!r} (known: {', '.join(EXECUTORS.names())})")
    if address and not EXECUTORS.get(executor).flag("address"):
        raise click.UsageError("--address names a Ray cluster: add --executor ray")
    if (raise_usd or raise_tokens) and not resume:
        raise click.UsageError("--raise-budget-usd/--raise-budget-tokens raise a stopped run's ceiling: use with --resume DIR")
    from harness.ledger.spend import Ceiling
    stop = StopRequest()
    previous = _on_stop_signals(stop, Path(resume or out or "."))
    try:
        if resume:
            run_dir = Path(resume)
        else:
            if not path or not out:
                raise click.UsageError("give a protocol PATH and --out DIR, or --resume DIR")
            run_dir = Path(out)
            opts = {}
            if replay_from:
                opts["replay_from"] = str(Path(replay_from).resolve())
            if transcript_file:
                opts["transcript"] = str(Path(transcript_file).resolve())
            meta = prepare(Path(path), run_dir, engine=engine, reviewer_engine=reviewer_engine, model=model,
                           exploratory=exploratory, engine_options=opts)
            if meta.repaired:
                click.echo(f"repaired run.json from {meta.repaired['from_records']} record(s) and {path} "
                           "(it was missing or torn); continuing the run", err=True)
        from analysis.monitor import primary_line  # the progress line's monitor (--monitor)
        res = execute(run_dir, workers=workers, log=lambda m: click.echo(m, err=True), limit_cells=limit_cells,
                      pilot=pilot, executor=executor, address=address, cache=not no_cache,
                      cache_dir=Path(cache_dir) if cache_dir else None, raise_budget=Ceiling(raise_usd, raise_tokens),
                      monitor=primary_line if monitor else None, stop=stop, keep_trees=keep_trees,
                      warm=False if no_warm else None)
    except InputError as exc:
        _fail(exc)
    except OSError as exc:  # a full disk (or a file the run cannot write) outside a cell: exit 4 (docs/reference/exit-codes.md)
        # a run that has its run.json continues with --resume; one stopped before it has none is started again
        again = (f"harness run --resume {run_dir}" if runio.exists_regular(Path(run_dir) / "run.json")
                 else runio.typed_command() or f"harness run PROTOCOL --out {run_dir}")
        click.echo(f"STOPPED: {exc.filename or run_dir}: {exc.strerror or exc}; the ledger is as it was (a "
                   f"repair writes aside first, the head atomically); fix it, then `{again}`", err=True)
        sys.exit(int(exit_code_for(exc) or ExitCode.STOPPED))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    _report_run(res)
    sys.exit(int(res.exit_code))


def _report_run(res) -> None:
    """The run's table and files, the pilot's projection, the spend line, and on stderr why it
    stopped (with the cells not run) or which cells are still void (denominators per arm)."""
    from harness.run.driver import incomplete_denominators
    click.echo(res.table)
    click.echo(f"\n{len(res.records)} records, {res.executed} cells run this time in {res.wall_s:.1f}s")
    click.echo(f"records: {res.run_dir / 'records.jsonl'}\nevent logs: {res.run_dir / 'cells'}\n"
               f"transcripts: {res.run_dir / 'transcripts'}\ntable: {res.run_dir / 'table.md'}")
    if res.projection is not None:
        from harness.run.pilot import render as render_pilot
        click.echo("\nPILOT PROJECTION (written to pilot.json / pilot.md; --resume DIR runs the rest):\n"
                   + render_pilot(res.projection))
    if res.spend:
        click.echo(f"\n{res.spend}")
    if res.stopped:
        click.echo(f"\nSTOPPED: {res.stopped}", err=True)
        if res.not_run:
            click.echo(f"NOT RUN: {sum(res.not_run.values())} cell(s), never void, never scored; per arm: "
                       + ", ".join(f"{a} {n}" for a, n in sorted(res.not_run.items())), err=True)
    if res.still_void:
        click.echo(f"\nINCOMPLETE: {len(res.still_void)} cell(s) still void after reruns; denominators per arm:", err=True)
        for arm, d in incomplete_denominators(res.records, res.still_void).items():
            click.echo(f"  {arm}: {d}", err=True)


def _on_stop_signals(stop, run_dir: Path) -> dict:
    """SIGINT and SIGTERM during a run: the first stops dispatch (``stop.signal``; the driver lets
    the cells in flight finish, records them and ends with one STOPPED line, exit 4); a second
    exits at once (exit 4, one STOPPED line, no traceback: pool workers die with this process,
    a record half-written is a torn line --resume repairs). Returns the handlers it replaced."""
    def handle(signum, frame):
        name = signal.Signals(signum).name
        if stop.signal is None:
            stop.signal = name
            os.write(2, f"\n{name}: stopping: no new cells; the cells in flight finish and are recorded "
                        "(send it again to exit at once)\n".encode())
            return
        os.write(2, f"STOPPED: second {name}: exited at once; every finished record is kept, cells in flight are "
                    f"unrun (never void, never scored); continue with `harness run --resume {run_dir}`\n".encode())
        os._exit(ExitCode.STOPPED)
    previous = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            previous[sig] = signal.signal(sig, handle)
        except ValueError:  # not the main thread (an embedding caller): signals stay as they were
            break
    return previous


@main.group()
def ledger() -> None:
    """Inspect hash-chained records files."""


def _records_path(path: str) -> Path:
    p = Path(path)
    return p / "records.jsonl" if p.is_dir() else p


@ledger.command("verify")
@click.argument("file", type=click.Path(exists=True))
@click.option("--anchor", type=click.Path(exists=True, dir_okay=False),
              help="an anchor written by `harness ledger anchor`: prove the ledger still extends it")
@click.option("--public-key", type=click.Path(exists=True, dir_okay=False),
              help="the PEM public key the anchor must be signed with")
def ledger_verify(file, anchor, public_key):
    """Detect edited, deleted, inserted, duplicated or reordered lines in FILE (a records.jsonl or
    a run directory), a head that does not match, and (with --anchor) a rewritten chain.
    Exit 0 intact, 1 a problem found, 2 bad input."""
    from harness.ledger.ledger import check_anchor, inspect
    path = _records_path(file)
    if not (path.exists() or path.is_symlink()):  # a FIFO or a link there is named by the safe reader, not "missing"
        _fail(InputError(str(file), "<file>", "no records.jsonl here"))
    try:
        ins = inspect(path)
    except OSError as exc:  # e.g. records.head is a directory, or a file cannot be read
        _fail(InputError(exc.filename or str(path), "<file>", f"cannot read: {exc.strerror or exc}"))
    problems, notes = list(ins.problems), list(ins.notes)
    if anchor:
        try:
            data = runio.read_json(anchor, "anchor", 1 << 20, follow=True)
        except (OSError, runio.UnsafeFile) as exc:
            _fail(InputError(anchor, "<file>", f"not a JSON anchor: {exc}"))
        pub = runio.read_bytes(public_key, "public key", 1 << 16, follow=True) if public_key else None
        try:
            p2, n2 = check_anchor(path, data, public_key_pem=pub)
        except ValueError as exc:
            _fail(InputError(public_key or anchor, "<key>", f"not a usable key: {exc}"))
        problems += p2
        notes += n2
    if not ins.records and not problems:
        click.echo(f"{path}: empty (0 records): nothing to verify")
        sys.exit(1)
    if problems or ins.torn or ins.head_behind:  # a crash state is not "intact", with or without --anchor
        click.echo(f"{path}: {len(problems)} problem(s)" + (f", {len(notes)} note(s)" if notes else ""))
        for p in problems:
            click.echo(f"  PROBLEM {p}")
        for n in notes:
            click.echo(f"  note    {n}")
        sys.exit(1)
    click.echo(f"{path}: intact ({len(ins.records)} records, chain verified)")
    for n in notes:
        click.echo(f"  {n}")


@ledger.command("anchor")
@click.argument("run", type=click.Path(exists=True))
@click.option("--out", type=click.Path(dir_okay=False), help="where to write the anchor (default: stdout); keep it "
              "outside the run directory, or commit it")
@click.option("--sign-key", type=click.Path(exists=True, dir_okay=False), help="an ed25519 private key (PEM) to sign it")
def ledger_anchor(run, out, sign_key):
    """Write the ledger's head (seq, hash, records, protocol digest, time) as an anchor."""
    from harness.ledger.ledger import AnchorHead, LedgerRefused, make_anchor
    path = _records_path(run)
    try:
        a = make_anchor(path, private_key_pem=runio.read_bytes(sign_key, "private key", 1 << 16, follow=True) if sign_key else None)
    except LedgerRefused as exc:
        _fail(InputError(str(path), "<ledger>", "cannot anchor a ledger that does not verify: " + "; ".join(exc.problems)))
    except (ValueError, TypeError) as exc:  # TypeError: a passphrase-protected key
        _fail(InputError(str(sign_key), "<key>", f"not an unencrypted ed25519 private key: {exc}"))
    except OSError as exc:
        _fail(InputError(exc.filename or str(path), "<file>", f"cannot read: {exc.strerror or exc}"))
    text = json.dumps(a, indent=1, sort_keys=True) + "\n"
    if out:
        try:
            runio.write_atomic(out, text, f"harness ledger anchor {run} --out {out}", ExitCode.BAD_INPUT)
        except OSError as exc:
            _fail(InputError(out, "--out", f"cannot write the anchor: {exc.strerror or exc}"))
        head = AnchorHead.from_json(a)
        click.echo(f"anchored seq {head.seq} ({head.records} records) to {out}" + (" (signed)" if sign_key else ""))
    else:
        click.echo(text, nl=False)


@ledger.command("keygen")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="private key file (PEM, mode 600); the "
              "public key goes to OUT.pub")
def ledger_keygen(out):
    """Make an ed25519 key pair for signing anchors."""
    from harness.ledger.ledger import generate_key
    priv, pub = generate_key()
    name = Path(out).name
    try:
        if os.path.lexists(out):
            raise FileExistsError(out)
        if not Path(out).parent.is_dir():  # a key goes where the user said, never into a directory made for it
            raise FileNotFoundError(2, "No such directory", str(Path(out).parent))
        # both halves written aside and linked into place only when whole (a full disk left an empty
        # private key under --out, which a rerun then refused to overwrite); a link never overwrites a key
        with staged_dir_files(Path(out).parent, f"harness ledger keygen --out {out}") as stage:
            runio.write_staged(stage / name, priv, mode=0o600)
            runio.write_staged(stage / (name + ".pub"), pub)
    except FileExistsError:
        _fail(InputError(out, "--out", "already exists (a key is never overwritten); choose a new path"))
    except OSError as exc:
        _fail(InputError(out, "--out", f"cannot write the key: {exc.strerror or exc}"))
    click.echo(f"private key: {out} (keep it secret)\npublic key:  {out}.pub")


def staged_dir_files(directory: Path, rerun: str):
    """``runio.staged_files`` for a key pair: never over an existing file; a full disk is exit 2."""
    return runio.staged_files(directory, rerun, ExitCode.BAD_INPUT, replace=False)


@main.group()
def tasks() -> None:
    """The task corpus."""


@tasks.command("validate")
@click.option("--tasks-dir", default="tasks", show_default=True, type=click.Path(exists=True, file_okay=False))
@click.argument("ids", nargs=-1)
def tasks_validate(tasks_dir, ids):
    """Prove each task: reference passes both tests, start fails the oracle, traps are traps."""
    from harness.cli.validate import validate_task
    from harness.core.tasks import load_tasks
    try:
        ts = load_tasks(Path(tasks_dir), list(ids) or None)
    except InputError as exc:
        _fail(exc)
    bad = 0
    for t in ts.values():
        for c in validate_task(t, Path(tasks_dir)):
            bad += not c.ok
            click.echo(f"{'ok  ' if c.ok else 'FAIL'} {c.task}: {c.name}" + (f" ({c.detail})" if c.detail and not c.ok else ""))
    click.echo(f"{len(ts)} task(s), {bad} failure(s)")
    sys.exit(1 if bad else 0)


# ---- bounded loops (harness.loop: loop, loop_runs, loop_graph, reproduce_loops) -------------------------
@main.group("loop")
def loop_grp() -> None:
    """Bounded loops: a worker driven to DONE only by a gate it cannot write (Bounded Loops paper)."""


@loop_grp.command("run")
@click.argument("target", type=click.Path(exists=True))
@click.option("--engine", default="simulated", show_default=True,
              help="simulated (corpus drafts), replay (--transcript), anthropic or openai")
@click.option("--model", "models", multiple=True, help="model id (repeat for several: Table 8's layout)")
@click.option("--out", default=None, type=click.Path(file_okay=False), help="directory for ledger.jsonl, "
              "summary.json and table.md (outside the workspace)")
@click.option("--resume", "resume", default=None, type=click.Path(file_okay=False),
              help="continue the loop run a kill stopped in DIR (same TARGET and options): finished passes are kept, "
                   "a pass cut short reruns from attempt 1")
@click.option("--max-attempts", type=click.IntRange(min=1), default=10, show_default=True,
              help="hard ceiling N: attempts per loop (a graph file declares its own)")
@click.option("--soft-bound", type=click.IntRange(min=0), default=3, show_default=True,
              help="halt after the same reject this many times in a row (0: none; a graph file declares its own)")
@click.option("--runs", type=click.IntRange(min=1), default=20, show_default=True,
              help="simulated: seeded runs per gate and tier")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--gate", "gate_names", multiple=True, help="only this gate of the loop (repeatable)")
@click.option("--tier", "tiers", type=click.Choice(["1", "2"]), multiple=True,
              help="simulated: draft pools (default both: tier-1 v1 mutants, tier-2 mutants)")
@click.option("--transcript", type=click.Path(exists=True, dir_okay=False), help="replay: the worker's replies")
@click.option("--base-url", default=None, help="live engines: the provider endpoint (else the SDK's env variable)")
def loop_run_cmd(target, engine, models, out, resume, max_attempts, soft_bound, runs, seed, gate_names, tiers,
                 transcript, base_url):
    """Run TARGET: a corpus loop directory, the catalogue directory (every loop) or a graph TOML.

    Exit 0 when the run finished (DONE and halt are both outcomes, recorded in the ledger);
    2 on bad input (one line naming the file, key and what was expected)."""
    from corpus.catalogue import CatalogueError, load_catalogue, load_loop
    from harness.loop import loop_runs as lr
    from harness.loop.loop import LoopBudget
    budget = LoopBudget(max_attempts, soft_bound or None)
    options = {"transcript": str(Path(transcript).resolve())} if transcript else {}
    if base_url:
        options["providers"] = {engine: {"base_url": base_url}}
    if bool(out) == bool(resume):
        raise click.UsageError("give --out DIR for a new loop run, or --resume DIR to continue one")
    tpath, outp = Path(target), Path(out or resume)
    set_hint(f"; every ledger row written is kept; continue with `{lr.resume_command(target, outp)}`")
    try:
        if engine == "replay" and not transcript:
            raise InputError("--transcript", "<option>", "the replay engine needs --transcript FILE")
        if engine == "simulated" and models:
            raise InputError("--model", "<option>", "the simulated engine draws corpus drafts; --model names a "
                             "live model (--engine anthropic or openai)")
        if runio.named_kind(tpath, "graph TOML") == "file":  # a FIFO or device named as TARGET: one line
            if resume and engine not in GRAPH_RESUMABLE:
                raise InputError(str(tpath), "--resume", GRAPH_RESUME_REFUSED.format(engine=engine))
            _loop_graph_run(tpath, engine, models, outp, options, seed, resume=bool(resume))
            return
        loops = [load_loop(tpath)] if (tpath / "loop.toml").is_file() else load_catalogue(tpath)
        if not loops:
            raise InputError(str(tpath), "TARGET", "no corpus loop here: expected a loop directory (with loop.toml), "
                             "a catalogue of them, or a graph TOML")
        ledger = lr.open_ledger(outp, resume=bool(resume), hold=click.get_current_context().with_resource,
                                target=target)
        if getattr(ledger, "repaired", False):
            click.echo("repaired the loop ledger after a kill (a torn last line moved aside, or its head caught up)",
                       err=True)
        text = _loop_catalogue_run(loops, ledger, budget, outp, engine, models, options, runs, seed, gate_names,
                                   tiers, target)
    except (InputError, CatalogueError, ValueError, KeyError) as exc:
        _fail(exc)
    except OSError as exc:  # a full disk under the ledger: the rows written are kept, --resume continues
        if not is_no_space(exc):
            raise
        # rows written: the same command continues them (--resume); none yet: the command as typed starts again
        rows = runio.exists_regular(outp / "ledger.jsonl") and (outp / "ledger.jsonl").stat().st_size > 0
        raise NoSpace(exc.filename or outp / "ledger.jsonl", exc, lr.resume_command(target, outp) if rows or resume
                      else runio.typed_command() or lr.resume_command(target, outp),
                      kept="every ledger row written is kept (a torn last line is moved aside on --resume)") from None
    click.echo(text)
    click.echo(f"ledger: {outp / 'ledger.jsonl'} ({len(ledger.records)} rows); summary: {outp / 'summary.json'}")


def _loop_catalogue_run(loops, ledger, budget, outp: Path, engine: str, models, options: dict, runs: int, seed: int,
                        gate_names, tiers, target: str) -> str:
    """The loops of a catalogue run: simulated (every gate, seeded corpus drafts: the false-DONE
    table) or a live engine (one gate per loop: Table 8); the summary written; returns its text."""
    from harness.loop import loop_runs as lr
    if engine == "simulated":
        summaries = []
        for loop in loops:
            gates = lr.select_gates(loop, gate_names, every=True)
            summaries += lr.run_simulated(loop, gates, ledger, budget, runs, seed, tuple(int(t) for t in tiers) or (1, 2))
        text = lr.render_false_done(summaries, budget)
        lr.write_summary(outp, {"gates": [s.as_dict() for s in summaries], "max_attempts": budget.max_attempts,
                                "soft_bound": budget.soft_bound, "runs": runs, "seed": seed}, text, target)
        return text
    done = []
    for loop in loops:
        gate = lr.select_gates(loop, gate_names, every=False)[0]
        done += lr.run_engine(loop, gate, ledger, budget, engine, models, options, seed)
    rows = lr.table8(done)
    text = lr.render_table8(rows)
    lr.write_summary(outp, {"table8": [r.as_dict() for r in rows], "caution": lr.TABLE8_CAUTION,
                            "halts": {f"{r.loop}@{r.model}": r.result.reason for r in done
                                      if r.result.state != "done"}}, text, target)
    return text


GRAPH_RESUMABLE = ("simulated", "replay")  # workers that make the same replies again: a replay re-derives the artifacts
GRAPH_RESUME_REFUSED = ("a graph run with the {engine} engine cannot be resumed: a finished pass hands its artifact "
                        "downstream and the ledger keeps only its digest, so resuming would call (and bill) the model "
                        "again for passes already paid for; start it again with a new --out")


def _loop_graph_run(path: Path, engine: str, models, out: Path, options: dict, seed: int, resume: bool = False) -> None:
    """Run a graph TOML; with ``resume``, continue the one a kill stopped in ``out``: the graph is
    replayed from the start, its finished passes and repairs re-derived by the seeded worker and
    checked against the ledger's rows (nothing rewritten), a pass cut short rerun from attempt 1."""
    from corpus.catalogue import load_loop
    from harness.loop import loop_runs as lr
    from harness.loop.loop_graph import load_graph, run_graph, worst_case_attempts
    from harness.loop.loop_workers import Candidate, CorpusWorker, corpus_pool
    graph = load_graph(path)
    ledger = lr.open_ledger(out, resume=resume, hold=click.get_current_context().with_resource, target=str(path))
    if getattr(ledger, "repaired", False):
        click.echo("repaired the loop ledger after a kill (a torn last line moved aside, or its head caught up)", err=True)

    def worker_for(node, pass_no):
        if engine != "simulated":
            return lr.start_engine(engine, (models or (None,))[0], options, seed)
        if node.loop_dir is not None:
            pool = corpus_pool(load_loop(node.loop_dir), 1)
        elif node.drafts is not None:
            pool = [Candidate(str(f), "unknown", runio.read_bytes(f, "draft")) for f in sorted(node.drafts.iterdir())
                    if f.is_file()]
        else:
            raise InputError(str(path), f"node {node.id}", "the simulated engine needs drafts = DIR on a task node")
        return CorpusWorker(pool, node.spec.target, f"{seed}|{node.id}|{pass_no}")

    res = run_graph(graph, worker_for, ledger, run_id=f"{path.stem}#{seed}", extra={"engine": engine})
    bound = worst_case_attempts(graph)
    lines = ["| node | pass | terminal | attempts | reason |", "|---|---|---|---|---|"]
    lines += [f"| {p.node} | {p.pass_no} | {p.state} | {p.spent} | {p.reason} |" for p in res.passes]
    lines.append(f"graph: {res.state} ({res.reason}); {res.attempts} attempts, {res.repairs_used} of "
                 f"{graph.repair_budget} repairs used; worst-case bound {bound['total']} ({bound['formula']})")
    text = "\n".join(lines)
    lr.write_summary(out, {"state": res.state, "reason": res.reason, "attempts": res.attempts,
                           "repairs_used": res.repairs_used, "bound": bound}, text, str(path))
    click.echo(text)
    click.echo(f"ledger: {out / 'ledger.jsonl'} ({len(ledger.records)} rows)")


@loop_grp.command("plan")
@click.argument("graph", type=click.Path(exists=True, dir_okay=False))
def loop_plan_cmd(graph):
    """Print GRAPH's closed-form worst-case attempt total (Bounded Loops, Theorem 5.2)."""
    from harness.loop.loop_graph import load_graph, worst_case_attempts
    try:
        g = load_graph(graph)
    except InputError as exc:
        _fail(exc)
    b = worst_case_attempts(g)
    click.echo("| node | N (attempts per pass) | soft bound |\n|---|---|---|")
    for n in g.nodes.values():
        click.echo(f"| {n.id} | {n.budget.max_attempts} | {n.budget.soft_bound or '-'} |")
    for e, c in b["repair_costs"].items():
        click.echo(f"repair {e}: re-runs {c} attempts' worth (sum of N over the repaired node and its downstream)")
    click.echo(f"worst-case attempts = {b['formula']} = {b['sum_N']} + {b['repair_budget']} x "
               f"{b['max_repair_cost']} = {b['total']}")


# -- harness compare (issue 23): kept apart from run/resume/signal so that edits there merge cleanly --
@main.command("compare")
@click.argument("run_a", type=click.Path(exists=True))
@click.argument("run_b", type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="output directory")
@click.option("--label-a", default=None, help="name of RUN_A in the tables (default: its arm)")
@click.option("--label-b", default=None, help="name of RUN_B in the tables (default: its arm)")
@click.option("--key", "key_text", default="task,scenario,repeat,factors", show_default=True,
              help="join key: [arm,]task,scenario,repeat[,factors] (arm joins two multi-arm runs arm by arm)")
@click.option("--no-figures", is_flag=True, help="skip the figure and the page")
def compare_cmd(run_a, run_b, out, label_a, label_b, key_text, no_figures):
    """Join RUN_A and RUN_B (run directories or records files) cell by cell: completeness, native
    outcomes, paired matrices, exact subclasses, paired tests and token usage (the Proof-or-Stop
    paper's Tables 12 and 24-28). Exit 2 on bad input."""
    from analysis.cli import InputProblem, _guard
    from analysis.compare import CompareError, Options, compare, parse_key
    from viewer.compare_page import write_all

    try:
        key = parse_key(key_text)
        # a label not given is the side's arm, resolved from the rows compare reads (analysis.compare.default_label)
        opts = Options(key=key, label_a=label_a or "", label_b=label_b or "")
        result = _guard(compare, run_a, run_b, opts, default_labels=True)
        runs = [Path(p) for p in (run_a, run_b) if Path(p).is_dir()]
        # built aside and put in place whole: a full disk is one line, exit 2, and --out as it was
        with staged_dir(Path(out), f"harness compare {run_a} {run_b} --out {out}", ExitCode.BAD_INPUT,
                        owned=("compare.png", "compare.html")) as stage:
            md = _guard(write_all, result, stage, runs, figure=not no_figures)
    except CompareError as exc:
        raise InputProblem(str(exc)) from exc
    click.echo(md)
    click.echo(f"wrote {Path(out) / 'compare.md'} and {Path(out) / 'compare.json'}"
               + ("" if no_figures else f", {Path(out) / 'compare.png'} and {Path(out) / 'compare.html'}"))


ledger_guard.wrap(compare_cmd)  # each run's ledger verified first (warn, or --strict refuse)


if __name__ == "__main__":  # python -m harness.cli.cli (unguarded; ``python -m harness.cli`` guards start-up)
    main()
