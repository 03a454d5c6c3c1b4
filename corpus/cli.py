"""``harness corpus ...``: measure gates against mutants, freeze gates, list the catalogue,
score a reviewer. Registered into the main CLI by harness.cli.cli."""
from __future__ import annotations

import json
import os
import shlex
import stat
import sys
import tempfile
from pathlib import Path

import click

from corpus import browse
from corpus import catalogue as cat
from corpus.browse import write_index
from corpus.config import CorpusConfig, find_config, load_config
from corpus.declarations import DeclarationError, check_hint_values, load_hints
from corpus.freeze import freeze as do_freeze
from corpus.freeze import load_frozen, saturation_table, verify
from corpus.gates import GateError, load_gate
from corpus.junit import write as write_junit
from corpus.kinds import KindError, check_content, infer_kind
from corpus.measure import (
    ci_failures,
    is_planted,
    measure,
    nothing_measured,
    planted_report,
    render_table,
    summarize,
    write_outputs,
)
from corpus.model import KINDS
from corpus.operators import FAMILIES, generate, operators
from corpus.report_html import write as write_html
from corpus.survivors import render as render_survivors
from corpus.survivors import survivors as survivor_report
from harness.core import runio
from harness.core.errors import ExitCode
from harness.core.wilson import wilson

JOURNAL = "judgments.partial.jsonl"   # under --out while measuring: what a stopped run keeps
CACHE = "judgment-cache.jsonl"        # under --out, kept: judgments reused while their inputs are unchanged
EXIT_CODES = """Exit codes: 0 measured, and every CI check asked for passed; 1 nothing measured (with --gate:
the suite fails, or collects no test, on the unmutated artifact) or a CI check failed
(--fail-on-vacuous: a gate that is vacuous, self-attesting, never judges, cannot accept its
own conforming artifact, or met no vacuity probe; --max-false-accept: a false-accept rate, or its Wilson upper bound,
above RATE or n/a); 2 bad input (a malformed gate, hints or loop file, an artifact that is
binary, of unknown kind or does not parse as its kind, a changed frozen gate, a --bound upper
RATE no gate's number of mutants can ever meet); 130 interrupted (Ctrl-C): every judgment
reached is kept in the journal under --out, and the same command resumes."""
EXIT_INTERRUPTED = 130


def user_loop(gate_path: Path, artifact: Path, kind: str | None, hints_path: Path | None,
              context_dir: Path | None, tmp: Path, skip_lines: tuple[str, ...] = (),
              extra_operators: tuple[str, ...] = ()) -> cat.Loop:
    """An ad-hoc loop around a user's own gate and conforming artifact (validated: bad input raises
    DeclarationError or KindError with a one-line message). ``skip_lines`` (from pyproject.toml)
    are added to the hints' own."""
    artifact = artifact.resolve()
    if not artifact.is_file():
        raise click.UsageError(f"--artifact {artifact} is not a file")
    hints = load_hints(hints_path) if hints_path else {}
    if skip_lines:
        hints["skip_lines"] = [*hints.get("skip_lines", []), *skip_lines]
        check_hint_values(hints_path or Path("pyproject.toml"), "artifact", hints)
    if extra_operators:
        hints["extra_operators"] = [*hints.get("extra_operators", []), *extra_operators]
    kind = kind or hints.pop("kind", None) or infer_kind(artifact)
    hints.pop("kind", None)
    if kind == "python":
        hints.setdefault("role", "code")   # a .py artifact's requirement is its behaviour unless the hints say not
    check_content(artifact, artifact.read_bytes(), kind)
    if context_dir:
        context_dir = context_dir.resolve()
        try:
            target = str(artifact.relative_to(context_dir))
        except ValueError:
            raise click.UsageError("--artifact must lie inside --context-dir")
        art_dir = context_dir
    else:
        art_dir = tmp / "artifact"
        art_dir.mkdir()
        (art_dir / artifact.name).write_bytes(artifact.read_bytes())
        target = artifact.name
    return cat.Loop(id=f"user:{artifact.name}", dir=tmp, title="user gate",
                    domains=["user"], requirement=hints.pop("requirement", "(user-supplied)"),
                    kind=kind, target=target,
                    artifact_dir=art_dir, hints={k: v for k, v in hints.items() if k != "not_applicable"},
                    not_applicable=tuple(hints.get("not_applicable", [])),
                    gate_paths=[gate_path.resolve()])


