"""Commands contributed to ``harness``: analyze, reproduce (paper, synth-paper), power."""
from __future__ import annotations

import json
from pathlib import Path

import click

from analysis.intervals import DEFAULT_METHOD
from analysis.tables import CLUSTERS, DEFAULT_CLUSTER
from harness.core import runio
from harness.core.errors import ExitCode
from harness.core.interval_methods import METHODS


class InputProblem(click.ClickException):
    """Bad input (a records file, protocol, run directory or option): one line, exit code 2,
    as for every harness command (issue 11)."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"error: {self.format_message()}", err=True)


def _guard(fn, *args, **kwargs):
    """Run fn, turning input errors into exit code 2 with a message naming file, line and field."""
    from analysis.monitor import MonitorError
    from analysis.pipeline import ProtocolError
    from analysis.records import RecordsError
    from harness.core.errors import InputError

    try:
        return fn(*args, **kwargs)
    except (RecordsError, ProtocolError, InputError, MonitorError) as exc:
        raise InputProblem(str(exc)) from exc
    except OSError as exc:  # an unreadable input or an unwritable --out (a full disk: NoSpace's line)
        if runio.is_no_space(exc):
            raise
        raise InputProblem(f"{exc.filename or ''}: {exc.strerror or exc}") from exc


def register(group: click.Group) -> None:
    group.add_command(analyze_cmd)
    group.add_command(reproduce_grp)
    group.add_command(power_cmd)
    group.add_command(monitor_cmd)


@click.command("analyze")
@click.argument("records", type=click.Path(dir_okay=False))
@click.option("--protocol", type=click.Path(dir_okay=False), help="protocol TOML ([[hypotheses]], [analysis])")
@click.option("--out", required=True, type=click.Path(file_okay=False), help="output directory")
@click.option("--seed", type=click.IntRange(min=0), help="bootstrap seed, >= 0 (overrides the protocol)")
@click.option("--B", "B", type=click.IntRange(min=1), help="bootstrap resamples (default 2000)")
@click.option("--cluster", type=click.Choice(CLUSTERS),
              help=f"cluster unit for every hypothesis (default: the protocol's, else {DEFAULT_CLUSTER})")
@click.option("--interval", type=click.Choice(METHODS),
              help=f"interval method for every hypothesis (default: the protocol's, else {DEFAULT_METHOD})")
@click.option("--on-conflict", type=click.Choice(["error", "first", "last"]), default="error",
              show_default=True, help="policy for duplicates of one cell key with different outcomes")
@click.option("--glmm", is_flag=True, help="also fit the GLMM sensitivity models in Python (statsmodels)")
@click.option("--no-figures", is_flag=True, help="skip PNG/SVG figures")
def analyze_cmd(records, protocol, out, seed, B, cluster, interval, on_conflict, glmm, no_figures):
    """Analyze a records file (JSONL, CSV or Parquet) into tables, intervals, tests and figures."""
    from analysis.pipeline import analyze
    from analysis.report import fmt_estimands, fmt_interval, fmt_method
    from analysis.summary import contrasts

    # built aside and put in place whole: a full disk is one line, exit 2, and --out as it was
    with runio.staged_dir(Path(out), f"harness analyze {records} --out {out}", ExitCode.BAD_INPUT) as stage:
        s = _guard(analyze, records, stage, protocol=protocol, seed=seed, B=B, cluster=cluster,
                   on_conflict=on_conflict, glmm=glmm, figures=not no_figures, interval=interval)
    r = s["records"]
    click.echo(f"{r['scored']} scored cells from {r['lines']} records "
               f"(void: {sum(r['void'].values())}, duplicates dropped: {r['duplicates_dropped']})")
    for c in contrasts(s):
        click.echo(f"{c.id} {c.a}-{c.b} {c.endpoint} over {c.n_matched} matched {c.cells} "
                   f"cells: {fmt_interval(c.raw)} ({fmt_method(c.method)})")
        for line in fmt_estimands(c.raw):
            click.echo(f"  {line}")
    click.echo(f"wrote {Path(out) / 'summary.json'} and {Path(out) / 'report.md'}")


@click.group("reproduce")
def reproduce_grp():
    """Reproduce a paper's tables from released records."""


@reproduce_grp.command("paper")
@click.option("--records", type=click.Path(dir_okay=False), help="records of the powered ablation (Tables 11, 13, 17)")
@click.option("--paired-a", type=click.Path(dir_okay=False),
              help="records of the no-review control (Appendix B, Tables 24-28; with --paired-b)")
