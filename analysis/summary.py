"""The analysis summary's parts as typed views (issue 36): what the report, the paper check, the figures and
the command line read of ``summary.json`` (``analysis.pipeline.compute``), of ``compare.json``
(``analysis.compare.compare``) and of the monitoring report (``analysis.monitor.monitor``), read by attribute.

The summary and the comparison stay JSON-ready dicts: they are written as they are computed (summary.json,
compare.json byte for byte as before) and a renderer may be given one read back from its file, an older
one included. ``from_json`` here is where a part's object is read: a contrast (``Contrast``), a row of
the per-scenario table (``ScenarioRow``), the task concentration (``Concentration``), a paired test of the
comparison (``PairedTest``), one side of its token readout (``TokenSide``) and the monitoring report
(``MonitorReport``, each ``MonitoredSequence``). No stricter and no more lenient than the readers they
replace: a key every producer writes is required (a damaged file raises KeyError naming it, never a
printed default), a key an older producer did not write reads None (or the reader's own default), and the
object itself is kept (``raw``) for the formatters that take the whole part (``analysis.report.fmt_interval``,
``fmt_estimands``). The GLMM's specifications read only a contrast's pair (``ContrastPair``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

_SCOPES = ("all", "top", "excluding")  # the task concentration's scopes


@dataclass(frozen=True)
class ContrastPair:
    """What a contrast names: its hypothesis's id, the pair of arms, the endpoint and the cells. The GLMM's
    specifications read only this (analysis.glmm), from a summary's contrasts or from the hypotheses alone."""
    id: str
    a: str
    b: str
    endpoint: str
    cells: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ContrastPair:
        return cls(id=obj["id"], a=obj["a"], b=obj["b"], endpoint=obj["endpoint"], cells=obj["cells"])


@dataclass(frozen=True)
class Contrast:
    """One contrast of the summary (a hypothesis's pair of arms, endpoint and cells, its rates and interval)."""
    id: str
    a: str
    b: str
    endpoint: str
    cells: str
    n_matched: int  # every computed contrast states it (0 when no cell matched): a summary without it is damaged
    estimate: float | None
    lo: float | None
    hi: float | None
    rate_a: dict[str, Any]
    rate_b: dict[str, Any]
    method: dict[str, Any]
    description: str | None
    raw: dict[str, Any]  # the contrast's object, for the formatters that read all of it

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> Contrast:
        return cls(id=obj["id"], a=obj["a"], b=obj["b"], endpoint=obj["endpoint"], cells=obj["cells"],
                   n_matched=obj["n_matched"], estimate=obj.get("estimate"), lo=obj.get("lo"), hi=obj.get("hi"),
                   rate_a=obj.get("rate_a") or {}, rate_b=obj.get("rate_b") or {}, method=obj.get("method") or {},
                   description=obj.get("description"), raw=obj)


def contrasts(summary: Mapping[str, Any]) -> list[Contrast]:
    """The summary's contrasts, in its order."""
    return [Contrast.from_json(c) for c in summary["contrasts"]]


@dataclass(frozen=True)
class ScenarioRow:
    """One scenario's row of the per-scenario table (Table 17): each side's count, Wilson rate and interval,
    Fisher's p, Benjamini-Hochberg's q and whether it is rejected."""
    scenario: str
    a: str
    b: str
    k_a: int
    n_a: int
    k_b: int
    n_b: int
    rate_a: float | None
    lo_a: float | None
    hi_a: float | None
    rate_b: float | None
    lo_b: float | None
    hi_b: float | None
    p: float | None
    q: float | None
    rejected: bool

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ScenarioRow:
        return cls(scenario=obj["scenario"], a=obj["a"], b=obj["b"], k_a=obj["k_a"], n_a=obj["n_a"],
                   k_b=obj["k_b"], n_b=obj["n_b"], rate_a=obj["rate_a"], lo_a=obj.get("lo_a"), hi_a=obj.get("hi_a"),
                   rate_b=obj["rate_b"], lo_b=obj.get("lo_b"), hi_b=obj.get("hi_b"), p=obj["p"], q=obj["q"],
                   rejected=bool(obj["rejected"]))

    def side(self, side: str) -> tuple[float | None, float | None, float | None]:
        """(rate, lo, hi) of side ``a`` or ``b``."""
        return (self.rate_a, self.lo_a, self.hi_a) if side == "a" else (self.rate_b, self.lo_b, self.hi_b)

    def prop(self, side: str) -> dict[str, Any]:
        """Side ``a`` or ``b`` as the proportion ``analysis.report.fmt_prop`` prints (k, n, rate, lo, hi)."""
        k, n = (self.k_a, self.n_a) if side == "a" else (self.k_b, self.n_b)
        rate, lo, hi = self.side(side)
        return {"k": k, "n": n, "rate": rate, "lo": lo, "hi": hi}