_CONFIG_KEYS = {"families": "families", "gate_path": "gate", "artifact": "artifact", "hints": "hints",
                "context_dir": "context_dir", "out_dir": "out", "workers": "workers",
                "fail_on_vacuous": "fail_on_vacuous", "max_false_accept": "max_false_accept", "bound": "bound"}


def _with_config(ctx: click.Context, cfg: CorpusConfig, **given) -> dict:
    """``given`` option values, each replaced by the config's where the option was left at its
    default on the command line (the command line wins) and the config sets it."""
    out = dict(given)
    for name, key in _CONFIG_KEYS.items():
        value = getattr(cfg, key)
        if value in (None, ()):
            continue
        if ctx.get_parameter_source(name) in (None, click.core.ParameterSource.DEFAULT):
            out[name] = value
    return out


def register(group: click.Group) -> None:
    group.add_command(corpus)


class _CorpusGroup(click.Group):
    """Bad input raised by the corpus's own loaders ends as a one-line error and exit 2."""

    def parse_args(self, ctx, args):
        ctx.meta["corpus.argv"] = list(args)     # the command as typed, for the resume line
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (cat.CatalogueError, GateError, DeclarationError, KindError) as exc:
            raise click.UsageError(str(exc)) from None


@click.group(cls=_CorpusGroup)
def corpus() -> None:
    """The two-tier mutant corpus: measure a gate's false-accept / false-reject rates."""


@corpus.command("measure", epilog=EXIT_CODES)
@click.option("--loop", "loop_id", help="one catalogue loop (default: every loop)")
@click.option("--family", "families", multiple=True, type=click.Choice(FAMILIES),
              help="tier-1 operator family (repeatable; default v1)")
@click.option("--no-tier2", is_flag=True, help="leave out the hand-authored tier-2 mutants")
@click.option("--gate", "gate_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="measure your own gate (TOML) ...")
@click.option("--artifact", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="... against mutants of this conforming artifact")
@click.option("--kind", type=click.Choice(KINDS),
              help="artifact kind for --artifact (default: from the hints file, else the file name)")
@click.option("--hints", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML with an [artifact] table of requirement hints (required_sections, ...)")
@click.option("--context-dir", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="directory copied with the artifact for every judgment (default: the file alone)")
@click.option("--frozen", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="freeze file: refuse to measure if any gate changed since it was frozen")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="output directory (default: out in [tool.proof-harness.corpus])")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="pyproject.toml whose [tool.proof-harness.corpus] table gives the defaults "
                   "(default: the nearest pyproject.toml)")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option("--fail-on-vacuous", is_flag=True,
              help="exit 1 if an unplanted gate is vacuous (absence, hollowing, self-attesting), never "
                   "judges, or cannot accept its own conforming artifact")
@click.option("--max-false-accept", type=click.FloatRange(0, 1), metavar="RATE",
              help="exit 1 if an unplanted gate's false-accept rate exceeds RATE (n/a fails too)")
@click.option("--bound", type=click.Choice(["point", "upper"]), default="point", show_default=True,
              help="--max-false-accept compares the rate itself or its Wilson 95% upper bound")
@click.option("--cold", is_flag=True, help="judge pytest gates the cold way (whole suite per mutant)")
@click.option("--fresh", is_flag=True, help="ignore the judgment cache under --out (judge everything again)")
@click.option("--since", "since", metavar="GIT_REF",
              help="judge only mutants in the functions changed since this git revision (git diff)")