@click.option("--paired-b", type=click.Path(dir_okay=False), help="records of the Proof-or-Stop gated run")
@click.option("--out", default="results/reproduce-paper", show_default=True, type=click.Path(file_okay=False))
@click.option("--seed", type=click.IntRange(min=0))
@click.option("--B", "B", type=click.IntRange(min=1))
@click.option("--on-conflict", type=click.Choice(["error", "first", "last"]), default="error", show_default=True)
@click.option("--strict", is_flag=True, help="exit 1 if any published value differs")
def reproduce_paper_cmd(records, paired_a, paired_b, out, seed, B, on_conflict, strict):
    """Tables 11, 13 and 17 (powered column) of the Proof-or-Stop paper beside the published values;
    with --paired-a/--paired-b, also the paired readout of Appendix B (Tables 24-28)."""
    from analysis.paper import reproduce_paper

    if bool(paired_a) != bool(paired_b):
        raise InputProblem("--paired-a and --paired-b go together (the control's and the gated run's records)")
    if not records and not paired_a:
        raise InputProblem("give --records FILE, or --paired-a FILE --paired-b FILE, or both")
    rows: list[dict] = []
    texts: list[str] = []
    given = [f"--records {records}"] if records else []
    given += [f"--paired-a {paired_a} --paired-b {paired_b}"] if paired_a else []
    rerun = " ".join(["harness reproduce paper", *given, f"--out {out}"])
    # built aside and put in place whole: a full disk is one line (exit 2) and leaves --out as it was
    # (analysis tables and reproduce.md were written in place: an empty analysis.tidy.csv was left)
    with runio.staged_dir(Path(out), rerun, ExitCode.BAD_INPUT) as stage:
        if records:
            rows, text = _guard(reproduce_paper, records, stage, seed=seed, B=B, on_conflict=on_conflict)
            texts.append(text)
        if paired_a:
            from analysis.compare import CompareError
            from analysis.paired_paper import reproduce_paired
            try:
                prows, ptext = _guard(reproduce_paired, paired_a, paired_b, stage / "paired")
            except CompareError as exc:
                raise InputProblem(str(exc)) from exc
            texts.append(ptext)
            rows = rows + prows
    for text in texts:
        click.echo(text)
    n_diff = sum(r["status"] == "differs" for r in rows)
    if strict and n_diff:
        raise click.ClickException(f"{n_diff} value(s) differ from the published tables")


@reproduce_grp.command("synth-paper")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="JSONL file to write")
def synth_paper_cmd(out):
    """Write a synthetic records file carrying the paper's published counts (allocation partly assumed)."""
    from analysis.paper import synthetic_paper_records

    n = synthetic_paper_records(out)
    click.echo(f"wrote {n} records to {out} (synthetic: engine=synthetic-paper-counts)")


@reproduce_grp.command("synth-paired")
@click.option("--out-a", required=True, type=click.Path(dir_okay=False), help="JSONL file of the no-review control")
@click.option("--out-b", required=True, type=click.Path(dir_okay=False), help="JSONL file of the gated run")
def synth_paired_cmd(out_a, out_b):
    """Write two records files carrying the paper's Appendix B paired counts (allocation assumed)."""
    from analysis.paired_paper import synthetic_paired_records

    na, nb = _guard(synthetic_paired_records, out_a, out_b)
    click.echo(f"wrote {na} records to {out_a} and {nb} to {out_b} (synthetic: engine=synthetic-paper-counts)")


@click.command("power")
@click.option("--rate", "rates", multiple=True, metavar="ARM=P",
              help="assumed marginal per-arm endpoint rate (over tasks), e.g. --rate A4=0.999 --rate A2p=0.983")
@click.option("--pilot", type=click.Path(dir_okay=False), help="pilot records file (rates estimated from it)")
@click.option("--a", "arm_a", default="A4", show_default=True)
@click.option("--b", "arm_b", default="A2p", show_default=True)
@click.option("--endpoint", type=click.Choice(["not_amplified", "completion", "amplified"]),
              default="not_amplified", show_default=True)
@click.option("--tasks", type=click.IntRange(min=1), default=24, show_default=True)
@click.option("--scenarios", type=click.IntRange(min=1), default=15, show_default=True)
@click.option("--k", "ks", default="3,5,8", show_default=True, help="repeats to evaluate, comma separated")
@click.option("--task-sd", type=click.FloatRange(min=0), default=0.0, show_default=True,
              help="sd of a task random effect on the logit scale (the --rate values stay marginal rates)")
