"""``analyze``: records file (+ optional protocol) -> tidy data, summary.json, report.md, figures."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from analysis.pairs import Col
from analysis.records import LoadResult, load_records, write_tidy
from analysis.tables import (
    CLUSTERS,
    PAPER_HYPOTHESES,
    Hypothesis,
    contrast,
    per_arm_table,
    per_scenario,
    task_concentration,
)
from harness.core import statefile
from harness.core.interval_methods import METHODS


class ProtocolError(ValueError):
    """Bad protocol file; message names the file, the line when known, and the field."""


@dataclass
class Settings:
    hypotheses: list[Hypothesis] = field(default_factory=lambda: list(PAPER_HYPOTHESES))
    alpha: float = 0.05
    B: int = 2000
    seed: int = 20240607
    fdr_pair: tuple[str, str] = ("A4", "A2p")
    scenarios: set[str] | None = None  # declared scenarios (validation), None = accept any
    source: str = "paper defaults (H1/H2/H3 of the Proof-or-Stop paper, section 5.2)"
    protocol_sha256: str | None = None


def _line_of_nth(text: str, header: str, n: int) -> int | None:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == header]
    return hits[n] if n < len(hits) else None


def load_protocol(path: str | Path) -> Settings:
    """Analysis settings from a protocol or an analysis plan, read through the harness's one protocol
    model (harness.core.protocol: load_analysis_plan). Errors name the file, the line of a
    [[hypotheses]] table when known, and the field."""
    from harness.core.errors import InputError
    from harness.core.protocol import load_analysis_plan

    path = Path(path)
    try:
        plan = load_analysis_plan(path)
    except InputError as exc:
        raise ProtocolError(_located(path, exc)) from None
    except OSError as exc:
        raise ProtocolError(f"{path}: cannot read ({exc.strerror})") from exc
    an = plan.analysis
    s = Settings(source=f"protocol {path}", protocol_sha256=plan.sha256, alpha=an.alpha, B=an.bootstrap_B)
    if an.seed is not None:
        s.seed = an.seed
    if an.fdr_pair is not None:
        s.fdr_pair = (an.fdr_pair[0], an.fdr_pair[1])
    if plan.scenarios:
        s.scenarios = set(plan.scenarios) | {"null"}
    text = path.read_text(encoding="utf-8")
    out = []
    for i, h in enumerate(plan.hypotheses):
        hyp = Hypothesis(h.id, h.a, h.b, h.endpoint, h.cells, h.cluster, h.description or "",
                         h.interval or Hypothesis.interval)
        try:
            hyp.check()
        except ValueError as exc:
            line = _line_of_nth(text, "[[hypotheses]]", i)
            raise ProtocolError(f"{path}{f':{line}' if line else ''}: field 'hypotheses[{i}]': {exc}") from exc
        out.append(hyp)
    if out:
        s.hypotheses = out
    return s


def _located(path: Path, exc) -> str:
    """An InputError from the protocol model as 'FILE[:LINE]: field 'KEY': what' (a [[hypotheses]]
    table's line is found by counting its headers)."""
    if exc.line is not None:
        return f"{path}:{exc.line}: field '{exc.field}': {exc.message}"
    parts = exc.field.split(".")
    if parts[0] == "hypotheses" and len(parts) > 1 and parts[1].isdigit():
        i = int(parts[1])
        line = _line_of_nth(path.read_text(encoding="utf-8", errors="replace"), "[[hypotheses]]", i)
        rest = ".".join(parts[2:])
        return (f"{path}{f':{line}' if line else ''}: field 'hypotheses[{i}]'" + (f": {rest}" if rest else "")
                + f": {exc.message}")
    return f"{path}: field '{exc.field}': {exc.message}"


def file_sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def clean(obj):
    """JSON-safe: NaN -> None, numpy scalars -> Python, tuples -> lists."""
    if isinstance(obj, dict):
        return {str(k): clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, (str, bytes)):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def compute(loaded: LoadResult, settings: Settings, cluster: str | None = None,
            interval: str | None = None) -> dict:
    """All numbers, as the summary.json dict (no files written). ``cluster`` / ``interval``
    override every hypothesis's cluster unit / interval method (e.g. the paper's scheme)."""
    tidy = loaded.tidy
    if cluster is not None and cluster not in CLUSTERS:
        raise ValueError(f"cluster must be one of {', '.join(CLUSTERS)}")
    if interval is not None and interval not in METHODS:
        raise ValueError(f"interval must be one of {', '.join(METHODS)}")
    hyps = [replace(h, cluster=cluster or h.cluster, interval=interval or h.interval)
            for h in settings.hypotheses]
    arms, gaps, n_common = per_arm_table(tidy, loaded.void, loaded.void_keys)
    contrasts = [contrast(tidy, h, settings.B, settings.seed, settings.alpha) for h in hyps]
    a, b = settings.fdr_pair
    ps = per_scenario(tidy, a, b, settings.alpha)
    primary = hyps[0] if hyps else None
    conc = task_concentration(tidy, primary) if primary else None
    rej = sum(r["rejected"] for r in ps)
    tested = sum(r["p"] is not None for r in ps)
    summary = {
        "records": loaded.accounting(),
        "input": {"path": loaded.path, "sha256": file_sha256(loaded.path),
                  "engines": sorted({str(e) for e in tidy[Col.ENGINE].dropna().unique()})},
        "settings": {"source": settings.source, "protocol_sha256": settings.protocol_sha256,
                     "alpha": settings.alpha, "B": settings.B, "seed": settings.seed,
                     "fdr_pair": list(settings.fdr_pair), "cluster_override": cluster,
                     "interval_override": interval},
        "common_cells": n_common,
        "coverage_gaps": gaps,
        "arms": arms,
        "contrasts": contrasts,
        "per_scenario": ps,
        "fdr": {"pair": [a, b], "tested": tested, "rejected": rej, "alpha": settings.alpha,
                "method": "Benjamini-Hochberg over per-scenario two-sided Fisher exact p values"},
        "task_concentration": conc,
    }
    return clean(summary)


def analyze(records: str | Path, out: str | Path, protocol: str | Path | None = None,
            seed: int | None = None, B: int | None = None, cluster: str | None = None,
            on_conflict: str = "error", glmm: bool = False, figures: bool = True,
            interval: str | None = None) -> dict:
    settings = load_protocol(protocol) if protocol else Settings()
    if seed is not None:
        settings.seed = seed
    if B is not None:
        settings.B = B
    from analysis.fastload import gc_paused

    with gc_paused():  # a million rows alive: no collector passes over them while they load
        loaded = load_records(records, on_conflict=on_conflict, scenarios=settings.scenarios)
    summary = compute(loaded, settings, cluster, interval)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_tidy(loaded.tidy, out)
    pd.DataFrame(summary["per_scenario"]).to_csv(out / "per-scenario.csv", index=False, lineterminator="\n")
    from analysis.glmm import fit_glmm, write_glmm_script

    write_glmm_script(out / "analysis.glmm.R", summary["contrasts"])
    if glmm:
        summary["glmm"] = clean(fit_glmm(loaded.tidy, summary["contrasts"]))
    if figures:
        from analysis.figures import make_figures

        summary["figures"] = make_figures(summary, out / "figures")
    statefile.write_atomic(out / "summary.json", json.dumps(summary, indent=2, sort_keys=False) + "\n")
    from analysis.report import render_report

    statefile.write_atomic(out / "report.md", render_report(summary))
    return summary