@click.option("--survivors", "show_survivors", type=click.IntRange(0), default=20, show_default=True,
              help="print at most this many surviving mutants' diffs (all are in survivors.md)")
@click.option("--quiet", is_flag=True)
def measure_cmd(loop_id, families, no_tier2, gate_path, artifact, kind, hints, context_dir, frozen,
                out_dir, config_path, workers, fail_on_vacuous, max_false_accept, bound, cold, fresh, since,
                show_survivors, quiet):
    """Judge every mutant with every gate; write summary.json, gates.csv, judgments.csv,
    exclusions.csv, survivors.md, junit.xml and html/ under --out, and print the table.
    Each judgment is journalled under --out as it ends: run the same command again after a
    crash or a kill and only the missing judgments run. Defaults come from the
    [tool.proof-harness.corpus] table of pyproject.toml; the command line wins."""
    cfg = load_config(config_path) if config_path else find_config()
    opts = _with_config(click.get_current_context(), cfg, families=families, gate_path=gate_path,
                        artifact=artifact, hints=hints, context_dir=context_dir, out_dir=out_dir,
                        workers=workers, fail_on_vacuous=fail_on_vacuous, max_false_accept=max_false_accept,
                        bound=bound)
    (families, gate_path, artifact, hints, context_dir, out_dir, workers, fail_on_vacuous, max_false_accept,
     bound) = (opts[k] for k in ("families", "gate_path", "artifact", "hints", "context_dir", "out_dir",
                                 "workers", "fail_on_vacuous", "max_false_accept", "bound"))
    if out_dir is None:
        raise click.UsageError("--out is required (or out in [tool.proof-harness.corpus] of pyproject.toml)")
    families = tuple(families) or ("v1",)
    with tempfile.TemporaryDirectory(prefix="corpus-user-") as tmp:
        if cfg.from_mutmut and gate_path is None:
            gate_path = _mutmut_defaults(cfg, artifact, Path(tmp), quiet)
        loops, tier2 = _loops_to_measure(cfg, loop_id, no_tier2, gate_path, artifact, kind, hints, context_dir,
                                         frozen, Path(tmp))
        rerun = _rerun_line()
        runio.make_dir(out_dir, rerun)
        # one measurement writes a journal at a time: a second is refused naming the first's PID
        click.get_current_context().with_resource(runio.DirLock(out_dir, "measure.lock", f"rerun `{rerun}`"))
        preflight = _bound_preflight(max_false_accept) if max_false_accept is not None and bound == "upper" \
            else None
        keep = _since(since, loops, artifact) if since else None
        m = _judge(loops, out_dir, rerun, families=families, tier2=tier2, workers=workers, cold=cold, fresh=fresh,
                   keep=keep, quiet=quiet, preflight=preflight)
        summary = summarize(m)
        summary["planted"] = planted_report(summary, loops)
        report = survivor_report(summary, m)
        run = {"mode": "user", "gate": str(gate_path.resolve()), "artifact": str(artifact.resolve()),
               "kind": loops[0].kind, "hints": str(hints.resolve()) if hints else None,
               "context_dir": str(context_dir.resolve()) if context_dir else None,
               "skip_lines": list(cfg.skip_lines), "extra_operators": list(cfg.extra_operators)} \
            if gate_path else {"mode": "catalogue", "loop": loop_id}
        paths = _write_results(out_dir, rerun, summary, m, report, max_false_accept, bound,
                               {**run, "families": list(families)})
        (out_dir / JOURNAL).unlink(missing_ok=True)  # every judgment is now in judgments.csv
    _print_measurement(summary, report, families, show_survivors, paths, round(m.wall_s, 2))
    _exit_on_ci_failures(summary, bool(gate_path), fail_on_vacuous, max_false_accept, bound)