@click.option("--sims", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--B", "B", type=click.IntRange(min=1), default=500, show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--cluster", type=click.Choice(CLUSTERS), default=DEFAULT_CLUSTER, show_default=True)
@click.option("--interval", type=click.Choice(METHODS), default=DEFAULT_METHOD, show_default=True)
@click.option("--target", type=click.FloatRange(0, 1), default=0.8, show_default=True, help="target power")
@click.option("--band", help="pre-registered planning band LO,HI for the base (b-arm) rate; refuse outside it")
@click.option("--json-out", type=click.Path(dir_okay=False), help="write the result as JSON")
@click.option("--monitor", "monitor_mode", is_flag=True,
              help="units to target power for the fixed-n tests and the monitor's confidence sequences instead")
@click.option("--max-units", type=click.IntRange(min=10), default=4000, show_default=True,
              help="--monitor: the longest stream simulated")
def power_cmd(rates, pilot, arm_a, arm_b, endpoint, tasks, scenarios, ks, task_sd, sims, B, seed,
              cluster, interval, target, band, json_out, monitor_mode, max_units):
    """Simulated probability that the primary interval excludes zero, per number of repeats k."""
    from analysis.power import PowerRefused, plan

    try:
        k_list = [int(x) for x in ks.split(",") if x.strip()]
        if not k_list or min(k_list) < 1:
            raise ValueError(f"--k {ks}: expected positive integers separated by commas")
        band_t = tuple(float(x) for x in band.split(",")) if band else None
        if band_t is not None and (len(band_t) != 2 or not 0 <= band_t[0] <= band_t[1] <= 1):
            raise ValueError("--band must be LO,HI with 0 <= LO <= HI <= 1")
        rate_map = {}
        for r in rates:
            arm, eq, p = r.partition("=")
            if not eq or not arm:
                raise ValueError(f"--rate {r}: expected ARM=P, e.g. A4=0.99")
            rate_map[arm] = float(p)
            if not 0 <= rate_map[arm] <= 1:
                raise ValueError(f"--rate {r}: rate must be in [0, 1]")
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc
    if monitor_mode:
        _power_monitor(rate_map, pilot, arm_a, arm_b, endpoint, sims, seed, target, max_units, json_out)
        return
    try:
        res = _guard(plan, rates=rate_map, pilot=pilot, a=arm_a, b=arm_b, endpoint=endpoint,
                     tasks=tasks, scenarios=scenarios, ks=k_list, task_sd=task_sd, sims=sims, B=B,
                     seed=seed, cluster=cluster, target=target, band=band_t, interval=interval)
    except PowerRefused as exc:
        if json_out:
            runio.write_atomic(json_out, json.dumps(exc.result, indent=2) + "\n", "harness power --json-out "
                               f"{json_out}", ExitCode.BAD_INPUT)
        click.echo(exc.result["text"])
        raise click.ClickException(f"refused: {exc}") from exc
    except ValueError as exc:
        raise InputProblem(str(exc)) from exc
    click.echo(res["text"])
    if json_out:
        runio.write_atomic(json_out, json.dumps(res, indent=2) + "\n", f"harness power --json-out {json_out}",
                           ExitCode.BAD_INPUT)


def _power_monitor(rate_map, pilot, a, b, endpoint, sims, seed, target, max_units, json_out) -> None:
    """``harness power --monitor``: units to target power, fixed-n tests against the two sequences."""
    from analysis.power import monitor_power, pilot_rates, render_monitor_power

    if pilot:
        pr = _guard(pilot_rates, pilot, a, b, endpoint)
        p_a, p_b = pr["a"].rate, pr["b"].rate
    elif a in rate_map and b in rate_map:
        p_a, p_b = rate_map[a], rate_map[b]
    else:
        raise InputProblem(f"need --rate for {a} and {b} (or --pilot FILE)")
    res = monitor_power(p_a, p_b, target=target, sims=sims, max_units=max_units, seed=seed)
    res["text"] = render_monitor_power(res, a, b)
    click.echo(res["text"])
    if json_out:
        runio.write_atomic(json_out, json.dumps(res, indent=2) + "\n", f"harness power --monitor --json-out {json_out}",
                           ExitCode.BAD_INPUT)


@click.command("monitor")
@click.argument("run_dir", metavar="RUN", type=click.Path(file_okay=False))
@click.option("--json-out", type=click.Path(dir_okay=False), help="also write the report as JSON")
def monitor_cmd(run_dir, json_out):
    """Anytime-valid confidence sequence per monitored hypothesis of RUN (in progress or finished)."""
    from analysis.monitor import monitor, render

    rep = _guard(monitor, run_dir)
    click.echo(render(rep))
    if json_out:
        runio.write_atomic(json_out, json.dumps(rep, indent=2) + "\n", f"harness monitor {run_dir} --json-out "
                           f"{json_out}", ExitCode.BAD_INPUT)