def per_scenario(summary: Mapping[str, Any]) -> list[ScenarioRow]:
    """The summary's per-scenario rows, in its order."""
    return [ScenarioRow.from_json(r) for r in summary["per_scenario"]]


@dataclass(frozen=True)
class Concentration:
    """The task concentration of a hypothesis (Table 13's layout): its pair and endpoint, the top task, and each
    scope's counts (``scopes``: all, top, excluding; None where the summary has none)."""
    hypothesis: str
    endpoint: str
    cells: str
    top_task: str | None  # None, stated, when no cell matched (analysis.tables.task_concentration): never absent
    a: str
    b: str
    method: str
    scopes: dict[str, Mapping[str, Any] | None]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Concentration:
        return cls(hypothesis=obj["hypothesis"], endpoint=obj["endpoint"], cells=obj["cells"],
                   top_task=obj["top_task"], a=obj["a"], b=obj["b"], method=obj["method"],
                   scopes={k: obj.get(k) for k in _SCOPES})  # read with .get by the report before the view


@dataclass(frozen=True)
class PairedTest:
    """One paired test of a comparison (an endpoint's discordant pairs, McNemar, Newcombe and the cluster
    interval, each a dict of its method, estimate and status)."""
    endpoint: str
    estimand: str
    b_yes_a_no: int
    a_yes_b_no: int
    n: int
    mcnemar: dict[str, Any]
    newcombe: dict[str, Any]
    cluster: dict[str, Any]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> PairedTest:
        return cls(endpoint=obj["endpoint"], estimand=obj["estimand"], b_yes_a_no=obj["b_yes_a_no"],
                   a_yes_b_no=obj["a_yes_b_no"], n=obj["n"], mcnemar=obj["mcnemar"], newcombe=obj["newcombe"],
                   cluster=obj["cluster"])


@dataclass(frozen=True)
class TokenSide:
    """One side's column of the token readout (Table 28; ``analysis.compare.side_tokens``). ``usage``: each usage
    field's sum, rows reporting it and how it is shown, by the field's name."""
    rows: int
    io_rows: int
    io: int | None
    io_mean: float | None
    io_mean_shown: str | None  # None: a compare.json from before it (its renderer prints the float)
    cached_share: dict[str, Any]
    cost_overflow: bool
    cost_usd: float | None
    priced_rows: int
    model: str
    usage: dict[str, dict[str, Any]]

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], fields: tuple[str, ...]) -> TokenSide:
        """``fields``: the usage fields the side reports (``analysis.compare``: tokens_in, tokens_out and the
        cached and reasoning parts)."""
        return cls(rows=obj["rows"], io_rows=obj["io_rows"], io=obj["io"], io_mean=obj["io_mean"],
                   io_mean_shown=obj.get("io_mean_shown"), cached_share=obj["cached_share"],
                   cost_overflow=bool(obj.get("cost_overflow")), cost_usd=obj.get("cost_usd"),
                   priced_rows=obj.get("priced_rows", 0), model=obj["model"],
                   usage={f: obj[f] for f in fields if f in obj})


@dataclass(frozen=True)
class MonitoredSequence:
    """One monitored hypothesis of the monitoring report (``analysis.monitor.sequence_for``): its pair, endpoint and
    cells, and how many of its planned units are in the sequence, skipped or waiting. ``raw``: the object, for the
    sequence lines (``analysis.monitor._seq_lines``) that read its intervals."""
    id: str
    a: str
    b: str
    endpoint: str
    cells: str
    planned_units: int
    units_in_sequence: int
    void_units_skipped: int
    waiting_beyond_prefix: int
    waiting_on: Any
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> MonitoredSequence:
        return cls(id=obj["id"], a=obj["a"], b=obj["b"], endpoint=obj["endpoint"], cells=obj["cells"],
                   planned_units=obj["planned_units"], units_in_sequence=obj["units_in_sequence"],
                   void_units_skipped=obj["void_units_skipped"], waiting_beyond_prefix=obj["waiting_beyond_prefix"],
                   waiting_on=obj.get("waiting_on"), raw=obj)


@dataclass(frozen=True)
class MonitorReport:
    """The monitoring report of a run (``analysis.monitor.monitor``): the run, its protocol's name, how many of its
    planned cells are recorded, each monitored sequence, the estimand and the stopping rule (a dict, or None)."""
    run: str
    protocol: str
    records: int
    cells_planned: int
    finished: bool
    sequences: list[MonitoredSequence]
    estimand: str
    stopping_rule: dict[str, Any] | None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> MonitorReport:
        return cls(run=obj["run"], protocol=obj["protocol"], records=obj["records"], cells_planned=obj["cells_planned"],
                   finished=obj["finished"], sequences=[MonitoredSequence.from_json(s) for s in obj["sequences"]],
                   estimand=obj["estimand"], stopping_rule=obj["stopping_rule"])