def _loops_to_measure(cfg, loop_id, no_tier2, gate_path, artifact, kind, hints, context_dir, frozen,
                      tmp: Path) -> tuple[list, bool]:
    """The loops ``corpus measure`` judges, with whether tier-2 mutants join: the user's gate over
    their artifact, else the catalogue's loops; every gate validated (a usage error, exit 2) and,
    with --frozen, unchanged since the freeze (exit 2 naming the changes)."""
    if bool(gate_path) != bool(artifact):
        raise click.UsageError("--gate and --artifact go together")
    try:
        if gate_path:
            load_gate(gate_path)   # validate early, with a readable message
            loops = [user_loop(gate_path, artifact, kind, hints, context_dir, tmp, cfg.skip_lines,
                               cfg.extra_operators)]
            tier2 = False
        else:
            loops = cat.load_catalogue(only=loop_id)
            tier2 = not no_tier2
        for lp in loops:
            lp.gates()
        if frozen:
            probs = verify(load_frozen(frozen), loops) if not gate_path else []
            if probs:
                click.echo("gates changed since the freeze:\n  " + "\n  ".join(probs), err=True)
                sys.exit(2)
    except (GateError, cat.CatalogueError, DeclarationError, KindError, ValueError) as exc:
        raise click.UsageError(str(exc))
    return loops, tier2


def _judge(loops: list, out_dir: Path, rerun: str, *, families, tier2: bool, workers: int, cold: bool, fresh: bool,
           keep, quiet: bool, preflight):
    """Every mutant judged by every gate (``corpus.measure.measure``), journalled under --out: a
    Ctrl-C or a full disk stops with every judgment reached kept (exit 4, the rerun resumes)."""
    journal = out_dir / JOURNAL

    def progress(done, total):
        if not quiet and (done % 50 == 0 or done == total):
            click.echo(f"  judged {done}/{total}", err=True)

    def announce(reused: int, to_judge: int) -> None:
        if not quiet or reused:
            click.echo(f"{reused} unchanged, {to_judge} to judge", err=True)
    try:
        m = measure(loops, families=families, tier2=tier2, workers=workers, progress=progress,
                    fast=not cold, journal=journal, preflight=preflight, keep=keep, announce=announce,
                    cache=None if fresh else out_dir / CACHE)
    except KeyboardInterrupt:
        _interrupted(journal)
    except OSError as exc:  # a full disk under the journal: every judgment reached is kept in it
        if not runio.is_no_space(exc):
            raise
        raise runio.NoSpace(exc.filename or journal, exc, rerun, ExitCode.STOPPED,
                            kept=f"every judgment reached is kept in {journal}") from None
    if m.resumed:
        click.echo(f"resumed {m.resumed} judgments from {journal} (an earlier run of this measurement "
                   f"was stopped; same mutants, same gate files)", err=True)
    return m


def _print_measurement(summary: dict, report: list, families, show_survivors: int, paths, wall_s: float) -> None:
    """The table, the planted defects, the saturation table (v1 and v2), the first surviving
    mutants' diffs and the files written (``wall_s``: the measurement's, as its summary states it)."""
    click.echo(render_table(summary))
    if summary["planted"]:
        click.echo("\nPLANTED DEFECTS (found = the instrument detected what was planted)")
        for p in summary["planted"]:
            click.echo(f"  {p['loop']}:{p['gate']} planted={p['planted']} found={p['found']} "
                       f"by={', '.join(p['proved_by'][:2]) or '-'}")
    if "v1" in families and "v2" in families:
        click.echo("\n" + saturation_table(summary))
    unplanted = [g for g in report if not g["planted"]]
    if unplanted and show_survivors:
        n = sum(g["count"] for g in unplanted)
        click.echo(f"\nSURVIVING DESTROYING MUTANTS ({n} false accepts over {len(unplanted)} unplanted "
                   f"gates; diffs against the conforming artifact, by operator; all in survivors.md)")
        click.echo(render_survivors(_first(unplanted, show_survivors), planted=False))
    click.echo(f"\nwrote {', '.join(str(p) for p in paths)} (wall {wall_s}s)")


