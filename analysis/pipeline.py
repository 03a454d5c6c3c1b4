"""``analyze``: records file (+ optional protocol) -> tidy data, summary.json, report.md, figures."""
from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from analysis.records import LoadResult, load_records, write_tidy
from analysis.intervals import METHODS
from analysis.tables import (CLUSTERS, DEFAULT_CLUSTER, PAPER_HYPOTHESES, Hypothesis, contrast,
                             per_arm_table, per_scenario, task_concentration)


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
    path = Path(path)
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
        doc = tomllib.loads(text)
    except OSError as exc:
        raise ProtocolError(f"{path}: cannot read ({exc.strerror})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"{path}: not valid TOML: {exc}") from exc
    s = Settings(source=f"protocol {path}", protocol_sha256=hashlib.sha256(raw).hexdigest())
    an = doc.get("analysis", {})
    if not isinstance(an, dict):
        raise ProtocolError(f"{path}: field 'analysis': must be a table")
    try:
        if "alpha" in an:
            s.alpha = float(an["alpha"])
            if not 0 < s.alpha < 1:
                raise ValueError("alpha must be in (0, 1)")
        if "bootstrap_B" in an:
            s.B = int(an["bootstrap_B"])
            if s.B < 1:
                raise ValueError("bootstrap_B must be >= 1")
        if "seed" in an:
            if not isinstance(an["seed"], int) or isinstance(an["seed"], bool) or an["seed"] < 0:
                raise ValueError(f"seed must be an integer >= 0 (numpy PCG64 seed); got {an['seed']!r}")
            s.seed = an["seed"]
        if "fdr_pair" in an:
            fp = an["fdr_pair"]
            if not (isinstance(fp, list) and len(fp) == 2 and all(isinstance(x, str) for x in fp)):
                raise ValueError("fdr_pair must be [a, b]")
            s.fdr_pair = (fp[0], fp[1])
    except (TypeError, ValueError) as exc:
        raise ProtocolError(f"{path}: field 'analysis': {exc}") from exc
    # The harness's own protocols declare scenarios under [protocol]; accept top level and [matrix] too.
    scen = doc.get("scenarios")
    for table in ("protocol", "matrix"):
        if scen is None and isinstance(doc.get(table), dict):
            scen = doc[table].get("scenarios")
    if isinstance(scen, list) and scen and all(isinstance(x, str) for x in scen):
        s.scenarios = set(scen) | {"null"}
    hyps = doc.get("hypotheses")
    if hyps is not None:
        if not isinstance(hyps, list):
            raise ProtocolError(f"{path}: field 'hypotheses': must be an array of tables ([[hypotheses]])")
        out = []
        for i, h in enumerate(hyps):
            line = _line_of_nth(text, "[[hypotheses]]", i)
            where = f"{path}:{line}" if line else f"{path}"
            if not isinstance(h, dict):
                raise ProtocolError(f"{where}: field 'hypotheses[{i}]': must be a table")
            for req in ("id", "a", "b"):
                if not isinstance(h.get(req), str) or not h.get(req):
                    raise ProtocolError(f"{where}: field 'hypotheses[{i}].{req}': required string")
            hyp = Hypothesis(h["id"], h["a"], h["b"], h.get("endpoint", "not_amplified"),
                             h.get("cells", "injected"), h.get("cluster", DEFAULT_CLUSTER),
                             str(h.get("description", "")), h.get("interval", Hypothesis.interval))
            try:
                hyp.check()
            except ValueError as exc:
                raise ProtocolError(f"{where}: field 'hypotheses[{i}]': {exc}") from exc
            out.append(hyp)
        if len({h.id for h in out}) != len(out):
            raise ProtocolError(f"{path}: field 'hypotheses': ids must be unique")
        if out:
            s.hypotheses = out
    return s


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
                  "engines": sorted({str(e) for e in tidy["engine"].dropna().unique()})},
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
    (out / "summary.json").write_text(json.dumps(summary, indent=2, sort_keys=False) + "\n")
    from analysis.report import render_report

    (out / "report.md").write_text(render_report(summary))
    return summary


