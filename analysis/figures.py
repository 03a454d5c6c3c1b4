"""Figures (PNG + SVG), deterministic: Agg backend, fixed svg.hashsalt, no date/software metadata."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from analysis.summary import per_scenario  # noqa: E402

RC: dict[Any, Any] = {"svg.hashsalt": "proof-harness-analysis", "svg.fonttype": "path", "font.size": 9,
      "figure.dpi": 100}
SVG_META = {"Date": None, "Creator": None}
PNG_META = {"Software": None}


def _save(fig, out: Path, stem: str) -> list[str]:
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / f"{stem}.svg", format="svg", metadata=SVG_META)
    fig.savefig(out / f"{stem}.png", format="png", metadata=PNG_META, dpi=120)
    plt.close(fig)
    return [f"figures/{stem}.png", f"figures/{stem}.svg"]


def _err(rate, lo, hi, scale):
    if rate is None:
        return 0.0, [[0.0], [0.0]]
    return scale * rate, [[scale * (rate - lo)], [scale * (hi - rate)]]


def make_figures(summary: dict, out: Path) -> list[str]:
    paths: list[str] = []
    arms = list(summary["arms"])
    with plt.rc_context(RC):
        # 1. amplification ladder per 1,000 injected cells (Fig. 5)
        fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * max(len(arms), 1)))
        for i, arm in enumerate(arms):
            p = summary["arms"][arm]["amplified"]
            x, e = _err(p["rate"], p["lo"], p["hi"], 1000)
            ax.barh(i, x, color="#b2182b" if arm == "A4" else "#999999")
            if p["rate"] is not None:
                ax.errorbar(x, i, xerr=e, color="black", capsize=3, lw=1)
            label = f"{p['k']}/{p['n']}" if p["n"] else "n/a"
            ax.text(x + 0.5, i + 0.25, label, fontsize=7)
        ax.set_yticks(range(len(arms)), arms)
        ax.invert_yaxis()
        ax.set_xlabel("amplified per 1,000 matched injected cells (Wilson 95%)")
        ax.set_title("Amplification ladder (lower is better)")
        fig.tight_layout()
        paths += _save(fig, out, "amplification_ladder")

        # 2. per-scenario not-amplified forest plot
        ps = per_scenario(summary)
        fig, ax = plt.subplots(figsize=(6, 0.6 + 0.3 * max(len(ps), 1)))
        if ps:
            a, b = ps[0].a, ps[0].b
            for j, (side, off, col) in enumerate((("a", -0.15, "#b2182b"), ("b", 0.15, "#2166ac"))):
                for i, r in enumerate(ps):
                    rate, lo, hi = r.side(side)
                    if rate is None:
                        continue
                    x, e = _err(rate, lo, hi, 100)
                    ax.errorbar(x, i + off, xerr=e, fmt="o", color=col, ms=3, capsize=2, lw=1,
                                label=(a if side == "a" else b) if i == 0 else None)
            ax.set_yticks(range(len(ps)), [r.scenario for r in ps])
            ax.invert_yaxis()
            ax.legend(loc="lower left", fontsize=7)
        ax.set_xlabel("not-amplified % over matched injected cells (Wilson 95%)")
        ax.set_title("Per-scenario not-amplified")
        fig.tight_layout()
        paths += _save(fig, out, "per_scenario_forest")

        # 3. completion per arm
        fig, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * max(len(arms), 1)))
        for i, arm in enumerate(arms):
            p = summary["arms"][arm]["completion"]
            if p["rate"] is None:
                ax.text(0, i, "n/a (0/0)", fontsize=7, va="center")
                continue
            x, e = _err(p["rate"], p["lo"], p["hi"], 100)
            ax.errorbar(x, i, xerr=e, fmt="o", color="black", capsize=3, lw=1)
            ax.text(min(x, 97), i - 0.25, f"{p['k']}/{p['n']}", fontsize=7)
        ax.set_yticks(range(len(arms)), arms)
        ax.invert_yaxis()
        ax.set_xlim(-2, 102)
        ax.set_xlabel("completion % over matched null cells (Wilson 95%)")
        ax.set_title("Completion per arm")
        fig.tight_layout()
        paths += _save(fig, out, "completion")
    return paths