def _exit_on_ci_failures(summary: dict, user_gate: bool, fail_on_vacuous: bool, max_false_accept, bound) -> None:
    """Exit 1 when a CI check fails (--fail-on-vacuous, --max-false-accept; each reason names its
    gate, printed even when nothing was measured) or a user's gate measured nothing."""
    fails = ci_failures(summary, fail_on_vacuous=fail_on_vacuous, max_false_accept=max_false_accept, bound=bound) \
        if (fail_on_vacuous or max_false_accept is not None) else []
    if fails:  # the CI checks' reasons are printed even when nothing was measured: each names its gate
        flags = " ".join(f for f, on in (("--fail-on-vacuous", fail_on_vacuous),
                                         (f"--max-false-accept {max_false_accept} --bound {bound}",
                                          max_false_accept is not None)) if on)
        click.echo(f"\nFAIL ({flags}):\n  " + "\n  ".join(fails), err=True)
    empty = nothing_measured(summary) if user_gate else None
    if empty:
        click.echo(empty, err=True)
    if fails or empty:
        sys.exit(1)


def _mutmut_defaults(cfg: CorpusConfig, artifact: Path | None, tmp: Path, quiet: bool) -> Path:
    """The gate made from [tool.mutmut]'s tests_dir (said on stderr: the defaults came from
    mutmut's table, not ours); a do_not_mutate glob naming the artifact is a usage error."""
    from corpus.config import excluded_by_mutmut, mutmut_gate
    if artifact is not None and excluded_by_mutmut(cfg, artifact):
        raise click.UsageError(f"{cfg.source}: [tool.mutmut] do_not_mutate {excluded_by_mutmut(cfg, artifact)!r} "
                               f"excludes {artifact}")
    if not quiet:
        click.echo(f"no [tool.proof-harness.corpus] table in {cfg.source}: read [tool.mutmut] (module "
                   f"{artifact}, tests_dir {cfg.tests_dir}, family fine, results in {cfg.out})", err=True)
    return mutmut_gate(cfg, tmp)


def _since(ref: str, loops: list, artifact: Path | None):
    """``--since REF``: (predicate, why) keeping the mutants inside the top-level statements
    (functions, classes) that hold a line changed since REF; a bad REF or no git is bad input."""
    from corpus.incremental import changed_units, in_changed, lines_changed_since
    spans = {}
    for lp in loops:
        on_disk = artifact.resolve() if artifact else lp.target_path
        try:
            lines = lines_changed_since(ref, on_disk)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        spans[lp.id] = (lp.target_path.read_bytes(), changed_units(lp.target_path.read_bytes(), lines))

    def keep(job) -> bool:
        parent, changed = spans[job.loop.id]
        return in_changed(parent, job.mutant, changed)
    return keep, f"unchanged since {ref}"


def _write_results(out_dir: Path, rerun: str, summary: dict, m, report, max_false_accept, bound,
                   run: dict) -> list[Path]:
    """Every output file, built in a staging directory beside ``out_dir`` and moved in only when all
    are whole (``runio.staged_dir``): a full disk leaves no partial or empty output under its final
    name (``NoSpace``, exit 4: the journal keeps every judgment, the same command resumes)."""
    with runio.staged_dir(out_dir, rerun, ExitCode.STOPPED) as stage:
        paths = write_outputs(summary, m, stage)
        runio.write_staged(stage / "survivors.md", render_survivors(report, max_diff_lines=None))
        paths.append(stage / "survivors.md")
        wall_s = round(m.wall_s, 2)  # the measurement's wall time, as its summary states it
        paths.append(write_junit(stage / "junit.xml", summary, max_false_accept=max_false_accept, bound=bound,
                                 wall_s=wall_s))
        paths.append(write_html(stage / "html", summary, report, wall_s=wall_s)[0])
        paths += write_index(stage, m.mutants, m.conforming, run)
    return [out_dir / p.relative_to(stage) for p in paths]


def _rerun_line() -> str:
    """The command as typed (``harness corpus ...``): what a stopped measurement is resumed with."""
    ctx = click.get_current_context()
    argv = ctx.find_root().meta.get("corpus.argv") or ctx.meta.get("corpus.argv") or []
    return f"{ctx.find_root().command_path} corpus {shlex.join(argv)}"


def _interrupted(journal: Path) -> None:
    """Ctrl-C: say how much was kept and how to resume, exit EXIT_INTERRUPTED."""
    kept = 0
    if journal.is_file():
        try:
            kept = sum(1 for line in runio.read_bytes(journal, "journal").splitlines() if line.strip())
        except runio.UnsafeFile:
            kept = 0
    ctx = click.get_current_context()
    argv = ctx.find_root().meta.get("corpus.argv") or ctx.meta.get("corpus.argv") or []
    root = ctx.find_root().command_path
    click.echo(f"\ninterrupted: {kept} judgments kept in {journal}; resume with:\n  "
               f"{root} corpus {shlex.join(argv)}", err=True)
    sys.exit(EXIT_INTERRUPTED)


def _bound_preflight(rate: float):
    """Refuse ``--max-false-accept RATE --bound upper`` before judging anything when a gate has too
    few destroying mutants for the Wilson 95% upper bound of 0/n to reach RATE: that gate would
    fail whatever it does. The message gives the n it would need."""
    from corpus.model import DESTROYING

    def check(jobs) -> None:
        n_by_gate: dict[tuple[str, str], int] = {}
        for j in jobs:
            if is_planted(j.gate.status):      # defective on purpose: not held to the bound
                continue
            key = (j.loop.id, j.gate.name)
            n_by_gate[key] = n_by_gate.get(key, 0) + (j.mutant is not None and j.mutant.label == DESTROYING)
        need = wilson_n_needed(rate)
        short = [(k, n) for k, n in n_by_gate.items() if need is None or n < need]
        if short:
            (loop, gate), n = short[0]
            want = "no n can (an upper bound of 0/n is always above 0; use --bound point)" if need is None \
                else f"it needs n >= {need} destroying mutants"
            raise click.UsageError(
                f"--max-false-accept {rate:g} --bound upper can never pass for {loop}:{gate}: it has "
                f"n = {n} destroying mutants, and the Wilson 95% upper bound of 0/{n} is "
                f"{wilson(0, n).hi or 1.0:.4f} > {rate:g}; {want} (add operator families) "
                f"({len(short)} gate(s) short)")
    return check


def wilson_n_needed(rate: float) -> int | None:
    """The smallest n whose Wilson 95% upper bound of 0/n is <= ``rate`` (None when rate <= 0).
    Closed form z^2 (1 - rate) / rate, checked against harness.core.wilson itself."""
    if rate <= 0:
        return None
    if rate >= 1:
        return 1
    z2 = 1.959963984540054 ** 2
    n = max(1, int(z2 * (1 - rate) / rate) - 2)
    while (wilson(0, n).hi or 1.0) > rate:
        n += 1
    return n


def _first(report: list[dict], n: int) -> list[dict]:
    """The report cut to its first ``n`` survivors (in order)."""
    out, left = [], n
    for g in report:
        if left <= 0:
            break
        groups = {}
        for op, items in g["groups"].items():
            if left <= 0:
                break
            groups[op] = items[:left]
            left -= len(groups[op])
        out.append({**g, "groups": groups})
    return out


@corpus.command("freeze")
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path))
def freeze_cmd(out_file):
    """Record the digest of every catalogue gate (and everything its verdict depends on)."""
    data = do_freeze(cat.load_catalogue())
    runio.make_dir(out_file.parent, f"harness corpus freeze --out {out_file}", ExitCode.BAD_INPUT)
    runio.write_atomic(out_file, json.dumps(data, indent=2) + "\n", f"harness corpus freeze --out {out_file}",
                       ExitCode.BAD_INPUT)
    click.echo(f"froze {len(data['gates'])} gates -> {out_file}")


@corpus.command("list")
def list_cmd():
    """The catalogue: loops, domains, artifact kinds, gates, tier-2 counts, exclusions."""
    from corpus.tier2 import load_tier2
    for lp in cat.load_catalogue():
        gates = ", ".join(f"{g.name}[{g.kind}{'/' + g.status if g.status != 'current' else ''}]"
                          for g in lp.gates())
        excl = f"  tier-1 excluded: {lp.tier1_excluded}" if lp.tier1_excluded else ""
        click.echo(f"{lp.id:28} {','.join(lp.domains):24} {lp.kind:8} t2={len(load_tier2(lp)):<2} {gates}{excl}")


@corpus.command("generate")
@click.option("--loop", "loop_id", required=True)
@click.option("--family", default="v1", type=click.Choice(FAMILIES))
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              help="write each mutant's bytes and a mutants.json index here")
def generate_cmd(loop_id, family, out_dir):
    """Show (or write) the tier-1 mutants of one loop's artifact."""
    lp = cat.load_catalogue(only=loop_id)[0]
    muts = generate(lp.artifact_spec(), family)
    for m in muts:
        click.echo(f"{m.id:60} {m.label:11} {m.note}")
    if out_dir:  # written aside and put in place whole (a full disk: one line, nothing partial)
        with runio.staged_dir(out_dir, f"harness corpus generate --loop {loop_id} --out {out_dir}",
                              ExitCode.BAD_INPUT) as stage:
            for m in muts:
                if m.content is not None:
                    runio.write_staged(stage / m.id.replace("/", "__"), m.content)
            runio.write_staged(stage / "mutants.json", json.dumps([m.as_dict() for m in muts], indent=2))


@corpus.command("operators")
@click.option("--family", type=click.Choice(FAMILIES))
def operators_cmd(family):
    """List the operators, with their family, artifact kinds and fixed label."""
    for o in operators(family):
        click.echo(f"{o.family} {o.name:22} {o.label:11} {','.join(o.kinds):40} {o.doc.splitlines()[0] if o.doc else ''}")


# ----------------------------------------------------------------------------- browsing a result

def _out_dir(out_dir: Path | None) -> Path:
    """--out, else out in [tool.proof-harness.corpus]; the directory of a finished measurement."""
    out = out_dir or find_config().out
    if out is None:
        raise click.UsageError("--out is required (or out in [tool.proof-harness.corpus] of pyproject.toml)")
    return Path(out)


def _browse(fn):
    """Browse errors (no measurement, a stale or unknown mutant) are one line and exit 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        try:
            return fn(*a, **kw)
        except browse.BrowseError as exc:
            raise click.UsageError(str(exc)) from None
    return wrapper


_OUT = click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
                    help="the --out of a finished measurement (default: out in pyproject.toml)")


@corpus.command("results")
@_OUT
@click.option("--all", "show_all", is_flag=True, help="every judgment, not only the survivors")
@_browse
def results_cmd(out_dir, show_all):
    """The surviving destroying mutants (false accepts) of a measurement, one line each:
    id, gate, operator and what changed; --all lists every judgment with its verdict."""
    out = _out_dir(out_dir)
    index = browse.load_index(out)
    rows = [r for r in browse.judgments(out) if r["family"] != "control"]
    shown = rows if show_all else [r for r in rows if browse.is_survivor(r)]
    for r in shown:
        note = index[r["mutant"]].d["note"] if r["mutant"] in index else ""
        click.echo(f"{r['mutant']}  {r['gate']}  {r['verdict']:10} {r['operator']:20} {note}")
    judged = [r for r in rows if r["verdict"] in ("accept", "reject")]
    surv = [r for r in rows if browse.is_survivor(r)]
    click.echo(f"{len(surv)} survivors of {sum(r['label'] == 'destroying' for r in judged)} judged destroying "
               f"mutants ({len(rows)} judgments; `harness corpus show ID` for a diff)")


@corpus.command("show")
@click.argument("mutant")
@_OUT
@_browse
def show_cmd(mutant, out_dir):
    """One mutant: its diff against the conforming artifact and its verdict per gate."""
    out = _out_dir(out_dir)
    s = browse.find(browse.load_index(out), mutant)
    click.echo(f"{s.id}  {s.d['operator']}  {s.d['label']}  {s.d['note']}")
    for r in browse.judgments(out):
        if r["mutant"] == s.id:
            click.echo(f"  {r['gate']}: {r['verdict']} ({r['executor']}) {r['reason'][:160]}")
    click.echo(browse.diff(s, browse.conforming(out, s.d["loop"])), nl=False)


def _artifact_on_disk(out: Path, s: browse.Stored) -> Path:
    run = runio.read_json(out / browse.RUN, browse.RUN)
    if run.get("mode") == "user":
        return Path(run["artifact"])
    return cat.load_catalogue(only=s.d["loop"])[0].target_path


@corpus.command("apply")
@click.argument("mutant")
@_OUT
@_browse
def apply_cmd(mutant, out_dir):
    """Write MUTANT into the artifact file (to look at a survivor in place; undo with your VCS).
    Refused when the file changed since the measurement or the mutant deletes the file."""
    out = _out_dir(out_dir)
    s = browse.find(browse.load_index(out), mutant)
    path = _artifact_on_disk(out, s)
    # the user's own file: read through its link (they named it to `corpus measure`), and replaced
    # atomically beside its target by the one writer (a full disk leaves it as it was, never cut)
    target = Path(os.path.realpath(path))
    old = runio.read_bytes(target, "artifact", follow=True)
    content = s.content(old)
    if content is None:
        raise click.UsageError(f"{s.id} deletes {path}; not applied")
    runio.write_atomic(target, content, _rerun_line(), ExitCode.BAD_INPUT, mode=stat.S_IMODE(os.stat(target).st_mode))
    click.echo(f"applied {s.id} to {path} ({s.d['note']})")


@corpus.command("retest")
@click.argument("mutants", nargs=-1, required=True)
@_OUT
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 64))
@_browse
def retest_cmd(mutants, out_dir, workers):
    """Judge these mutants again, cold, with the measurement's gate(s), against the artifact as it
    is now (refused when it changed since), and print old -> new verdicts (judgments.csv is kept)."""
    from corpus.measure import Job, run_job
    out = _out_dir(out_dir)
    index = browse.load_index(out)
    picked = [browse.find(index, m) for m in mutants]
    old = {(r["mutant"], r["gate"]): r["verdict"] for r in browse.judgments(out)}
    run = runio.read_json(out / browse.RUN, browse.RUN)
    with tempfile.TemporaryDirectory(prefix="corpus-retest-") as tmp:
        if run.get("mode") == "user":
            loops = [user_loop(Path(run["gate"]), Path(run["artifact"]), run.get("kind"),
                               Path(run["hints"]) if run.get("hints") else None,
                               Path(run["context_dir"]) if run.get("context_dir") else None, Path(tmp),
                               tuple(run.get("skip_lines", ())), tuple(run.get("extra_operators", ())))]
        else:
            loops = cat.load_catalogue(only=run.get("loop"))
        by_id = {lp.id: lp for lp in loops}
        jobs = []
        for s in picked:
            lp = by_id[s.d["loop"]]
            m = s.mutant(lp.target_path.read_bytes())
            jobs += [Job(lp, g, m) for g in lp.gates()]
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=workers) as ex:
            rows = list(ex.map(run_job, jobs))
    for r in rows:
        was = old.get((r.mutant, r.gate), "-")
        click.echo(f"{r.mutant}  {r.gate}: {was} -> {r.verdict}{'' if was == r.verdict else '  (changed)'}"
                   f"  {r.reason[:120]}")
